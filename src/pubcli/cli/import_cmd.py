"""pubcli import: many publications at once, from a .bib file or a copied web page."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from . import common


def import_command(
    source: str = typer.Argument(..., metavar="FILE",
                                 help="A .bib file or a plain-text publication listing "
                                      "('-': stdin)."),
    format_: str = typer.Option("auto", "--format", "-f", metavar="auto|bib|text",
                                help="How to read FILE (auto: a .bib name or @entries in it "
                                     "mean BibTeX, else a text listing)."),
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
    near-duplicates (what the matcher accepts with a title similarity of 80
    but not at its default of 90) are held back and listed for review
    (--add-near adds them). stdout gets one
    line per item: STATUS, KEY (or the matching entry), YEAR, TITLE; a summary
    table goes to stderr.

    Examples:

        pubcli import publications-page.txt --dry-run

        pubcli import colleague.bib --area "Systems and networking"
    """
    from .. import areas as A
    from .. import config, importers, store
    from ..errors import ValidationError

    if format_ not in ("auto", "bib", "text"):
        raise ValidationError(f"--format: expected auto, bib or text, got {format_!r}")
    for a in area or []:
        A.clean(a)
    text = sys.stdin.read() if source == "-" else importers.read_path(source)
    path = common.library_path(library)
    cfg = config.load_config(path)
    with store.transaction(path, dry_run=dry_run, on_wait=common.note) as lib:
        common.report_problems(lib)
        vocab = A.vocabulary(cfg.areas, lib.records) if area else []
        areas = [A.resolve(a, vocab, allow_new=new, option="--area").name for a in area or []]
        fmt = format_
        if fmt == "auto":
            fmt = "bib" if source.lower().endswith(".bib") or importers.looks_like_bibtex(text) \
                else "text"
        known = importers.known_names(lib.records) if fmt == "text" else None
        items, warnings = importers.read_source(source, text, fmt=fmt, known=known)
        where = "<stdin>" if source == "-" else source
        for line, message in warnings:
            common.warn(f"{where}:{line}: {message}")
        if not items:
            raise ValidationError(f"{where}: found no publications to import"
                                  + (" (is it a listing? try --format text)"
                                     if fmt == "bib" else ""))
        outcomes = importers.plan(items, lib.records, force=force, add_near=add_near,
                                  areas=areas, keep_keys=(fmt == "bib"))
        for o in outcomes:
            if o.added:
                lib.add(o.record)
    _report(outcomes, where, dry_run)


def _report(outcomes, where: str, dry_run: bool) -> None:
    from .. import importers
    from ..latex import to_text

    rows = []
    for o in outcomes:
        rec = o.record
        if o.status == importers.INVALID:
            ref = o.problem
        elif o.match is not None:
            m = o.match
            ref = f"{'near ' if o.status == importers.NEAR else 'same as '}" \
                  f"{m.record.key or '(earlier item)'} ({', '.join(m.evidence[:2]) or m.rule})"
        else:
            ref = ""
        status = o.status if not (o.status == importers.NEW) else "added"
        if o.status == importers.NEAR:
            status = "review, added" if o.added else "review"
        rows.append((status, rec.key if o.added else "", str(rec.year or ""),
                     to_text(rec.title), ref, o.item.line))
    out = sys.stdout
    if common.stdout_is_terminal() and len(rows) <= 600:
        from rich.console import Console
        from rich.table import Table

        table = Table(show_edge=False, header_style="bold")
        for col in ("Status", "Key", "Year", "Title", "Match / problem", "Line"):
            table.add_column(col, overflow="fold")
        for r in rows:
            table.add_row(*r[:5], str(r[5]))
        Console(highlight=False).print(table)
    else:
        out.write("".join("\t".join((*r[:5], str(r[5]))) + "\n" for r in rows))
    _summary(importers.summary(outcomes), where, dry_run)


def _summary(rows, where: str, dry_run: bool) -> None:
    width = max(len(label) for label, _ in rows)
    head = f"import of {where}" + (" (dry run: nothing was written)" if dry_run else "")
    lines = [head] + [f"  {label:<{width}}  {count:>6}" for label, count in rows]
    common.note("\n".join(lines))


def register(app: typer.Typer) -> None:
    app.command("import")(import_command)
