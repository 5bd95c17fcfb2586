"""pubcli list: grouped tables of the library."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from ..model import GroupBy, ListFormat
from . import common

RICH_TABLE_LIMIT = 600  # beyond this many rows a terminal gets compact lines


def list_command(
    by: GroupBy = typer.Option(GroupBy.year, "--by", "-b", help="How to group the list."),
    format: ListFormat = typer.Option(
        ListFormat.text, "--format", "-f",
        help="text: tables on a terminal (stacked when narrow), one line per publication "
             "when piped; json, csv, keys, bibtex: for programs."),
    area: Optional[List[str]] = common.AreaOpt,
    type_: Optional[List[str]] = common.TypeOpt,
    year: Optional[str] = common.YearOpt,
    author: Optional[List[str]] = common.AuthorOpt,
    search: Optional[str] = common.SearchOpt,
    owner: Optional[str] = typer.Option(None, "--owner",
                                        help="Name to highlight in author lists "
                                             "(default: owner in pubcli.toml)."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """List the publications, grouped by year, area, type or venue.

    A paper with several research areas is listed under each of them. Inside a
    group the newest come first. On a terminal you get tables (a stacked layout
    when the terminal is narrow); piped, one plain line per publication
    (year | title | authors | venue | areas | key). CSV cells that a
    spreadsheet would run as a formula start with a "'".

    Examples:

        pubcli list --by area

        pubcli list --year 2015..2020 --search "deep learning" --format json
    """
    from .. import config, store
    from ..grouping import group, select
    from ..inherit import publications

    path = common.library_path(library)
    cfg = config.load_config(path)
    filters = common.build_filters(area, type_, year, author, search, known_areas=cfg.areas)
    lib = store.load(path)
    common.report_problems(lib)
    groups = group(select(publications(lib.records), filters), by, cfg.areas)
    if not groups and format is ListFormat.text:
        common.note("no publications match" if not filters.is_empty()
                    else f"{path} holds no publications yet; add one with 'pubcli add'")
    sys.stdout.write(_render(groups, by, format, owner or cfg.owner, lib))


def _render(groups, by: GroupBy, format: ListFormat, owner: Optional[str], lib) -> str:
    """The listing in ``format``, laid out for where stdout goes."""
    from .. import render, store

    if format is ListFormat.json:
        return render.as_json(groups, by)
    if format is ListFormat.csv:
        return render.as_csv(groups, by)
    if format is ListFormat.keys:
        return render.as_keys(groups)
    if format is ListFormat.bibtex:
        text = render.as_bibtex(groups, lambda r: store.source_text(lib, r))
        return render.clean(text) if common.stdout_is_terminal() else text
    if not groups:
        return ""
    if not common.stdout_is_terminal():
        return render.plain(groups, by, owner)
    bold = common.bold_style()
    width = common.terminal_width()
    rows = sum(len(recs) for _, recs in groups)
    if not render.fits_table(groups, width):
        return render.stacked(groups, by, owner, width=width, bold=bold)
    if rows > RICH_TABLE_LIMIT:
        return render.plain(groups, by, owner, bold=bold)
    from rich.console import Console

    console = Console(highlight=False, soft_wrap=False)
    with console.capture() as captured:
        for table in render.tables(groups, by, owner):
            console.print(table)
    return captured.get()


def register(app: typer.Typer) -> None:
    app.command("list")(list_command)
