"""pubcli import: many publications at once, from a .bib file or a copied web page."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from . import common


class InputFormat(str, Enum):
    auto = "auto"
    bib = "bib"
    text = "text"


def import_command(
    source: str = typer.Argument(..., metavar="FILE",
                                 help="A .bib file or a plain-text publication listing "
                                      "('-': stdin)."),
    format_: InputFormat = typer.Option(InputFormat.auto, "--format", "-f",
                                        help="How to read FILE (auto: a .bib name or @entries "
                                             "in it mean BibTeX, else a text listing)."),
    area: Optional[List[str]] = typer.Option(None, "--area", "-a",
                                             help="File every imported entry under this "
                                                  "research area (repeatable)."),
    new: bool = typer.Option(False, "--new", help="Accept an area not in the vocabulary yet."),
    add_near: bool = typer.Option(False, "--add-near",
                                  help="Also add the near-duplicates instead of holding them "
                                       "back for review."),
    force: bool = typer.Option(False, "--force", help="Accept unknown entry types."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="Show what would happen; write nothing."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """Import publications from a .bib file or a listing copied from a web page.

    A listing is blocks of a title line, an author line ("First Last, First
    Last, ...") and a "Venue | Month YYYY" (or "Month YYYY") line, with
    headings, "-" separators and "Published by ..."/"ISBN: ..." lines among
    them. A report number such as MSR-TR-2024-12 as venue makes a @techreport,
    another venue an @inproceedings, none a @misc.

    Each item is matched against the library and the items before it, with
    the matcher of 'pubcli dedupe': duplicates are skipped and counted;
    near-duplicates (a match probability of 50% but below the matcher's
    default) are held back and listed for review
    (--add-near adds them). stdout gets one line per item: STATUS, KEY (when
    added), YEAR, TITLE, the matching entry or the problem, and the item's
    LINE in FILE (tab-separated when piped); a summary goes to stderr.

    Examples:

        pubcli import publications-page.txt --dry-run

        pubcli import colleague.bib --area "Systems and networking"
    """
    from .. import config, importers, store

    from .dialogues import say_when_reading_a_terminal

    say_when_reading_a_terminal(source, "paste BibTeX or a publications list, end with Ctrl-D")
    text = importers.read_input(source, sys.stdin)
    path = common.library_path(library)
    cfg = config.load_config(path)
    with store.transaction(path, dry_run=dry_run, on_wait=common.note) as lib:
        common.report_problems(lib)
        plan = importers.plan_import(text, lib.records, cfg, source=source,
                                     fmt=format_.value, areas=area or [], allow_new=new,
                                     add_near=add_near, force=force)
        for line in plan.warnings:
            common.warn(line)
        for o in plan.outcomes:
            if o.added:
                lib.add(o.record)
    _report(plan, dry_run)


def _row(o) -> tuple[str, ...]:
    """STATUS, KEY, YEAR, TITLE, MATCH/PROBLEM, LINE for one outcome."""
    from ..importers import INVALID, NEAR, NEW
    from ..latex import to_text

    if o.status == INVALID:
        ref = o.problem
    elif o.match is not None:
        m = o.match
        ref = f"{'near' if o.status == NEAR else 'same as'} " \
              f"{m.record.key or '(earlier item)'} ({', '.join(m.evidence[:2]) or m.rule})"
        if o.problem:
            ref += f"; {o.problem}"
    else:
        ref = ""
    status = {NEW: "added", NEAR: "review, added" if o.added else "review"}.get(o.status,
                                                                               o.status)
    rec = o.record
    return (status, rec.key if o.added else "", str(rec.year or ""), to_text(rec.title), ref,
            str(o.item.line))


def _report(plan, dry_run: bool) -> None:
    common.print_rows(["Status", "Key", "Year", "Title", "Match / problem", "Line"],
                      [list(_row(o)) for o in plan.outcomes])
    counts = plan.summary()
    width = max(len(label) for label, _ in counts)
    head = f"import of {plan.where}" + (" (dry run: nothing was written)" if dry_run else "")
    common.note("\n".join([head] + [f"  {label:<{width}}  {n:>6}" for label, n in counts]))


def register(app: typer.Typer) -> None:
    app.command("import")(import_command)
