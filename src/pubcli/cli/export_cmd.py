"""pubcli export: the publications page as HTML or Markdown, or the library as CSL-JSON."""

from __future__ import annotations

import itertools
import os
from enum import Enum
from pathlib import Path
from collections.abc import Callable, Iterable, Iterator

import typer

from pubcli.exporters.styles import CitationStyle
from . import common
from datetime import UTC


class ExportFormat(str, Enum):
    html = "html"
    markdown = "markdown"
    csl_json = "csl-json"
    latex = "latex"
    docx = "docx"


# The default groupings: three tabs on a web page, one list in Markdown (a README).
DEFAULT_BY = {"html": ["year", "area", "type"], "markdown": ["year"]}

StyleOpt = typer.Option(None, "--style", help="Write each reference in this citation style "
                        "(CSL, formatted by pandoc's citeproc; needs pandoc >= 2.11 or "
                        "pip install 'pubcli[styles]') instead of pubcli's own layout.")
CslOpt = typer.Option(None, "--csl", metavar="FILE",
                      help="Any CSL 1.0 style file, instead of a shipped --style.")


def export_command(
    format: ExportFormat = typer.Argument(..., metavar="FORMAT",
                                          help="html, markdown, csl-json, or latex / docx "
                                               "(a CV's publication section, by type and "
                                               "year, in a style: --style, default apa).",
                                          show_default=False),
    output: Path | None = typer.Option(None, "--output", "-o", metavar="FILE",
                                          help="Write the page here (folders are created); "
                                               "default: standard output."),
    by: list[str] | None = typer.Option(
        None, "--by", "-b", metavar="year|area|type[,year|area|type]",
        help="Groupings to show, in this order (repeatable; two joined by a comma nest: "
             "type,year). Default: year, area, type for HTML; year for Markdown."),
    area: list[str] | None = common.AreaOpt,
    type_: list[str] | None = common.TypeOpt,
    year: str | None = common.YearOpt,
    author: list[str] | None = common.AuthorOpt,
    search: str | None = common.SearchOpt,
    owner: str | None = typer.Option(None, "--owner",
                                        help="Name shown as the page owner and highlighted in "
                                             "author lists (default: owner in pubcli.toml)."),
    template: Path | None = typer.Option(None, "--template", metavar="FILE",
                                            help="Your own Jinja2 template instead of the "
                                                 "shipped one (it may extend "
                                                 "'pubcli/page.html.j2')."),
    style: CitationStyle | None = StyleOpt,
    csl: Path | None = CslOpt,
    stamp: bool = typer.Option(False, "--stamp",
                               help="Add the date of the export (UTC, or $SOURCE_DATE_EPOCH). "
                                    "Without it the same library gives the same bytes."),
    library: Path | None = common.LibraryOpt,
) -> None:
    """Export the publications page: owner, featured papers, lists by year, area, type.

    HTML is one self-contained file (search box, filter chips, tabs, BibTeX and
    abstract toggles, dark mode, no network requests); Markdown is
    GitHub-flavoured; csl-json is the CSL-JSON that pandoc, Quarto and Zotero
    read. Featured publications (featured = {true}) come first. The same
    filters as 'list' pick the publications. --style apa|ieee|acm|chicago|mla
    (or --csl FILE) writes each reference in that citation style.

    Examples:

        pubcli export html -o site/index.html

        pubcli export html --style apa --by type,year -o site/index.html

        pubcli export markdown --year 2015.. > PUBLICATIONS.md

        pubcli export csl-json -o refs.json

        pubcli export latex --style ieee -o cv/publications.tex
    """
    from pubcli.local import config
    from pubcli import store
    from pubcli.render.text import clean_utf8
    from ..errors import ValidationError, WriteError
    from ..exporters import build_page, get, output as out_file
    from ..exporters.sections import parse_grouping
    from pubcli.schema.inherit import publications

    path = common.library_path(library)
    to_stdout = output is None or str(output) == "-"
    if to_stdout and format is ExportFormat.html and common.stdout_is_terminal():
        raise ValidationError("not writing an HTML page to the terminal; "
                              "use -o FILE or redirect (> index.html)")
    if output is not None and not to_stdout:
        why = out_file.refusal(output, path)
        if why:
            raise WriteError(f"{why}; nothing was written", path=output)
    groupings = [",".join(parse_grouping(b)) for b in by] if by else \
        DEFAULT_BY.get(format.value, [])
    filters = common.build_filters(area, type_, year, author, search)
    lib = store.load(path, display=True)
    common.report_problems(lib)
    cfg = config.load_config(path)
    styler = None
    records = publications(lib.records)  # crossref/xdata fields inherited for display
    if format is ExportFormat.csl_json:
        from ..exporters import csl as csl_json
        from pubcli.usecases.grouping import select

        chosen = select(records, filters)
        data: bytes | Iterator[bytes] = _encoded(csl_json.dump_chunks(chosen, private=cfg.private_fields))
        total = len(chosen)
    elif format in (ExportFormat.latex, ExportFormat.docx):
        from ..exporters import cv
        from ..exporters.cslstyle import styler as make_styler
        from pubcli.usecases.grouping import select

        if to_stdout and format is ExportFormat.docx and common.stdout_is_terminal():
            raise ValidationError("not writing a .docx file to the terminal; use -o FILE")
        styler = make_styler(style.value if style else "apa", csl)
        assert styler is not None  # a style is always given here
        data = cv.export(records, format.value, styler=styler, filters=filters,
                         source_text=lambda r: store.source_text(lib, r),
                         owner=owner or cfg.owner, private_fields=cfg.private_fields)
        styler.save()
        total = len(select(records, filters))
    else:
        if style is not None or csl is not None:
            from ..exporters.cslstyle import styler as make_styler

            styler = make_styler(style.value if style else None, csl)
        # a bar on a terminal while pandoc formats what the style's cache lacks
        with common.progress_bar("formatting references") as progress:
            page = build_page(records, source_text=lambda r: store.source_text(lib, r),
                              filters=filters, by=groupings,
                              owner=owner or cfg.owner, role=cfg.role,
                              area_order=cfg.areas, private_fields=cfg.private_fields,
                              max_authors=cfg.max_authors, styler=styler,
                              stamp=_stamp() if stamp else None, progress=progress)
        if styler is not None:
            styler.save()
        # control characters from field values (terminal escapes) never reach a text
        # output: the one sanitiser of pubcli.render (the templates' markup has none);
        # the page is written as the template makes it, never held whole
        data = _encoded(get(format.value).chunks(page, template), clean_utf8)
        total = page.total
    if to_stdout:
        common.write_bytes([data] if isinstance(data, bytes) else data)
    else:
        assert output is not None
        out_file.write(output, data, library=path)
        common.note(f"wrote {output} ({total} publication{'s' if total != 1 else ''})")
    if not lib.records:
        common.note(f"{path} holds no publications yet; add one with 'pubcli add'")
    elif not total:
        common.note("no publications match")


