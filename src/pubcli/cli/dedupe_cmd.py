"""pubcli dedupe: list, check (for pre-commit and CI), explain and merge duplicate entries."""

from __future__ import annotations

import functools
import json
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ..errors import ValidationError
from . import common

if TYPE_CHECKING:
    from ..dedupe import Group
    from pubcli.store.library import Library

PROGRESS_MIN = 20000  # entries: show a progress bar on a terminal from this size up
_DEFAULT_THRESHOLD = 98  # shown in --help (a test keeps it the core's DEFAULT_THRESHOLD)


class DedupeFormat(str, Enum):
    text = "text"
    json = "json"
    github = "github"


def dedupe_command(
    files: list[Path] | None = typer.Argument(
        None, metavar="[FILE.bib]...",
        help="Libraries to check (as pre-commit passes them); default: the library."),
    check: bool = typer.Option(False, "--check",
                               help="Exit 1 when there are duplicates, 0 when none (never "
                                    "writes): for pre-commit and CI."),
    format: DedupeFormat = typer.Option(DedupeFormat.text, "--format", "-f",
                                        help="text, json, or github (GitHub Actions "
                                             "annotations on the entries' lines)."),
    merge: bool = typer.Option(False, "--merge",
                               help="Walk the groups and ask: merge (keeping which entry), "
                                    "skip, or mark as not duplicates."),
    yes: bool = typer.Option(False, "--yes",
                             help="With --merge: merge every group without asking, keeping "
                                  "the published, most complete entry."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="With --merge: show the merged entries, write nothing."),
    threshold: float | None = typer.Option(
        None, "--threshold", metavar="0-100",
        help=f"Match probability (percent) a pair needs (default {_DEFAULT_THRESHOLD}); "
             "lower finds more, with more risk."),
    explain: tuple[str, str] | None = typer.Option(
        None, "--explain", metavar="KEY1 KEY2",
        help="Say why two entries do or don't match: each field's weight."),
    weights: bool = typer.Option(False, "--weights",
                                 help="Print the weights estimated for this library "
                                      "(m, u and log2(m/u) per field and level)."),
    library: Path | None = common.LibraryOpt,
) -> int:
    """Find entries that describe the same work, even when written differently.

    The evidence is weighed: each field (title, authors in any format and order,
    year, venue and volume, issue, pages, DOI, arXiv id, ISBN, PMID, entry type) adds
    or takes weight, estimated from this library itself, and a pair matches when
    its match probability reaches the threshold. A common title ("Editorial")
    counts less than a unique one. Only what is decisive by definition keeps two
    entries apart outright: "Part 1" / "Part 2", an erratum, reply or comment
    vs its article, different editions or volumes of a book, different issues
    (or pages of one issue that do not meet) or volumes of one journal, a
    journal's article vs a book (its review, an editorial). Pairs you mark as
    not duplicates are remembered in <library>.distinct.txt beside the library.

    --merge keeps one entry, fills its missing fields from the others, unites
    keywords, reports conflicting values, and records the dropped keys in the
    biblatex `ids` field so documents citing them still compile.

    Exit status: 0 (none found, or listing), 1 (--check found duplicates),
    2 (bad input).

    Examples:

        pubcli dedupe

        pubcli dedupe --check --format github

        pubcli dedupe --explain smith2020deep smith2021deep

        pubcli dedupe --weights

        pubcli dedupe --merge

        pubcli dedupe --merge --yes --dry-run
    """
    if threshold is not None and not 0 < threshold <= 100:
        raise ValidationError(f"--threshold must be between 0 and 100 (got {threshold:g})")
    if check and merge:
        raise ValidationError("--check never writes; use --merge without --check")
    if (yes or dry_run) and not merge:
        raise ValidationError(f"{'--yes' if yes else '--dry-run'} only applies to --merge")
    if (explain or weights) and (merge or check):
        raise ValidationError(f"{'--explain' if explain else '--weights'} only reports; "
                              "use it without --merge and --check")
    if files and library is not None:
        raise ValidationError("give the library either as --library or as FILE arguments")
    paths = [common.library_path(p) for p in files] if files else [common.library_path(library)]
    if (merge or explain or weights) and len(paths) > 1:
        raise ValidationError("--merge, --explain and --weights work on one library at a time")

    if explain or weights:
        return _report(paths[0], threshold, explain, weights, format)
    if merge and yes:
        return _merge_all(paths[0], threshold, dry_run=dry_run)
    from ..render.duplicates import json_groups, summary

    found = 0
    as_json: list[dict] = []
    for path in paths:
        lib, groups = _detect(path, threshold)
        found += len(groups)
        if merge:
            return _merge_asking(path, lib, groups, dry_run=dry_run)
        if format is DedupeFormat.json:
            as_json += json_groups(path, groups)
            continue
        if len(paths) > 1 and groups and format is DedupeFormat.text:
            common.note(f"{path}: {summary(len(groups))}")
        _show(path, groups, format)
    if format is DedupeFormat.json:
        sys.stdout.write(json.dumps(as_json, indent=2, ensure_ascii=False) + "\n")
    else:
        common.note(summary(found) if found else "no duplicates found")
    return 1 if (check and found) else 0


