"""pubcli export: the publications page as HTML or Markdown."""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from . import common


class ExportFormat(str, Enum):
    html = "html"
    markdown = "markdown"


class PageGrouping(str, Enum):
    year = "year"
    area = "area"
    type = "type"


def export_command(
    format: ExportFormat = typer.Argument(..., metavar="FORMAT",
                                          help="The page format.", show_default=False),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE",
                                          help="Write the page here (folders are created); "
                                               "default: standard output."),
    by: Optional[List[PageGrouping]] = typer.Option(
        None, "--by", "-b", metavar="year|area|type",
        help="Groupings to show, in this order (repeatable; default: year, area, type)."),
    area: Optional[List[str]] = common.AreaOpt,
    type_: Optional[List[str]] = common.TypeOpt,
    year: Optional[str] = common.YearOpt,
    author: Optional[List[str]] = common.AuthorOpt,
    search: Optional[str] = common.SearchOpt,
    owner: Optional[str] = typer.Option(None, "--owner",
                                        help="Name shown as the page owner and highlighted in "
                                             "author lists (default: owner in pubcli.toml)."),
    template: Optional[Path] = typer.Option(None, "--template", metavar="FILE",
                                            help="Your own Jinja2 template instead of the "
                                                 "shipped one (it may extend "
                                                 "'pubcli/page.html.j2')."),
    stamp: bool = typer.Option(False, "--stamp",
                               help="Add the date of the export (UTC, or $SOURCE_DATE_EPOCH). "
                                    "Without it the same library gives the same bytes."),
    library: Optional[Path] = common.LibraryOpt,
) -> None:
    """Export the publications page: owner, featured papers, lists by year, area, type.

    HTML is one self-contained file (search box, tabs, BibTeX and abstract
    toggles, dark mode, no network requests); Markdown is GitHub-flavoured.
    Featured publications (featured = {true}) come first. The same filters as
    'list' pick the publications.

    Examples:

        pubcli export html -o site/index.html

        pubcli export markdown --by year --year 2015.. > PUBLICATIONS.md
    """
    from .. import config, store
    from ..exporters import build_page, get
    from ..inherit import publications

    path = common.library_path(library)
    filters = common.build_filters(area, type_, year, author, search)
    lib = store.load(path)
    common.report_problems(lib)
    cfg = config.load_config(path)
    page = build_page(publications(lib.records), source_text=lambda r: store.source_text(lib, r),
                      filters=filters,
                      by=[g.value for g in by] if by else ["year", "area", "type"],
                      owner=owner or cfg.owner, role=cfg.role, area_order=cfg.areas,
                      stamp=_stamp() if stamp else None)
    data = get(format.value).render(page, template).encode("utf-8")
    if output is None or str(output) == "-":
        out = getattr(sys.stdout, "buffer", None)
        sys.stdout.flush()
        if out is not None:
            out.write(data)
            out.flush()
        else:
            sys.stdout.write(data.decode("utf-8"))
    else:
        _write(output, data)
        common.note(f"wrote {output} ({page.total} publication{'s' if page.total != 1 else ''})")
    if not lib.records:
        common.note(f"{path} holds no publications yet; add one with 'pubcli add'")
    elif not page.total:
        common.note("no publications match")


def _stamp() -> str:
    from datetime import datetime, timezone

    from ..errors import ValidationError

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            when = datetime.fromtimestamp(int(epoch), timezone.utc)
        except (ValueError, OverflowError, OSError):
            raise ValidationError(f"SOURCE_DATE_EPOCH must be a Unix time, got {epoch!r}") \
                from None
    else:
        when = datetime.now(timezone.utc)
    return when.strftime("%Y-%m-%d")


def _write(output: Path, data: bytes) -> None:
    from .. import store
    from ..errors import WriteError

    if output.is_dir():
        raise WriteError("is a folder; give a file name such as index.html", path=output)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(f"cannot create the folder: {exc.strerror or exc}",
                         path=output.parent) from None
    store.atomic_write(output, data)


def register(app: typer.Typer) -> None:
    app.command("export")(export_command)
