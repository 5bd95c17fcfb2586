"""pubcli sync: a researcher's works from ORCID, DBLP and OpenAlex against the library."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from . import common


def sync_command(
    orcid: Optional[str] = typer.Option(None, "--orcid", metavar="ORCID",
                                        help="An ORCID iD (0000-0002-1825-0097)."),
    dblp: Optional[str] = typer.Option(None, "--dblp", metavar="PID",
                                       help="A DBLP person id (251/3272) or its dblp.org URL."),
    openalex: Optional[str] = typer.Option(None, "--openalex", metavar="ID",
                                           help="An OpenAlex author id (A5023888391)."),
    apply: bool = typer.Option(False, "--apply",
                               help="Write the changes (default: only show them)."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="Only show the changes (the default; not with --apply)."),
    area: Optional[List[str]] = typer.Option(None, "--area", "-a",
                                             help="A research area for the new entries "
                                                  "(repeatable)."),
    new: bool = typer.Option(False, "--new", help="Accept an area not in the vocabulary yet."),
    explain: bool = typer.Option(False, "--explain",
                                 help="Show which source gave which field of each entry "
                                      "added or changed."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """Compare a researcher's works at ORCID, DBLP and OpenAlex with the library.

    Each source's works are fetched (several sources at once, or the ids kept
    in pubcli.toml as orcid, dblp and openalex), put together when they are
    the same work, and matched against the library with the matcher of
    'pubcli dedupe'. Shows what would be added, what would gain fields (the
    source ids, a missing DOI or pages...) and how many are already there.
    Nothing is written without --apply. A source that fails is a warning and
    the others go on. The source ids are recorded on the entries (dblp,
    openalex, orcid-put-code), so a second run adds nothing. Field by field
    the most trusted source wins (Crossref/DataCite, DBLP, arXiv, OpenAlex,
    ORCID); --explain shows which one gave what.

    Examples:

        pubcli sync --dblp 251/3272 --orcid 0000-0002-1825-0097

        pubcli sync --apply -a "Artificial intelligence"

        pubcli sync --orcid 0000-0002-1825-0097 --explain
    """
    from pubcli.local import config
    from pubcli import store
    from ..online import sync
    from ..online.http import Client

    from ..errors import ValidationError

    if apply and dry_run:
        raise ValidationError("--apply writes and --dry-run does not: give one of them")
    path = common.library_path(library)
    cfg = config.load_config(path)
    people = sync.person_ids({"orcid": orcid, "dblp": dblp, "openalex": openalex}, cfg)
    store.read_text(path)  # a missing library is reported before going online
    client = Client.from_environment()
    common.note_contact(client)
    with common.progress_bar("asking the sources") as progress:
        if progress is not None:
            client.on_request = lambda name, n: progress(f"asking {name} ({n} requests)", n, 0)
        works, warnings = sync.fetch(client, people)
        client.on_request = None
    for line in warnings:
        common.warn(line)
    with store.transaction(path, dry_run=not apply, on_wait=common.note) as lib:
        common.report_problems(lib)
        plan = sync.plan(lib.records, works, cfg, areas=area or [], allow_new=new)
        if apply:
            for rec, _ in plan.added:
                lib.add(rec)
            for ch in plan.changed:
                lib.replace(ch.old, ch.new)  # by identity: keys repeat
    _report(plan, len(works), apply, lib.path, explain)


def _report(plan, total: int, applied: bool, path, explain: bool = False) -> None:
    from pubcli.text.latex import to_text

    for line in plan.warnings:
        common.warn(line)
    out = []
    verb = ("added", "gained fields") if applied else ("would add", "would gain fields")
    if plan.added:
        out.append(f"{verb[0]} {len(plan.added)} entr{'y' if len(plan.added) == 1 else 'ies'}:")
        for rec, work in plan.added:
            out.append(f"  + {rec.key}: {to_text(rec.title)} [{work.label}]")
            if explain:
                out.append(f"      {work.explain()}")
    if plan.changed:
        out.append(f"{len(plan.changed)} entr{'y' if len(plan.changed) == 1 else 'ies'} "
                   f"{verb[1]}:")
        for ch in plan.changed:
            out.append(f"  ~ {ch.old.key}: {', '.join(ch.added)}")
            if explain:
                out.append(f"      {ch.explain()}")
    present = len(plan.present)
    out.append(f"{present} of the {total} works found are already in the library")
    sys.stdout.write("\n".join(out) + "\n")
    for line in plan.notes:
        common.note(line)
    if not applied and (plan.added or plan.changed):
        common.note(f"dry run: nothing was written to {path}; pass --apply to write")
    elif applied and (plan.added or plan.changed):
        common.note(f"wrote {path}")


def register(app: typer.Typer) -> None:
    app.command("sync")(sync_command)
