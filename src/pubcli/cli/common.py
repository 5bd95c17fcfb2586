"""Pieces every command shares: options, library resolution, output helpers."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import typer

from .. import config
from ..grouping import Filters, parse_year_range

LibraryOpt = typer.Option(None, "--library", "-l", metavar="PATH",
                          help="The .bib file (default: $PUBCLI_LIBRARY, else data/library.bib "
                               "found from here upward).")


def library_path(explicit: Optional[Path]) -> Path:
    return config.find_library(explicit)


def warn(message: str) -> None:
    sys.stderr.write(f"warning: {message}\n")


def note(message: str) -> None:
    sys.stderr.write(f"{message}\n")


def report_problems(lib) -> None:
    """Tell the user (on stderr) about blocks kept verbatim and other load problems."""
    shown = 0
    for p in lib.problems:
        if shown == 20:
            warn(f"{lib.path}: {len(lib.problems) - 20} more problems; run 'pubcli check'")
            break
        warn(f"{lib.path}:{p.line}: {p.message}")
        shown += 1


def stdout_is_terminal() -> bool:
    """Is stdout a terminal? ``TTY_COMPATIBLE=1``/``0`` (as rich reads it) overrides."""
    forced = os.environ.get("TTY_COMPATIBLE")
    if forced in {"0", "1"}:
        return forced == "1"
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def color_enabled() -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    return stdout_is_terminal() and os.environ.get("TERM") != "dumb"


def build_filters(area: list[str] | None, type_: list[str] | None, year: str | None,
                  author: list[str] | None, search: str | None) -> Filters:
    return Filters(areas=list(area or []), types=list(type_ or []),
                   years=parse_year_range(year) if year else None,
                   authors=list(author or []), search=search or None)


# Filter options, shared by list, export and tag.
AreaOpt = typer.Option(None, "--area", "-a", help="Only this research area (repeatable).")
TypeOpt = typer.Option(None, "--type", "-t",
                       help="Only this entry type, e.g. inproceedings, or a group name such as "
                            "'Technical reports' (repeatable).")
YearOpt = typer.Option(None, "--year", "-y", metavar="YYYY[..YYYY]",
                       help="Only this year or range: 2015, 2015..2020, 2015.., ..2020.")
AuthorOpt = typer.Option(None, "--author",
                         help="Only entries with an author whose name contains this "
                              "(case- and accent-insensitive; repeatable).")
SearchOpt = typer.Option(None, "--search", "-s",
                         help="Only entries whose title, authors or venue contain all these "
                              "words (case- and accent-insensitive).")
