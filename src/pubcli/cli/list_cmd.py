"""pubcli list: grouped tables of the library."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING
from collections.abc import Iterable, Sequence

import typer

from pubcli.schema.model import GroupBy, ListFormat
from pubcli.exporters.styles import CitationStyle
from . import common
from .export_cmd import CslOpt, StyleOpt

if TYPE_CHECKING:
    from pubcli.store import Listing
    from pubcli.render.listing import Groups

RICH_TABLE_LIMIT = 600  # beyond this many rows a terminal gets compact lines


def list_command(
    by: GroupBy = typer.Option(GroupBy.year, "--by", "-b", help="How to group the list."),
    format: ListFormat = typer.Option(
        ListFormat.text, "--format", "-f",
        help="text: tables on a terminal (stacked when narrow), one line per publication "
             "when piped (with --style: one reference per line); line: key, year, first "
             "author, title, one short line each; json, csv, keys, bibtex, "
             "csl-json: for programs."),
    area: list[str] | None = common.AreaOpt,
    type_: list[str] | None = common.TypeOpt,
    year: str | None = common.YearOpt,
    author: list[str] | None = common.AuthorOpt,
    search: str | None = common.SearchOpt,
    owner: str | None = typer.Option(None, "--owner",
                                        help="Name to highlight in author lists "
                                             "(default: owner in pubcli.toml)."),
    style: CitationStyle | None = StyleOpt,
    csl: Path | None = CslOpt,
    no_pager: bool = common.NoPagerOpt,
    library: Path | None = common.LibraryOpt,
) -> None:
    """List the publications, grouped by year, area, type or venue.

    A paper with several research areas is listed under each of them. Inside a
    group the newest come first. On a terminal you get tables (a stacked layout
    when the terminal is narrow); piped, one plain line per publication
    (year | title | authors | venue | areas | key). CSV cells that a
    spreadsheet would run as a formula start with a "'".

    Examples:

        pubcli list --by area

        pubcli list --format line --search zero

        pubcli list --year 2015..2020 --search "deep learning" --format json

        pubcli list --style apa > publications.txt
    """
    from pubcli.local import config
    from pubcli import store
    from pubcli.usecases.grouping import group, select
    from pubcli.schema.inherit import publications

    path = common.library_path(library)
    cfg = config.load_config(path)
    filters = common.build_filters(area, type_, year, author, search, known_areas=cfg.areas)
    if format is ListFormat.bibtex:  # the entries' own text
        lib = store.Listing.of(store.load(path))
    else:
        lib = store.listing(path, display=format is not ListFormat.keys)
    common.report_problems(lib)
    groups = group(select(publications(lib.records, inherits=lib.inherits), filters), by,
                   cfg.areas)
    if not groups and format is ListFormat.text:
        common.note("no publications match" if not filters.is_empty()
                    else f"{path} holds no publications yet; add one with 'pubcli add'")
    if format is ListFormat.csl_json or style is not None or csl is not None:
        sys.stdout.writelines(_csl_listing(groups, format, style, csl, owner or cfg.owner, by,
                                           cfg.private_fields))
        return
    if format is ListFormat.json:  # written as it is made: 130 MB for 100k entries
        from pubcli.render.listing import json_chunks, json_entry

        shown = sum(len(recs) for _, recs in groups)  # an entry in two areas counts twice
        form = store.entry_forms(lib, "json", json_entry, shown)
        common.write_bytes(json_chunks(groups, by, form))
        return
    text = _render(groups, by, format, owner or cfg.owner, lib)
    if format in (ListFormat.text, ListFormat.line) and not no_pager:
        common.page(text)
    else:
        sys.stdout.write(text)


def _render(groups: Groups, by: GroupBy, format: ListFormat, owner: str | None,
            lib: Listing) -> str:
    """The listing in ``format``, laid out for where stdout goes."""
    from .. import render, store

    if format is ListFormat.csv:
        return render.as_csv(groups, by)
    if format is ListFormat.keys:
        return render.as_keys(groups)
    if format is ListFormat.line:
        return render.lines(groups, common.terminal_width() if common.stdout_is_terminal()
                            else None)
    if format is ListFormat.bibtex:
        # piped too: control characters never reach a text output (README)
        full = lib.library
        assert full is not None  # list_command loads in full for --format bibtex
        return render.clean(render.as_bibtex(groups, lambda r: store.source_text(full, r)))
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
        common.note(f"{rows} publications: one plain line each instead of tables (tables "
                    f"stop at {RICH_TABLE_LIMIT}; --format line is shorter)")
        return render.plain(groups, by, owner, bold=bold)
    from rich.console import Console

    console = Console(highlight=False, soft_wrap=False)
    with console.capture() as captured:
        for table in render.tables(groups, by, owner):
            console.print(table)
    return captured.get()


def _csl_listing(groups: Groups, format: ListFormat, style: CitationStyle | None,
                 csl: Path | None, owner: str | None, by: GroupBy,
                 private: Sequence[str]) -> Iterable[str]:
    """--format csl-json (in pieces, one item at a time: never held whole), or the text
    listing in a citation style (--style/--csl)."""
    from .. import render
    from ..errors import ValidationError
    from ..exporters import csl as cslmod, cslstyle
    from pubcli.usecases.grouping import unique_records

    if format is ListFormat.csl_json:
        if style is not None or csl is not None:
            raise ValidationError("--style and --csl apply to the text listing, not csl-json")
        return cslmod.dump_chunks(unique_records(groups), private=private)
    if format is not ListFormat.text:
        raise ValidationError(f"--style and --csl apply to the text listing, "
                              f"not --format {format.value}")
    styler = cslstyle.styler(style.value if style else None, csl)
    assert styler is not None  # the caller comes here for --style or --csl only
    text = cslstyle.text_listing(groups, styler, owner,
                               lambda name, n: render.heading(name, n, by), common.bold_style())
    return [text]


def register(app: typer.Typer) -> None:
    app.command("list")(list_command)
