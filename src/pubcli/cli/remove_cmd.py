"""pubcli remove: delete entries from the library."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from . import common


def remove_command(
    keys: List[str] = typer.Argument(..., metavar="KEY...",
                                     help="Citation keys (KEY@LINE picks one of several "
                                          "entries with the same key)."),
    yes: bool = typer.Option(False, "--yes",
                             help="Do not ask (needed when stdin is not a terminal)."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="Show what would be removed; write nothing."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """Remove entries from the library; only their text is cut from the file.

    Each entry is shown (key, file:line, title) and, on a terminal, you are
    asked before anything is written. Without a terminal, --yes is required.
    A key used by several entries is refused: name one as KEY@LINE.

    Examples:

        pubcli remove wang2024zero

        pubcli remove old2019a old2019b --yes
    """
    from pubcli.usecases import editing
    from pubcli import store
    from ..errors import ValidationError
    from ..render import changes as say
    from . import dialogues

    if not (yes or dry_run or dialogues.stdin_is_terminal()):
        raise ValidationError("refusing to remove entries without asking: stdin is not a "
                              "terminal; pass --yes (or --dry-run to see them)")
    path = common.library_path(library)
    asked = not (yes or dry_run)
    if asked:  # ask before taking the lock: a question may wait for a long time
        before = store.load(path)
        common.report_problems(before)
        chosen = editing.resolve_many(before, keys)
        sys.stdout.write(_listing(before, chosen))
        if not dialogues.confirm(f"remove {say.entries(len(chosen))} from {path}?"):
            raise typer.Abort()
    with store.transaction(path, dry_run=dry_run, on_wait=common.note) as lib:
        if asked:
            removed = editing.remove(lib, editing.relocate(lib, chosen))
        else:
            common.report_problems(lib)
            removed = editing.remove(lib, keys)
            sys.stdout.write(_listing(lib, removed))
    common.note(say.outcome(len(removed), dry_run, verb="remove", none="nothing removed"))


def _listing(lib, records) -> str:
    from pubcli.usecases import editing
    from pubcli.text.latex import to_text
    from ..render.text import one_line

    return "".join("\t".join(one_line(c) for c in (r.key, editing.where(lib, r),
                                                   to_text(r.title))) + "\n"
                   for r in records)


def register(app: typer.Typer) -> None:
    app.command("remove")(remove_command)
