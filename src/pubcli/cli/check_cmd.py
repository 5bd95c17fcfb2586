"""pubcli check: lint the library for CI and pre-commit."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from . import common


class CheckFormat(str, Enum):
    text = "text"
    json = "json"
    github = "github"


def check_command(
    files: Optional[List[Path]] = typer.Argument(
        None, metavar="[FILE]...",
        help="The .bib files to check (default: the library, see --library)."),
    format: CheckFormat = typer.Option(
        CheckFormat.text, "--format", "-f",
        help="text: one 'file:line: severity: message [code]' line each; json: a list of "
             "objects; github: workflow annotations (::error / ::warning)."),
    dedupe: bool = typer.Option(False, "--dedupe",
                                help="Also report entries that look like the same publication."),
    library: Optional[Path] = common.LibraryOpt,
) -> int:
    """Check the library: parse errors, duplicate keys, missing required fields,
    malformed years, dates, DOIs and URLs, areas outside the configured list.

    Every finding has its file and line. Exit status: 0 when clean, 1 when
    something was found, 2 when a file cannot be read at all. Nothing is written.

    Examples:

        pubcli check

        pubcli check --dedupe --format github data/library.bib
    """
    from ..errors import ErrorGroup, ExitCode
    from ..render.ci import findings

    targets = list(files) if files else [common.library_path(library)]
    results, failures = _check_all(targets, dedupe)
    sys.stdout.write(findings(results, format.value))
    sys.stdout.flush()
    if failures:
        raise ErrorGroup(failures)
    common.note(_summary(results))
    return ExitCode.FOUND if any(found for _, found in results) else ExitCode.OK


def _check_all(targets: list[Path], dedupe: bool):
    """(path, findings) for each readable file, and the errors of the others."""
    from pubcli.usecases import checks
    from pubcli.local import config
    from pubcli import store
    from ..errors import PubcliError

    results, failures = [], []
    for path in targets:
        try:
            lib = store.load(path)
            cfg = config.load_config(path)
            results.append((path, checks.check(lib, areas=cfg.areas, dedupe=dedupe,
                                               acronyms=not cfg.fmt.protect)))
        except PubcliError as exc:
            failures.append(exc)
    return results, failures


def _summary(results) -> str:
    from pubcli.usecases import checks
    from ..render import shown_path

    errors, warnings = checks.counts(f for _, found in results for f in found)
    checked = ", ".join(shown_path(p) for p, _ in results)
    if not (errors or warnings):
        return f"{checked}: no problems found"
    return f"{checked}: {_plural(errors, 'error')}, {_plural(warnings, 'warning')}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def register(app: typer.Typer) -> None:
    app.command("check")(check_command)
