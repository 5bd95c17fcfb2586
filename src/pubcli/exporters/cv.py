"""A CV's publication section as LaTeX or Word (docx), through pandoc.

The publications grouped by type, then year (newest first), each reference in a
citation style (:class:`~.cslstyle.Styler`, one bibliography per year), the owner's
name in bold. pubcli writes the section as pandoc Markdown, every character of
the references escaped, formulas as TeX math, and pandoc writes LaTeX (a
fragment to ``\\input`` into a CV, headings ``\\section*``/``\\subsection*``)
or a .docx file (deterministic: ``SOURCE_DATE_EPOCH`` is fixed unless set).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

from pubcli.schema.model import Record
from .entries import Entry
from .spans import Span
from .style import Page, build_page

FORMATS = {"latex": "latex", "docx": "docx"}
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!<>|$~^@'\"&:;=%])")


def _md_text(text: str) -> str:
    """Text pandoc's Markdown reader reads back as exactly that text."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.split()) if text.strip() else text)


def _md_runs(spans: Sequence[Span]) -> str:
    out = []
    for sp in spans:
        if sp.math:
            body = sp.text.strip("$").strip()
            out.append(f"${body}$" if body else "")
            continue
        lead = " " if sp.text[:1].isspace() else ""
        trail = " " if sp.text[-1:].isspace() else ""
        core = _md_text(sp.text.strip())
        if core and sp.strong:
            core = f"**{core}**"
        if core and sp.em:
            core = f"*{core}*"
        out.append(lead + core + trail)
    return "".join(out)


def _reference(e: Entry) -> str:
    if e.cite is not None:
        return "".join(_md_runs(part) for part in e.cite)
    return _md_text(e.title_text)


def markdown(page: Page) -> str:
    """The page's first grouping (type, then year) as pandoc Markdown."""
    lines: list[str] = []
    section = page.sections[0] if page.sections else None
    for g in section.groups if section else []:
        lines += [f"# {_md_text(g.name)}", ""]
        for c in g.children or [g]:
            if c is not g:
                lines += [f"## {_md_text(c.name)}", ""]
            for e in c.entries:
                lines.append(f"- {_reference(e)}")
            lines.append("")
    return "\n".join(lines)


def export(records: Sequence[Record], fmt: str, *, styler, source_text: Callable[[Record], str],
           owner: str | None = None, filters=None, private_fields: Sequence[str] = ()) -> bytes:
    """The CV section in ``fmt`` (``latex``: UTF-8 text; ``docx``: the file's bytes)."""
    from . import pandoc

    page = build_page(records, source_text=source_text, filters=filters, by=("type,year",),
                      owner=owner, private_fields=private_fields, styler=styler)
    text = markdown(page)
    reader = "markdown-auto_identifiers-smart"
    if fmt == "latex":
        # headings unnumbered (\section*), as a CV's sections usually are
        out = pandoc.run(["-f", reader, "-t", "latex", "--wrap=preserve",
                          "--top-level-division=section", "-V", "secnumdepth=0"],
                         _unnumbered(text))
        return out.encode("utf-8")
    env = {"SOURCE_DATE_EPOCH": os.environ.get("SOURCE_DATE_EPOCH", "0")}
    return pandoc.run_bytes(["-f", reader, "-t", "docx", "-o", "-"], text, env=env)


def _unnumbered(text: str) -> str:
    return re.sub(r"(?m)^(#{1,2} .*)$", r"\1 {-}", text)


__all__ = ["FORMATS", "export", "markdown"]
