"""pubcli rename: change an entry's citation key."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from . import common


def rename_command(
    old: str = typer.Argument(..., metavar="OLD",
                              help="The current key (KEY@LINE picks one of several entries "
                                   "with the same key)."),
    new: str = typer.Argument(..., metavar="NEW", help="The new key."),
    no_ids: bool = typer.Option(False, "--no-ids",
                                help="Do not keep OLD in the entry's biblatex 'ids' field."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="Show the change; write nothing."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """Change an entry's citation key; only that entry's text is rewritten.

    The old key is kept in the entry's 'ids' field (biblatex and biber resolve
    \\cite{OLD} through it), unless --no-ids. Pairs remembered as "not
    duplicates" (by 'pubcli dedupe') are remembered under the new key too.
    Entries that point to OLD through crossref or xdata are named, not changed.

    Examples:

        pubcli rename smith2020 smith2020deep

        pubcli rename smith2020@42 smith2020b --no-ids
    """
    from pubcli.usecases import editing
    from pubcli import store

    path = common.library_path(library)
    with store.transaction(path, dry_run=dry_run, on_wait=common.note) as lib:
        common.report_problems(lib)
        change = editing.rename(lib, old, new, keep_ids=not no_ids)
        common.echo(editing.diff(lib, change.old, change.new))
        pairs = editing.distinct_pairs_after_rename(path, change.old.key, change.new.key)
    if pairs and not dry_run:
        editing.remember_distinct(path, pairs)
    for line in change.notes:
        common.warn(line)
    verb = "would rename" if dry_run else "renamed"
    common.note(f"{verb} '{change.old.key}' to '{change.new.key}'"
                + (f"; {len(pairs)} not-duplicates pair(s) follow it" if pairs else "")
                + ("; nothing was written" if dry_run else ""))


def register(app: typer.Typer) -> None:
    app.command("rename")(rename_command)
