"""pubcli check: lint the library for CI and pre-commit."""

from __future__ import annotations

import json
import os
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
) -> None:
    """Check the library: parse errors, duplicate keys, missing required fields,
    malformed years, dates, DOIs and URLs, areas outside the configured list.

    Every finding has its file and line. Exit status: 0 when clean, 1 when
    something was found, 2 when a file cannot be read at all. Nothing is written.

    Examples:

        pubcli check

        pubcli check --dedupe --format github data/library.bib
    """
    from .. import checks, config, store
    from ..errors import PubcliError

    targets = list(files) if files else [common.library_path(library)]
    results = []
    failures: list[PubcliError] = []
    for path in targets:
        try:
            lib = store.load(path)
            areas = config.load_config(path).areas
            results.append((path, checks.check(lib, areas=areas, dedupe=dedupe)))
        except PubcliError as exc:
            failures.append(exc)

    out = sys.stdout
    if format is CheckFormat.json:
        rows = [{"file": _shown(path), **f.as_dict()} for path, found in results for f in found]
        out.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    else:
        for path, found in results:
            for f in found:
                out.write((_github if format is CheckFormat.github else _text)(path, f) + "\n")
    out.flush()

    total_errors, total_warnings = checks.counts(f for _, found in results for f in found)
    if failures:
        for exc in failures[:-1]:
            sys.stderr.write(f"error: {exc.format()}\n")
        raise failures[-1]
    checked = ", ".join(_shown(p) for p, _ in results)
    if total_errors or total_warnings:
        common.note(f"{checked}: {_plural(total_errors, 'error')}, "
                    f"{_plural(total_warnings, 'warning')}")
        raise typer.Exit(1)
    common.note(f"{checked}: no problems found")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _shown(path: Path) -> str:
    """The path relative to the current folder when it lies inside it (for CI logs)."""
    try:
        rel = os.path.relpath(os.path.abspath(path))
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def _text(path: Path, f) -> str:
    where = f"{_shown(path)}:{f.line}" if f.line else _shown(path)
    return f"{where}: {f.severity}: {_one_line(f.message)} [{f.code}]"


def _github(path: Path, f) -> str:
    from ..render import github_annotation

    return github_annotation(f.severity, str(path), f.line, "pubcli " + f.code, f.message)


def _one_line(s: str) -> str:
    return " ".join(s.split())


def register(app: typer.Typer) -> None:
    app.command("check")(check_command)