def _detect(path: Path, threshold: float | None) -> tuple[Library, list[Group]]:
    from .. import store

    lib = store.load(path)
    common.report_problems(lib)
    return lib, _groups(path, lib, threshold)


def _groups(path: Path, lib: Library, threshold: float | None) -> list[Group]:
    from pubcli import dedupe
    from pubcli.usecases import distinct

    remembered = distinct.load(path)
    if len(lib.records) >= PROGRESS_MIN and _stderr_is_terminal():
        from rich.progress import Progress

        with Progress(transient=True, console=_stderr_console()) as bar:
            task = bar.add_task("looking for duplicates", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            return dedupe.find_groups(lib.records, threshold=threshold,
                                      distinct=remembered, progress=progress,
                                      digest=lib.document.digest)
    return dedupe.find_groups(lib.records, threshold=threshold, distinct=remembered,
                              digest=lib.document.digest)


def _stderr_is_terminal() -> bool:
    return common.is_terminal(sys.stderr)


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True, highlight=False)


# ---------------------------------------------------------------- output
def _show(path: Path, groups: list[Group], fmt: DedupeFormat) -> None:
    """Each group: a heading, its entries (a table on a wide terminal, stacked on a
    narrow one, tab-separated when piped: :func:`common.print_rows`) and the links'
    evidence, all cleaned of control characters."""
    from ..render import duplicates as shown
    from ..render.text import clean, one_line

    out = sys.stdout
    if fmt is DedupeFormat.github:
        out.write(clean(shown.github(path, groups)))
        return
    bold = common.bold_style()
    for n, g in enumerate(groups, 1):
        if n > 1:
            out.write("\n")
        out.write(bold(one_line(shown.heading(n, None, g))) + "\n")
        out.flush()
        common.print_rows(shown.HEADERS, shown.rows(g))
        out.write("".join(f"  {one_line(note)}\n" for note in shown.notes(g)))
        out.flush()


def _show_on_stderr(n: int, total: int, g: Group) -> None:
    """One group for the --merge dialogue (on stderr: stdout stays data)."""
    from ..render import duplicates as shown
    from ..render import table
    from ..render.text import one_line

    err = sys.stderr
    err.write("\n" + one_line(shown.heading(n, total, g)) + "\n")
    if _stderr_is_terminal() and common.terminal_width() > table.NARROW:
        _stderr_console().print(table.rich_table(shown.HEADERS, shown.rows(g)))
    else:
        err.write(table.stacked(shown.HEADERS, shown.rows(g)))
    err.write("".join(f"  {one_line(note)}\n" for note in shown.notes(g)))
    err.flush()


