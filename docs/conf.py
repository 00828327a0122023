"""The documentation site: Sphinx, with MyST so that the pages stay Markdown that reads on
GitHub too, sphinx-argparse for the CLI reference (built from ``detente.cli.build_parser``,
the parser the command runs), and autodoc for the API reference (from the docstrings).

Built in CI in strict mode: ``python -m sphinx -W --keep-going -b html docs OUT``, where a
broken link, reference or directive fails the build.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "détente"
author = "the détente maintainers"
copyright = "2026, the détente maintainers"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinxarg.ext",
    "detente_docs",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "tutorials/examples/*.md"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# a link to a file of the repository outside docs/ goes to that file on the forge, not nowhere
myst_url_schemes = {"http": None, "https": None, "mailto": None, "ws": None, "wss": None}

autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
# a signature's ``type[Bot]`` finds the ``type`` attribute of every order class: an ambiguity
# of the type hints, not a broken reference (a missing reference still fails the build)
suppress_warnings = ["ref.python"]
nitpicky = False  # type hints name third-party classes that have no inventory here (no internet)

html_theme = "furo"
html_title = "détente"
html_static_path: list[str] = []
