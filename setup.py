"""The compiled core of the engine (engine/_core.c), built where a C compiler is present.

Everything else about the package is in pyproject.toml. Where the extension cannot be
built (no compiler, no Python headers), the install goes on without it and the engine
runs on its pure-Python reference (engine/_native.py says which core is active).
"""

from __future__ import annotations

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """Build the core if possible; otherwise say so in one line and install without it."""

    skipped = False

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # noqa: BLE001 - any failure leaves the pure-Python engine
            self._skip(error)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:  # noqa: BLE001
            self._skip(error)

    @classmethod
    def _skip(cls, error: Exception) -> None:
        if cls.skipped:  # an editable install then fails to copy it: the same failure
            return
        cls.skipped = True
        print(
            f"detente: the compiled engine core was not built ({error}); the pure-Python engine will run",
            file=sys.stderr,
        )


setup(
    ext_modules=[
        Extension("engine._core", sources=["engine/_core.c"], depends=["engine/_saved.c", "engine/_vector.c"]),
        Extension("engine._graph", sources=["engine/_graph.c"]),
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
