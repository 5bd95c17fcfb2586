"""pubcli list: grouped tables of the library."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from ..model import GroupBy, ListFormat
from ..styles import CitationStyle
from . import common
from .export_cmd import CslOpt, StyleOpt

RICH_TABLE_LIMIT = 600  # beyond this many rows a terminal gets compact lines


def list_command(
    by: GroupBy = typer.Option(GroupBy.year, "--by", "-b", help="How to group the list."),
    format: ListFormat = typer.Option(ListFormat.table, "--format", "-f",
                                      help="Output format."),
    area: Optional[List[str]] = common.AreaOpt,
    type_: Optional[List[str]] = common.TypeOpt,
    year: Optional[str] = common.YearOpt,
    author: Optional[List[str]] = common.AuthorOpt,
    search: Optional[str] = common.SearchOpt,
    owner: Optional[str] = typer.Option(None, "--owner",
                                        help="Name to highlight in author lists "
                                             "(default: owner in pubcli.toml)."),
    style: Optional[CitationStyle] = StyleOpt,
    csl: Optional[Path] = CslOpt,
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """List the publications, grouped by year, area, type or venue.

    A paper with several research areas is listed under each of them. Inside a
    group the newest come first. On a terminal you get tables; piped, one plain
    line per publication (year | title | authors | venue | areas | key).

    Examples:

        pubcli list --by area

        pubcli list --year 2015..2020 --search "deep learning" --format json

        pubcli list --style apa > publications.txt
    """
    from .. import config, store
    from ..grouping import group, select
    from ..inherit import publications

    path = common.library_path(library)
    filters = common.build_filters(area, type_, year, author, search)
    lib = store.load(path)
    common.report_problems(lib)
    cfg = config.load_config(path)
    groups = group(select(publications(lib.records), filters), by, cfg.areas)
    who = owner or cfg.owner
    out = sys.stdout
    from .. import render

    if format is ListFormat.csl_json or style is not None or csl is not None:
        out.write(_csl_listing(groups, format, style, csl, who, by))
    elif format is ListFormat.json:
        out.write(render.as_json(groups, by))
    elif format is ListFormat.csv:
        out.write(render.as_csv(groups, by))
    elif format is ListFormat.keys:
        out.write(render.as_keys(groups))
    elif format is ListFormat.bibtex:
        out.write(render.as_bibtex(groups, lambda r: store.source_text(lib, r)))
    else:
        rows = sum(len(recs) for _, recs in groups)
        if not groups:
            common.note("no publications match" if not filters.is_empty()
                        else f"{path} holds no publications yet; add one with 'pubcli add'")
        elif not common.stdout_is_terminal():
            out.write(render.plain(groups, by, who))
        elif rows > RICH_TABLE_LIMIT:
            color = common.color_enabled()
            out.write(render.plain(groups, by, who,
                                   bold=(lambda s: f"\x1b[1m{s}\x1b[0m") if color else
                                   (lambda s: s)))
        else:
            from rich.console import Console

            console = Console(highlight=False, soft_wrap=False)
            for table in render.tables(groups, by, who):
                console.print(table)


def _csl_listing(groups, format: ListFormat, style, csl, owner, by) -> str:
    """--format csl-json, or the text listing in a citation style (--style/--csl)."""
    from .. import render
    from ..errors import ValidationError
    from ..exporters import csl as cslmod

    if format is ListFormat.csl_json:
        if style is not None or csl is not None:
            raise ValidationError("--style and --csl apply to the text listing, not csl-json")
        return cslmod.dumps(cslmod.unique_records(groups))
    if format.value not in ("text", "table"):
        raise ValidationError(f"--style and --csl apply to the text listing, "
                              f"not --format {format.value}")
    styler = cslmod.styler(style.value if style else None, csl)
    bold = (lambda s: f"\x1b[1m{s}\x1b[0m") if common.color_enabled() else (lambda s: s)
    text = cslmod.text_listing(groups, styler, owner,
                               lambda name, n: render.heading(name, n, by), bold)
    for _, why in styler.failed[:5]:
        common.warn(f"{why}; listed as title, authors and year")
    return text


def register(app: typer.Typer) -> None:
    app.command("list")(list_command)
