"""pubcli import: many publications at once, from a .bib file or a copied web page."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

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
    area: list[str] | None = typer.Option(None, "--area", "-a",
                                             help="File every imported entry under this "
                                                  "research area (repeatable)."),
    new: bool = typer.Option(False, "--new", help="Accept an area not in the vocabulary yet."),
    areas_from_keywords: bool = typer.Option(
        False, "--areas-from-keywords",
        help="Make the file's own keywords research areas: a near miss is filed under "
             "the area it is close to, the others are added to the areas of pubcli.toml."),
    add_near: bool = typer.Option(False, "--add-near",
                                  help="Add the near-duplicates instead of holding them back "
                                       "for review, and remember that they are not "
                                       "duplicates (for 'dedupe' and the next import)."),
    skip_near: bool = typer.Option(False, "--skip-near",
                                   help="Judge every near-duplicate the same work as its "
                                        "match: skip it, and remember that, so the next "
                                        "import skips it without asking."),
    force: bool = typer.Option(False, "--force", help="Accept unknown entry types (with "
                                                      "--strict)."),
    strict: bool = typer.Option(False, "--strict",
                                help="Skip entries BibTeX only warns about (a missing "
                                     "required field, a 2-digit year, an unknown type) "
                                     "instead of importing them with a warning."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="Show what would happen; write nothing."),
    explain: bool = typer.Option(False, "--explain", "--verbose",
                                 help="After the table, the full evidence behind each "
                                      "duplicate, repeat and near-duplicate decision."),
    library: Path | None = common.LibraryOpt,
) -> None:
    """Import publications from a .bib file or a listing copied from a web page.

    A listing is blocks of a title line, an author line ("First Last, First
    Last, ...") and a "Venue | Month YYYY" (or "Month YYYY") line, with
    headings, "-" separators and "Published by ..."/"ISBN: ..." lines among
    them. A report number such as MSR-TR-2024-12 as venue makes a @techreport,
    another venue an @inproceedings, none a @misc.

    Every entry BibTeX reads is imported as written, its key kept: what
    BibTeX only warns about (a missing booktitle, a 2-digit year, an unknown
    type) is a warning naming its line, and 'pubcli check' shows it again
    (--strict skips such entries instead). A key that cannot be cited (with
    a space, a comma, '%'...) or one already taken gets a new key, and a note.

    An entry's own keywords are kept as they are, but only those naming a
    research area (of pubcli.toml, else of the library) count as areas: the
    summary counts the others, and a near miss gets a "did you mean".
    --areas-from-keywords makes them areas.

    Each item is matched against the library and the items before it, with
    the matcher of 'pubcli dedupe': duplicates are skipped and counted;
    near-duplicates (a match probability of 50% but below the matcher's
    default) are held back for review: on a terminal you are asked about each
    (the same work: skip it; a different one: add it; or later); --add-near
    adds them all, --skip-near skips them all. A verdict is remembered beside
    the library (<library>.distinct.txt, as 'dedupe' keeps "not duplicates",
    and <library>.same.txt), so a re-import does not ask again. stdout gets one
    line per item: STATUS, KEY (the key given when added, else the item's
    own), YEAR, TITLE, the matching entry or the problem, and the item's LINE
    in FILE (tab-separated when piped; on a terminal one screen line each, long
    cells cut with "…"); a summary goes to stderr. --explain (or --verbose)
    adds, on stderr, each decision's full evidence (every field's weight).

    Examples:

        pubcli import publications-page.txt --dry-run

        pubcli import colleague.bib --area "Systems and networking"

        pubcli import colleague.bib --dry-run --explain
    """
    from pubcli import store
    from pubcli.errors import ValidationError
    from pubcli.local import config
    from pubcli.usecases import distinct
    from pubcli.usecases import importing as importers
    from pubcli.usecases import triage

    from .dialogues import say_when_reading_a_terminal

    if add_near and skip_near:
        raise ValidationError("--add-near and --skip-near contradict each other: give one")
    say_when_reading_a_terminal(source, "paste BibTeX or a publications list, end with Ctrl-D")
    text = importers.read_input(source, sys.stdin)
    path = common.library_path(library)
    cfg = config.load_config(path)
    decisions = triage.Decisions(frozenset(distinct.load(path)), distinct.load_same(path))
    with store.transaction(path, dry_run=dry_run, on_wait=common.note) as lib:
        common.report_problems(lib)
        with common.progress_bar("matching against the library") as progress:
            plan = importers.plan_import(text, lib.records, cfg, source=source,
                                         fmt=format_.value, areas=area or [], allow_new=new,
                                         add_near=add_near, force=force, strict=strict,
                                         areas_from_keywords=areas_from_keywords,
                                         digest=lib.document.digest, decisions=decisions,
                                         progress=progress)
        for line in plan.warnings:
            common.warn(line)
        _review_near(plan, lib, skip_all=skip_near, ask=source != "-" and not dry_run)
        for o in plan.outcomes:
            if o.added:
                lib.add(o.record)
        remember = triage.verdicts(plan.outcomes, lib.records)
    if not dry_run:
        _remember(path, *remember)
    if plan.new_areas:
        added = plan.new_areas if dry_run else config.add_areas(cfg, plan.new_areas)
        if added:
            common.note(f"{'would add' if dry_run else 'added'} {len(added)} area"
                        f"{'s' if len(added) > 1 else ''} to the 'areas' of {cfg.path}: "
                        + ", ".join(repr(a) for a in added))
    _report(plan, dry_run)
    if explain:
        _explain(plan)


def _explain(plan) -> None:
    """Each decision a match made, with the full evidence (stderr: talk, not data)."""
    from pubcli.render import duplicates

    judged = [(f"{plan.where}:{o.item.line}: '{o.own_key or o.record.key}'", [o.match])
              for o in plan.outcomes if o.match is not None and o.match.verdict is not None]
    text = duplicates.explanations(judged)
    if text:
        sys.stderr.write(text)


def _review_near(plan, lib, *, skip_all: bool, ask: bool) -> None:
    """The held-back near-duplicates' verdicts: all "the same work" with --skip-near,
    else asked one by one when stdin and stderr are a terminal (never otherwise)."""
    from pubcli.usecases import triage

    from . import dialogues

    held = [o for o in plan.outcomes if o.status == triage.NEAR and not o.added]
    if not held:
        return
    if not skip_all and not (ask and dialogues.stdin_is_terminal()
                             and dialogues.stderr_is_terminal()):
        return
    for n, o in enumerate(held, 1):
        verdict = triage.SAME if skip_all else \
            dialogues.ask_near(o, f"{n} of {len(held)}", plan.where)
        if verdict:
            triage.decide(plan.outcomes, o, verdict, lib.records)


def _remember(path: Path, different: list, same: list) -> None:
    """Keep the verdicts beside the library, and say where."""
    from pubcli.usecases import distinct

    if different:
        n = len(distinct.add(path, different))
        if n:
            common.note(f"remembered {n} pair{'s' if n > 1 else ''} as not duplicates in "
                        f"{distinct.distinct_path(path)}")
    if same:
        n = len(distinct.add_same(path, same))
        if n:
            common.note(f"remembered {n} entr{'ies' if n > 1 else 'y'} as the same work in "
                        f"{distinct.same_path(path)}")


def _row(o) -> tuple[str, ...]:
    """STATUS, KEY, YEAR, TITLE, MATCH/PROBLEM, LINE for one outcome."""
    from pubcli.render.entry import field_text
    from pubcli.text.latex import to_text
    from pubcli.usecases.triage import HELD, INVALID, NEAR, NEW, SAME

    if o.status in (INVALID, HELD):
        ref = o.problem
    elif o.decision == SAME and o.match is not None:
        ref = f"same as {o.match.record.key} (" + \
            ("judged so at an earlier import" if o.remembered else "your verdict") + ")"
    elif o.match is not None:
        m = o.match
        # one line a decision: what carried it and how likely (--explain: every weight)
        carried = m.rule.split(" + ")
        why = " + ".join(carried[:2]) + (" + ..." if len(carried) > 2 else "")
        if m.verdict is not None:
            why = f"{why}, {m.score:.1f}%" if why else f"{m.score:.1f}%"
        ref = f"{'near' if o.status == NEAR else 'same as'} " \
              f"{m.record.key or '(earlier item)'}" + (f" ({why})" if why else "")
        if o.problem:
            ref += f"; {o.problem}"
    else:
        ref = ""
    status = {NEW: "added", NEAR: "review, added" if o.added else "review",
              HELD: "review"}.get(o.status, o.status)
    rec = o.record
    title = field_text("title", rec.title, terminal=True) if common.stdout_is_terminal() \
        else to_text(rec.title)
    return (status, rec.key if o.added else o.own_key, str(rec.year or ""), title, ref,
            str(o.item.line))


def _report(plan, dry_run: bool) -> None:
    from pubcli.usecases import triage

    headers = ["Status", "Key", "Year", "Title", "Match / problem", "Line"]
    rows = [list(_row(o)) for o in plan.outcomes]
    if common.stdout_is_terminal():  # one screen line a decision (--explain: the evidence)
        from pubcli.render.table import fitted

        order = [0, 1, 2, 5, 3, 4]  # the line before the title, which may run on
        head, *lines = fitted([headers[n] for n in order], [[r[n] for n in order] for r in rows],
                              common.terminal_width(), flexible={"Title": 2, "Match / problem": 3})
        sys.stdout.write(common.bold_style()(head) + "\n" + "".join(f"{ln}\n" for ln in lines))
    else:
        common.print_rows(headers, rows)
    counts = plan.summary()
    width = max(len(label) for label, _ in counts)
    head = f"import of {plan.where}" + (" (dry run: nothing was written)" if dry_run else "")
    common.note("\n".join([head] + [f"  {label:<{width}}  {n:>6}" for label, n in counts]))
    held = sum(1 for o in plan.outcomes if o.status == triage.NEAR and not o.added)
    if held:
        again = "pubcli import FILE" if plan.where == "<stdin>" else f"pubcli import {plan.where}"
        common.note(f"{held} near-duplicate{'s are' if held > 1 else ' is'} held back (status "
                    f"'review' above): run '{again}' on a terminal to decide each, or add "
                    "--add-near to add them all (remembered as not duplicates) or "
                    "--skip-near to skip them all (remembered as the same work)")


def register(app: typer.Typer) -> None:
    app.command("import")(import_command)
