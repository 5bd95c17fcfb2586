"""pubcli dedupe: list, check (for pre-commit and CI) and merge duplicate entries."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer

from ..errors import PubcliError, ValidationError
from . import common

if TYPE_CHECKING:
    from ..dedupe import Group, MergeResult
    from ..library import Library

PROGRESS_MIN = 20000  # entries: show a progress bar on a terminal from this size up


class DedupeFormat(str, Enum):
    table = "table"
    json = "json"
    github = "github"


class LibraryChanged(PubcliError):
    """The file changed between the questions and the merge."""


def dedupe_command(
    files: Optional[List[Path]] = typer.Argument(
        None, metavar="[FILE.bib]...",
        help="Libraries to check (as pre-commit passes them); default: the library."),
    check: bool = typer.Option(False, "--check",
                               help="Exit 1 when there are duplicates, 0 when none (never "
                                    "writes): for pre-commit and CI."),
    format: DedupeFormat = typer.Option(DedupeFormat.table, "--format", "-f",
                                        help="table, json, or github (GitHub Actions "
                                             "annotations on the entries' lines)."),
    merge: bool = typer.Option(False, "--merge",
                               help="Walk the groups and ask: merge (keeping which entry), "
                                    "skip, or mark as not duplicates."),
    yes: bool = typer.Option(False, "--yes", "-y",
                             help="With --merge: merge every group without asking, keeping "
                                  "the published, most complete entry."),
    dry_run: bool = typer.Option(False, "--dry-run",
                                 help="With --merge: show the merged entries, write nothing."),
    threshold: Optional[float] = typer.Option(
        None, "--threshold", "-t", metavar="0-100",
        help="Title similarity a match needs (default 90; the other evidence is still "
             "required). Lower finds more, with more risk."),
    library: Optional[Path] = common.LibraryOpt,
) -> int:
    """Find entries that describe the same work, even when written differently.

    Two entries match on the same DOI, arXiv id or ISBN, or on near-identical
    titles (typos, word order, case, accents as LaTeX or Unicode, a dropped
    subtitle) backed by a shared author and years at most one apart; different
    DOIs, editions, volumes, pages or "Part 1"/"Part 2" keep them apart. Each
    group shows the evidence and the rule that decided. Pairs you mark as not
    duplicates are remembered in <library>.distinct.txt beside the library.

    --merge keeps one entry, fills its missing fields from the others, unites
    keywords, reports conflicting values, and records the dropped keys in the
    biblatex `ids` field so documents citing them still compile.

    Exit status: 0 (none found, or listing), 1 (--check found duplicates),
    2 (bad input).

    Examples:

        pubcli dedupe

        pubcli dedupe --check --format github

        pubcli dedupe --merge

        pubcli dedupe --merge --yes --dry-run
    """
    if threshold is not None and not 0 < threshold <= 100:
        raise ValidationError(f"--threshold must be between 0 and 100 (got {threshold:g})")
    if check and merge:
        raise ValidationError("--check never writes; use --merge without --check")
    if (yes or dry_run) and not merge:
        raise ValidationError(f"{'--yes' if yes else '--dry-run'} only applies to --merge")
    if files and library is not None:
        raise ValidationError("give the library either as --library or as FILE arguments")
    paths = [common.library_path(p) for p in files] if files else [common.library_path(library)]
    if merge and len(paths) > 1:
        raise ValidationError("--merge works on one library at a time")

    found = 0
    as_json: list[dict] = []
    for path in paths:
        lib, groups = _detect(path, threshold)
        found += len(groups)
        if merge:
            return _merge(path, lib, groups, yes=yes, dry_run=dry_run)
        if format is DedupeFormat.json:
            as_json += _json_groups(path, groups)
            continue
        if len(paths) > 1 and groups and format is DedupeFormat.table:
            common.note(f"{path}: {_summary(len(groups))}")
        _show(path, groups, format)
    if format is DedupeFormat.json:
        sys.stdout.write(json.dumps(as_json, indent=2, ensure_ascii=False) + "\n")
    else:
        common.note(_summary(found) if found else "no duplicates found")
    return 1 if (check and found) else 0


def _summary(n: int) -> str:
    return f"{n} group{'s' if n != 1 else ''} of possible duplicates"


def _detect(path: Path, threshold: float | None) -> tuple["Library", list["Group"]]:
    from .. import dedupe, distinct, store

    lib = store.load(path)
    common.report_problems(lib)
    remembered = distinct.load(path)
    if len(lib.records) >= PROGRESS_MIN and _stderr_is_terminal():
        from rich.progress import Progress

        with Progress(transient=True, console=_stderr_console()) as bar:
            task = bar.add_task("looking for duplicates", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            groups = dedupe.find_groups(lib.records, threshold=threshold,
                                        distinct=remembered, progress=progress)
    else:
        groups = dedupe.find_groups(lib.records, threshold=threshold, distinct=remembered)
    return lib, groups


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True, highlight=False)


# ---------------------------------------------------------------- output
def _evidence(link) -> str:
    return f"{link.a.key} ~ {link.b.key}: {'; '.join(link.evidence)} ({link.rule})"


def _json_groups(path: Path, groups: list["Group"]) -> list[dict]:
    from ..latex import to_text

    return [{
        "library": str(path),
        "score": round(g.score, 1),
        "keys": g.keys,
        "entries": [{"key": r.key, "line": r.line, "type": r.type, "year": r.year,
                     "title": to_text(r.title)} for r in g.records],
        "links": [{"a": link.a.key, "b": link.b.key, "score": round(link.score, 1),
                   "rule": link.rule, "evidence": link.evidence} for link in g.links],
        "conflicts": g.conflicts,
    } for g in groups]


def _as_github(path: Path, groups: list["Group"]) -> str:
    from ..render import github_annotation

    lines = []
    for g in groups:
        for rec in g.records:
            others = [r.key for r in g.records if r is not rec]
            links = [lk for lk in g.links if rec in (lk.a, lk.b)]
            why = "; ".join(links[0].evidence) + f" ({links[0].rule})" if links else ""
            msg = f"'{rec.key}' looks like a duplicate of {', '.join(repr(k) for k in others)}"
            if why:
                msg += f": {why}"
            lines.append(github_annotation("warning", str(path), rec.line,
                                           "possible duplicate entry", msg))
    return "".join(line + "\n" for line in lines)


def _tables(groups: list["Group"]) -> list:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from ..dedupe import person_strings
    from ..latex import to_text
    from ..view import view

    out = []
    for n, g in enumerate(groups, 1):
        t = Table(title=f"Group {n}: {len(g.records)} entries, score {g.score:.0f}",
                  title_justify="left", title_style="bold", box=box.SIMPLE_HEAD, expand=True,
                  pad_edge=False)
        t.add_column("#", no_wrap=True, width=2)
        t.add_column("Entry", no_wrap=True)
        t.add_column("Year", no_wrap=True, width=4)
        t.add_column("Title", ratio=5)
        t.add_column("Authors", ratio=3)
        for i, rec in enumerate(g.records, 1):
            v = view(rec)
            people = [to_text(p) for p in person_strings(rec.fields.get("author")
                                                          or rec.fields.get("editor"))]
            authors = "; ".join(people[:3]) + (" et al." if len(people) > 3 else "")
            entry = Text(rec.key)
            entry.append(f"\n{rec.type}, line {rec.line}", style="dim")
            t.add_row(str(i), entry, str(v.year or ""), v.title or "(no title)", authors)
        caption = Text()
        for link in g.links:
            caption.append(_evidence(link) + "\n", style="dim")
        for c in g.conflicts:
            caption.append(f"needs a human: {c}\n", style="yellow")
        t.caption = caption
        t.caption_justify = "left"
        out.append(t)
    return out


def _show(path: Path, groups: list["Group"], fmt: DedupeFormat) -> None:
    out = sys.stdout
    if fmt is DedupeFormat.github:
        out.write(_as_github(path, groups))
    elif groups:
        from rich.console import Console

        console = Console(highlight=False, soft_wrap=False, file=out)
        for table in _tables(groups):
            console.print(table)


# ---------------------------------------------------------------- merging
def _merge(path: Path, lib: "Library", groups: list["Group"], *, yes: bool,
           dry_run: bool) -> int:
    from .. import bibtex, dedupe, distinct, store

    if not groups:
        common.note("no duplicates found")
        return 0
    plans: list[tuple["Group", "MergeResult"]] = []
    not_dups: list[tuple[str, str]] = []
    console = _stderr_console() if not yes else None
    for n, g in enumerate(groups, 1):
        if yes:
            if g.conflicts:
                common.warn(f"skipped group {n} ({', '.join(g.keys)}): {g.conflicts[0]}; "
                            "merge it with 'pubcli dedupe --merge' and decide yourself")
                continue
            result = dedupe.merge(g.records, dedupe.suggest_keep(g.records))
            for c in result.conflicts:
                common.warn(f"{result.record.key}: kept {c.field} = {c.kept!r}; "
                            + "; ".join(f"{k} had {v!r}" for k, v in c.others))
            plans.append((g, result))
            continue
        decision = _ask(console, n, len(groups), g)
        if decision is None:  # quit
            break
        if decision == "skip":
            continue
        if decision == "distinct":
            recs = g.records
            not_dups += [(recs[i].key, recs[j].key) for i in range(len(recs))
                         for j in range(i + 1, len(recs))]
            continue
        plans.append((g, decision))

    fmt_indent = bibtex.detect_indent(lib.text)
    with store.transaction(path, dry_run=dry_run,
                           on_wait=lambda m: common.note(m)) as live:
        for g, result in plans:
            now = {id(rec): live.locate(rec) for rec in g.records}
            for rec in g.records:
                if now[id(rec)] is None:
                    raise LibraryChanged(f"'{rec.key}' changed while pubcli was asking; "
                                         "nothing was written: run the merge again", path=path)
            keep = result.record
            kept = next(r for r in g.records if r.key == keep.key)
            target = now[id(kept)]
            merged = target.copy(type=keep.type, fields=keep.fields)
            live.replace(target, merged)
            for rec in g.records:
                if rec is not kept:
                    live.remove(now[id(rec)])
            if dry_run:
                sys.stdout.write(bibtex.format_entry(merged, indent=fmt_indent,
                                                     newline=live.newline) + "\n")
    verb = "would merge" if dry_run else "merged"
    for g, result in plans:
        common.note(f"{verb} {', '.join(result.dropped_keys)} into {result.record.key}")
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


def _ask(console, n: int, total: int, g: "Group"):
    """One group's decision: a MergeResult, "skip", "distinct", or None (quit)."""
    from rich.markup import escape
    from rich.prompt import Prompt

    from .. import dedupe

    for table in _tables([g]):
        table.title = f"Group {n} of {total}: {len(g.records)} entries, score {g.score:.0f}"
        console.print(table)
    try:
        action = Prompt.ask("merge (m), skip (s), mark as not duplicates (d), or quit (q)",
                            choices=["m", "s", "d", "q"], default="m", console=console)
        if action == "q":
            return None
        if action == "s":
            return "skip"
        if action == "d":
            return "distinct"
        keys = g.keys
        default = keys.index(dedupe.suggest_keep(g.records)) + 1
        pick = Prompt.ask("keep which entry", choices=[str(i) for i in range(1, len(keys) + 1)],
                          default=str(default), console=console)
        result = dedupe.merge(g.records, keys[int(pick) - 1])
        for c in result.conflicts:
            options = [(result.record.key, c.kept)] + c.others
            console.print(f"[bold]{escape(c.field)}[/bold] differs:")
            for i, (k, v) in enumerate(options, 1):
                console.print(f"  {i}. {escape(v)}  [dim]({escape(k)})[/dim]", highlight=False)
            choice = Prompt.ask(f"keep which {c.field}",
                                choices=[str(i) for i in range(1, len(options) + 1)],
                                default="1", console=console)
            value = options[int(choice) - 1][1]
            if c.field == "@type":
                result.record = result.record.copy(type=value)
            else:
                fields = dict(result.record.fields)
                fields[c.field] = value
                result.record = result.record.copy(fields=fields)
        return result
    except EOFError:
        raise typer.Abort() from None


def register(app: typer.Typer) -> None:
    app.command("dedupe")(dedupe_command)
