"""pubcli show: entries in full, with their file and line."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from . import common


class ShowFormat(str, Enum):
    text = "text"
    bibtex = "bibtex"
    json = "json"


def show_command(
    keys: List[str] = typer.Argument(..., metavar="KEY...",
                                     help="Citation keys (KEY@LINE picks one of several "
                                          "entries with the same key)."),
    format: ShowFormat = typer.Option(ShowFormat.text, "--format", "-f",
                                      help="text: every field as a reader sees it (LaTeX as "
                                           "Unicode); bibtex: the entry's text as in the file; "
                                           "json: fields as written and as text."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """Show entries in full: every field, the research areas, the file and line.

    Fields an entry inherits through crossref or xdata are shown after its own,
    marked "(inherited)"; they are not in its text.

    Examples:

        pubcli show wang2024zero

        pubcli show wang2024zero --format bibtex

        pubcli show smith2020@42
    """
    from pubcli.usecases import editing
    from pubcli import store

    lib = store.load(common.library_path(library))
    common.report_problems(lib)
    records = editing.resolve_many(lib, keys)
    sys.stdout.write(_render(lib, records, format))


def _render(lib, records, format: ShowFormat) -> str:
    from pubcli.usecases import editing
    from pubcli.schema.inherit import Inheritance
    from ..render import entry
    from ..render.text import clean

    if format is ShowFormat.bibtex:
        text = "\n\n".join(editing.entry_text(lib, r) for r in records) + "\n"
        return clean(text) if common.stdout_is_terminal() else text
    inherit = Inheritance(lib.records)
    if format is ShowFormat.json:
        return entry.entries_json([(r, str(lib.path), r.line, inherit.inherited(r))
                                   for r in records])
    width = common.terminal_width() if common.stdout_is_terminal() else None
    return entry.entries_text([(r, editing.where(lib, r), inherit.inherited(r))
                               for r in records], width)


def register(app: typer.Typer) -> None:
    app.command("show")(show_command)
