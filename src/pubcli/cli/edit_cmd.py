"""pubcli edit: change one entry in your editor, or field by field."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from . import common


def edit_command(
    key: str = typer.Argument(..., metavar="KEY",
                              help="The entry's key (KEY@LINE picks one of several entries "
                                   "with the same key)."),
    set_: Optional[List[str]] = typer.Option(None, "--set", metavar="FIELD=VALUE",
                                             help="Set a field, without an editor "
                                                  "(repeatable)."),
    unset: Optional[List[str]] = typer.Option(None, "--unset", metavar="FIELD",
                                              help="Remove a field, without an editor "
                                                   "(repeatable)."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="Show the diff; write nothing."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """Edit one entry: in $VISUAL or $EDITOR, or with --set / --unset.

    The editor opens on the entry's own text. When you save and quit, the text
    is parsed and checked, the diff is shown, and only that entry is rewritten
    in the library. If it does not parse you may re-open the editor (on a
    terminal); otherwise nothing is written and your text stays in its
    temporary file, whose path is printed (the error names the line of a '{'
    left open, counted as BibTeX does). Quitting without a change writes
    nothing. The library is not locked while the editor is open; if the entry
    changed meanwhile, nothing is written. Values given with --set are LaTeX,
    as in the file.

    Examples:

        pubcli edit wang2024zero

        pubcli edit wang2024zero --set doi=10.1145/3620666.3651379 --unset note
    """
    from pubcli.usecases import editing
    from pubcli import store
    from . import dialogues

    path = common.library_path(library)
    text = None
    if not (set_ or unset):
        before = store.load(path)
        common.report_problems(before)
        seen = editing.editable(before, key)
        text = dialogues.edit_until_valid(
            editing.entry_text(before, seen),
            lambda edited: editing.checked_text(edited, before, seen), name=seen.key)
    with store.transaction(path, dry_run=dry_run, on_wait=common.note) as lib:
        if text is None:
            common.report_problems(lib)
            change = editing.set_fields(lib, editing.editable(lib, key), set_ or [], unset or [])
        else:
            [old] = editing.relocate(lib, [seen])
            change = editing.edit_text(lib, old, text)
        if change is not None:
            common.echo(editing.diff(lib, change.old, change.new))
    _report(change, dry_run)


def _report(change, dry_run: bool) -> None:
    if change is None:
        common.note("no change; nothing was written")
        return
    for line in change.notes:
        common.warn(line)
    common.note(f"dry run: would rewrite '{change.old.key}'; nothing was written" if dry_run
                else f"rewrote '{change.new.key}'")


def register(app: typer.Typer) -> None:
    app.command("edit")(edit_command)