def _encoded(pieces: Iterable[str], clean: Callable[[str], bytes] | None = None,
             size: int = 1 << 20) -> Iterator[bytes]:
    """Text pieces as UTF-8 chunks of about ``size`` characters, each made bytes by
    ``clean`` (the sanitiser's, ``clean_utf8``) when given; a CR ending a chunk waits
    for the next (CRLF is kept whole). The
    first piece is made before anything is yielded, so that a template that cannot be
    compiled fails before a byte is written."""
    it = iter(pieces)
    buf: list[str] = []
    held = 0
    first = next(it, None)
    if first is None:
        return
    for piece in itertools.chain([first], it):
        buf.append(piece)
        held += len(piece)
        if held >= size:
            text = "".join(buf)
            cut = len(text) - 1 if text.endswith("\r") else len(text)
            buf, held = [text[cut:]], len(text) - cut
            yield clean(text[:cut]) if clean else text[:cut].encode("utf-8")
    text = "".join(buf)
    if text:
        yield clean(text) if clean else text.encode("utf-8")


def _stamp() -> str:
    from datetime import datetime

    from ..errors import ValidationError

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            when = datetime.fromtimestamp(int(epoch), UTC)
        except (ValueError, OverflowError, OSError):
            raise ValidationError(f"SOURCE_DATE_EPOCH must be a Unix time, got {epoch!r}") \
                from None
    else:
        when = datetime.now(UTC)
    return when.strftime("%Y-%m-%d")


def register(app: typer.Typer) -> None:
    app.command("export")(export_command)
