"""What the documentation build adds: how old each results page's figures are, and the HTTP
API's reference from the OpenAPI document the server serves.

- Every page of ``docs/results/`` is rendered by ``benchmarks/results.py`` from its JSON file;
  as the site is built, a line under its title says how many days before this build the figures
  were measured, and warns when that is more than :data:`STALE_DAYS` or the file says it was
  transcribed from an earlier run rather than measured by its benchmark.
- The ``openapi`` directive renders ``server.api_models.openapi()``: each path and method
  with its summary, and the document itself, so that the reference is the server's own.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx

ROOT = Path(__file__).resolve().parents[2]
STALE_DAYS = 30


def _age_line(name: str, now: datetime.datetime) -> str | None:
    path = ROOT / "benchmarks" / "results" / f"{name}.json"
    if not path.is_file():
        return None
    record = json.loads(path.read_text(encoding="utf-8"))
    try:
        when = datetime.datetime.fromisoformat(record["date"])
    except (KeyError, ValueError):
        return f"```{{warning}}\nThe date of these figures cannot be read from `benchmarks/results/{name}.json`.\n```\n"
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    days = (now - when).days
    age = "on the day of this build" if days < 1 else f"{days} day{'s' if days != 1 else ''} before this build"
    transcribed = record.get("source", "measured") != "measured"
    kind = "warning" if days > STALE_DAYS or transcribed else "note"
    why = []
    if days > STALE_DAYS:
        why.append(f"older than {STALE_DAYS} days: run `{record.get('command', 'the benchmark')}` again")
    if transcribed:
        why.append("transcribed from an earlier write-up, not written by the benchmark itself")
    said = f"These figures were measured {age} ({when.date().isoformat()})" + (f"; {'; '.join(why)}" if why else "")
    return f"```{{{kind}}}\n{said}.\n```\n"


def _add_age(app: Sphinx, docname: str, source: list[str]) -> None:
    if not docname.startswith("results/") or docname == "results/index":
        return
    line = _age_line(docname.split("/", 1)[1], datetime.datetime.now(datetime.UTC))
    if line is None:
        return
    text = source[0]
    head, _, rest = text.partition("\n")
    source[0] = f"{head}\n\n{line}\n{rest}"


class OpenAPI(Directive):
    """``.. openapi::``: the JSON API's paths and methods, then the OpenAPI document."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from server.api_models import openapi

        document: dict[str, Any] = openapi()
        table = nodes.table()
        group = nodes.tgroup(cols=3)
        table += group
        for width in (10, 30, 60):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        head += self._row(("method", "path", "what it does"))
        body = nodes.tbody()
        group += body
        for path, methods in document.get("paths", {}).items():
            for method, operation in methods.items():
                summary = operation.get("summary") or operation.get("description", "").split("\n")[0]
                body += self._row((method.upper(), path, summary))
        text = json.dumps(document, indent=1, ensure_ascii=False)
        block = nodes.literal_block(text, text, language="json")
        return [table, nodes.paragraph(text=f"The OpenAPI {document.get('openapi', '')} document:"), block]

    @staticmethod
    def _row(cells: tuple[str, str, str]) -> nodes.row:
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += nodes.paragraph(text=cell)
            row += entry
        return row


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("source-read", _add_age)
    app.add_directive("openapi", OpenAPI)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
