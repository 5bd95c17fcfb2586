"""pubcli update: fill missing fields and upgrade preprints from Crossref and arXiv."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from . import common


def update_command(
    keys: Optional[List[str]] = typer.Argument(None, metavar="[KEY]...",
                                               help="Citation keys of the entries to update."),
    overwrite: Optional[List[str]] = typer.Option(
        None, "--overwrite", metavar="FIELD",
        help="Replace this field's value by the fetched one (repeatable; 'type' too)."),
    area: Optional[List[str]] = common.AreaOpt,
    type_: Optional[List[str]] = common.TypeOpt,
    year: Optional[str] = common.YearOpt,
    author: Optional[List[str]] = common.AuthorOpt,
    search: Optional[str] = common.SearchOpt,
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="Show the changes; write nothing."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """Fill entries' missing fields from Crossref and arXiv; upgrade preprints.

    Name entries by KEY, or select them with the filters of 'list' (none:
    every entry). An entry with a DOI is looked up at Crossref (or doi.org);
    one with an arXiv id at arXiv, and upgraded to its published version when
    there is one (keeping the arXiv id); DOIs and arXiv ids are asked in
    batches (a progress bar shows on a terminal); one with neither is searched by title,
    and the best hit is taken only when it is clearly ahead of the next and
    the matcher of 'pubcli dedupe' agrees on title, authors and year. Missing
    fields are filled; a value already there is kept unless --overwrite FIELD.
    A diff is shown per entry; only the changed entries' text is rewritten.

    Examples:

        pubcli update ren2021zerooffload --dry-run

        pubcli update --year 2023.. --overwrite pages
    """
    from pubcli.usecases import grouping
    from pubcli import store
    from ..online import update
    from ..online.http import Client

    path = common.library_path(library)
    filters = common.build_filters(area, type_, year, author, search)
    lib = store.load(path)
    common.report_problems(lib)
    chosen = _select(lib, keys or [], filters, grouping)
    client = Client.from_environment()
    common.note_contact(client)
    with common.progress_bar("asking the services") as progress:
        updates = update.plan(client, chosen, overwrite or [], progress=progress)
    with store.transaction(path, dry_run=dry_run, on_wait=common.note) as fresh:
        for u in updates:
            if u.new is not None and not dry_run:
                fresh.replace(_same_entry(fresh, u.old), u.new)
    _report(updates, dry_run, path)


def _select(lib, keys: list[str], filters, grouping) -> list:
    from pubcli.usecases import refs

    if keys:
        return grouping.select(refs.Keys(lib.records, path=lib.path).sharing(keys), filters)
    return grouping.select(lib.records, filters)


def _same_entry(lib, old):
    """The record of the freshly locked library that is ``old`` (same place, same
    text); the file changing while the services were asked is an error."""
    from ..errors import PubcliError

    for rec in lib.records:
        if rec.line == old.line and rec.key == old.key and rec.fields == old.fields:
            return rec
    raise PubcliError(f"entry '{old.key}' (line {old.line}) changed while pubcli was "
                      "fetching; nothing was written; run the update again", path=lib.path)


def _report(updates, dry_run: bool, path) -> None:
    out = []
    for u in updates:
        where = f"{u.old.key} (line {u.old.line})"
        if u.new is None:
            reason = "; ".join(u.notes) or "nothing to fill"
            out.append(f"= {where}: {reason}")
            continue
        out.append(f"~ {where} [{u.source}]")
        for c in u.applied:
            if c.kind == "add":
                out.append(f"    + {c.name} = {{{c.new}}}")
            else:
                out.append(f"    - {c.name} = {{{c.old}}}")
                out.append(f"    + {c.name} = {{{c.new}}}")
        kept = [c.name for c in u.changes if c.kind == "kept"]
        if kept:
            out.append(f"    kept as written: {', '.join(kept)} (--overwrite FIELD to take "
                       "the fetched value)")
        for n in u.notes:
            out.append(f"    note: {n}")
    if out:
        sys.stdout.write("\n".join(out) + "\n")
    n = sum(1 for u in updates if u.new is not None)
    if dry_run:
        common.note(f"dry run: would update {n} of {len(updates)} entries in {path}; "
                    "nothing was written")
    else:
        common.note(f"updated {n} of {len(updates)} entries in {path}")


def register(app: typer.Typer) -> None:
    app.command("update")(update_command)
