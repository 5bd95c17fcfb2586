"""pubcli fmt: put entries in the library's canonical form, touching nothing else."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

import typer

from . import common


class FmtFormat(str, Enum):
    text = "text"
    github = "github"


class SortBy(str, Enum):
    key = "key"
    year = "year"
    type = "type"


def fmt_command(
    targets: list[str] | None = typer.Argument(
        None, metavar="[KEY|FILE]...",
        help="Only these entries (every entry with the key); an argument that names an "
             "existing .bib file formats that file instead of the library (as pre-commit "
             "passes them)."),
    check: bool = typer.Option(False, "--check",
                               help="Write nothing; name each entry not in the form "
                                    "(FILE:LINE) and exit 1 when there is one."),
    diff: bool = typer.Option(False, "--diff", help="Write nothing; print a unified diff of "
                                                    "what would change."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n",
                                 help="Write nothing; say what would change."),
    sort: SortBy | None = typer.Option(
        None, "--sort", help="Also put entries in order: key, year (newest first) or type "
                             "(default: [fmt] sort, else off)."),
    format: FmtFormat = typer.Option(
        FmtFormat.text, "--format", "-f",
        help="How --check names entries: text ('file:line: warning: ...') or github "
             "(workflow annotations)."),
    library: Path | None = common.LibraryOpt,
) -> int:
    """Rewrite the entries that are not in the canonical form ([fmt] in pubcli.toml:
    indent, {} or "", = alignment, field order, month macros, page dashes, bare DOIs,
    dropped fields, encoding, acronym protection). Comments, @string and @preamble,
    and blocks pubcli cannot read, stay byte for byte; what BibTeX reads changes only
    as the form says.

    Exit status: 0 when done (or already formatted), 1 when --check finds entries to
    format, 2 on errors.

    Examples:

        pubcli fmt

        pubcli fmt --check --format github

        pubcli fmt --diff smith2020 jones2021

        pubcli fmt --sort year
    """
    from ..errors import ErrorGroup, ExitCode, PubcliError

    files, keys = _split(targets or [])
    if files and keys:
        from ..errors import ValidationError

        raise ValidationError("give entry keys or .bib files, not both")
    paths = files or [common.library_path(library)]
    found = False
    failures = []
    for path in paths:
        try:
            found |= _one(path, keys or None, sort.value if sort else None,
                          check=check, diff=diff, dry_run=dry_run, fmt=format.value)
        except PubcliError as exc:
            failures.append(exc)
    if failures:
        raise ErrorGroup(failures)
    return ExitCode.FOUND if found and check else ExitCode.OK


def _split(targets: list[str]) -> tuple[list[Path], list[str]]:
    files = [Path(t) for t in targets if t.endswith(".bib") and Path(t).is_file()]
    keys = [t for t in targets if not (t.endswith(".bib") and Path(t).is_file())]
    return files, keys


def _one(path: Path, keys: list[str] | None, sort: str | None, *, check: bool, diff: bool,
         dry_run: bool, fmt: str) -> bool:
    """Format (or check) one file; whether anything is (or was) not in the form."""
    from pubcli.local import config
    from pubcli.usecases import fmt as fmt_core
    from pubcli import store
    from ..render import changes, shown_path
    from ..render.ci import findings

    from pubcli.local import gcpause

    form = config.load_config(path).fmt
    write = not (check or diff or dry_run)
    # one pause for the load, the plan and the write: no collection walks the library
    # between them (pubcli.local.gcpause)
    with gcpause.paused(), store.transaction(path, dry_run=not write, written=True,
                                             on_wait=common.note) as lib:
        plan = fmt_core.plan(lib, form, keys, sort)
        for s in plan.skipped:
            common.warn(f"{shown_path(path)}:{s.line}: left as it is: "
                        + (f"entry '{s.key}': " if s.key else "") + s.reason)
        if write and plan.edits:
            store.rewrite(lib, plan.edits, plan.expected)
    where = shown_path(path)
    if check:
        sys.stdout.write(findings([(path, fmt_core.findings(plan, sort or form.sort))], fmt))
    if diff and plan.edits:
        common.echo(_diff(lib.text, plan.apply(lib.text), where))
    n = len(plan.changes)
    extra = _layout_words(plan)
    if plan.clean:
        common.note(f"{where}: in the form already" + (", but for the entries left as they "
                                                       "are" if plan.skipped else ""))
    elif write:
        common.note(f"{where}: formatted {changes.entries(n)}{extra}")
    else:
        common.note(f"{where}: would format {changes.entries(n)}{extra}; nothing was written")
    return not plan.clean


def _layout_words(plan) -> str:
    parts = []
    if plan.spacing:
        parts.append(f"the space before {len(plan.spacing)}")
    if plan.moved:
        parts.append(f"moved {sum(n for _, n in plan.moved)}")
    return f" ({'; '.join(parts)})" if parts else ""


def _diff(old: str, new: str, where: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(old.splitlines(keepends=True),
                                        new.splitlines(keepends=True),
                                        fromfile="a/" + where.lstrip("/"),
                                        tofile="b/" + where.lstrip("/")))


def register(app: typer.Typer) -> None:
    app.command("fmt")(fmt_command)