# ---------------------------------------------------------------- explain, weights
def _report(path: Path, threshold: float | None, explain: tuple[str, str] | None,
            weights: bool, fmt: DedupeFormat) -> int:
    from pubcli import dedupe, store
    from pubcli.usecases import refs
    from ..render import duplicates as shown

    lib = store.load(path)
    common.report_problems(lib)
    matcher = dedupe.Matcher(lib.records, threshold=threshold, digest=lib.document.digest)
    out: dict = {}
    if explain:
        a, b = (refs.resolve(lib.records, key, path=lib.path) for key in explain)
        v = matcher.explain(a, b)
        out["explain"] = shown.verdict_data(a.key, b.key, v)
        if fmt is not DedupeFormat.json:
            sys.stdout.write(shown.verdict_text(a.key, b.key, v))
    if weights:
        out["weights"] = shown.weights_data(matcher.model)
        if fmt is not DedupeFormat.json:
            sys.stdout.write(shown.weights_text(matcher.model))
    if fmt is DedupeFormat.json:
        sys.stdout.write(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    return 0


# ---------------------------------------------------------------- merging
def _merge_all(path: Path, threshold: float | None, *, dry_run: bool) -> int:
    """--merge --yes: load, plan and write under one lock (nothing asks, so nothing
    can change in between)."""
    from pubcli import dedupe, store
    from pubcli.usecases import editing

    with store.transaction(path, dry_run=dry_run,
                           on_wait=lambda m: common.note(m)) as live:
        common.report_problems(live)
        groups = _groups(path, live, threshold)
        if not groups:
            common.note("no duplicates found")
            return 0
        plans = dedupe.plan_merges(groups)
        merged = []
        for p in plans:
            if p.result is None:
                common.warn(f"skipped group {p.number} ({', '.join(r.key for r in p.records)}):"
                            f" {p.skipped}; merge it with 'pubcli dedupe --merge' and decide "
                            "yourself")
                continue
            result = p.result
            for c in result.conflicts:
                common.warn(f"{result.record.key}: kept {c.field} = {c.kept!r}; "
                            + "; ".join(f"{k} had {v!r}" for k, v in c.others))
            merged.append(dedupe.apply_merge(live, result))
        if dry_run:  # the very text the write would land (the file's spelling, newlines)
            for rec in merged:
                sys.stdout.write(editing.text_after(live, rec) + "\n")
    _merged_notes([p.result for p in plans if p.result is not None], dry_run)
    if not any(p.result for p in plans):
        common.note("nothing merged")
    return 0


def _merged_notes(results, dry_run: bool) -> None:
    verb = "would merge" if dry_run else "merged"
    for result in results:
        common.note(f"{verb} {', '.join(result.dropped_keys)} into {result.record.key}")


def _merge_asking(path: Path, lib: Library, groups: list[Group], *, dry_run: bool) -> int:
    from pubcli import dedupe, store
    from pubcli.usecases import distinct, editing
    from . import dialogues

    if not groups:
        common.note("no duplicates found")
        return 0
    plans = []
    not_dups: list[tuple[str, str]] = []
    for n, g in enumerate(groups, 1):
        decision = dialogues.ask_merge(g, functools.partial(_show_on_stderr, n, len(groups), g))
        if decision is None:  # quit
            break
        if decision == dialogues.MERGE_SKIP:
            continue
        if decision == dialogues.MERGE_DISTINCT:
            recs = g.records
            not_dups += [(recs[i].key, recs[j].key) for i in range(len(recs))
                         for j in range(i + 1, len(recs))]
            continue
        plans.append((g, decision))

    with store.transaction(path, dry_run=dry_run,
                           on_wait=lambda m: common.note(m)) as live:
        merged = []
        for g, result in plans:
            # the entries as they are now: unchanged since they were shown, or refused
            now = editing.relocate(live, g.records)
            merged.append(dedupe.apply_merge(live, result, {
                id(old): new for old, new in zip(g.records, now, strict=True)}))
        if dry_run:
            for rec in merged:
                sys.stdout.write(editing.text_after(live, rec) + "\n")
    _merged_notes([r for _, r in plans], dry_run)
    if not_dups:
        if dry_run:
            common.note(f"would remember {len(not_dups)} pair(s) as not duplicates in "
                        f"{distinct.distinct_path(path)}")
        else:
            new = distinct.add(path, not_dups)
            if new:
                common.note(f"remembered {len(new)} pair(s) as not duplicates in "
                            f"{distinct.distinct_path(path)}")
    if not plans and not not_dups:
        common.note("nothing merged")
    return 0


def register(app: typer.Typer) -> None:
    app.command("dedupe")(dedupe_command)
