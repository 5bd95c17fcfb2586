"""pubcli undo: put back the library as it was before pubcli's last write."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from . import common


def undo_command(
    list_: bool = typer.Option(False, "--list", help="List the writes that can be undone; "
                                                     "change nothing."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="Say what would be undone; write nothing."),
    library: Path | None = common.LibraryOpt,
) -> None:
    """Undo pubcli's last write to the library: its exact bytes before it come back.

    pubcli keeps its last writes of each library (add, import, edit, tag,
    rename, remove, dedupe --merge, update, sync) in a private journal beside
    its caches. Run undo again to go one more write back. A file changed since
    pubcli wrote it (by hand, by another program) is refused, never overwritten.

    Examples:

        pubcli undo

        pubcli undo --list
    """
    from .. import store

    path = common.library_path(library)
    if list_:
        steps = store.history(path)
        if not steps:
            common.note(f"nothing to undo in {path}")
        for n, st in enumerate(reversed(steps), 1):
            common.echo(f"{n}\t{_when(st.when)}\t{st.what}\n")
        return
    done = store.undo(path, dry_run=dry_run, on_wait=common.note)
    verb = "would restore" if dry_run else "restored"
    common.note(f"{verb} {path} as it was before the write of {_when(done.step.when)} "
                f"({done.step.what})"
                + (f"; {done.left} earlier write(s) can be undone" if done.left else "")
                + ("; nothing was written" if dry_run else ""))


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t))


def register(app: typer.Typer) -> None:
    app.command("undo")(undo_command)
