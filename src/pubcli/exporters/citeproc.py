"""Bibliographies formatted by pandoc's citeproc, read back as styled runs.

:func:`format_bibliography` hands pandoc one CSL-JSON bibliography and a CSL
style, in one call, so the style's sort, its year suffixes (2010a, 2010b) and
its "———" for a repeated author all happen; it reads pandoc's JSON document
back and returns each reference as :class:`~.spans.Span` runs (italic, bold;
superscripts, subscripts and small capitals as plain text), in the order the
style lists them. Links pandoc adds to URLs and DOIs are kept as their text:
the page adds its own.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, NamedTuple
from collections.abc import Sequence

from . import pandoc
from .spans import Span

_QUOTES = {"DoubleQuote": ("\u201c", "\u201d"), "SingleQuote": ("\u2018", "\u2019")}
_DOC = "---\nnocite: '@*'\n---\n"


class Formatted(NamedTuple):
    """One reference as the style writes it: its CSL id and its styled runs."""

    id: str
    runs: tuple[Span, ...]

    @property
    def text(self) -> str:
        return "".join(r.text for r in self.runs)


def format_bibliography(items: Sequence[dict], style: Path, *, locale: str | None = None,
                        numbers: bool = False) -> list[Formatted]:
    """The references of ``items`` in ``style``, in the style's bibliography order.

    ``numbers``: keep a numeric style's label ("[1]"); a page or a listing of
    groups has no citations for it to refer to, so by default it goes."""
    if not items:
        return []
    with tempfile.TemporaryDirectory(prefix="pubcli-csl-") as tmp:
        refs = os.path.join(tmp, "refs.json")
        with open(refs, "w", encoding="utf-8") as fh:
            json.dump(list(items), fh, ensure_ascii=False)
        args = ["--citeproc", "-f", "markdown", "-t", "json", "--bibliography", refs,
                "--csl", str(style), "-M", "link-bibliography=false"]
        if locale:
            args += ["-M", f"lang={locale}"]
        # a big bibliography on a busy machine: minutes, not a hang
        out = pandoc.run(args, _DOC, timeout=max(600.0, 0.5 * len(items)))
    return read_references(json.loads(out), numbers=numbers)


# pandoc >= 2.19.1 runs citeproc from a Lua filter: each unit its own bibliography (its
# own sort, year suffixes, "———" and disambiguation), all in one pandoc process
UNITS_VERSION = (2, 19, 1)
_UNITS_LUA = """\
function Pandoc(doc)
  local dir = pandoc.utils.stringify(doc.meta['pubcli-dir'])
  local n = tonumber(pandoc.utils.stringify(doc.meta['pubcli-units']))
  local out = pandoc.List()
  for i = 0, n - 1 do
    local meta = {}
    for k, v in pairs(doc.meta) do
      if k ~= 'pubcli-dir' and k ~= 'pubcli-units' then meta[k] = v end
    end
    meta.bibliography = dir .. '/u' .. i .. '.json'
    local done = pandoc.utils.citeproc(pandoc.Pandoc({}, meta))
    out:insert(pandoc.Div(done.blocks, pandoc.Attr('pubcli-unit-' .. i)))
  end
  return pandoc.Pandoc(out, doc.meta)
end
"""


def formats_units() -> bool:
    """Whether the pandoc found formats several bibliographies in one call."""
    return pandoc.find().version >= UNITS_VERSION


def format_bibliographies(units: Sequence[Sequence[dict]], style: Path, *,
                          locale: str | None = None,
                          numbers: bool = False) -> list[list[Formatted]]:
    """Each unit's references as :func:`format_bibliography` formats it alone (each
    its own bibliography), in one pandoc call (needs :func:`formats_units`)."""
    if not units:
        return []
    with tempfile.TemporaryDirectory(prefix="pubcli-csl-") as tmp:
        for n, items in enumerate(units):
            with open(os.path.join(tmp, f"u{n}.json"), "w", encoding="utf-8") as fh:
                json.dump(list(items), fh, ensure_ascii=False)
        lua = os.path.join(tmp, "units.lua")
        with open(lua, "w", encoding="utf-8") as fh:
            fh.write(_UNITS_LUA)
        args = ["-f", "markdown", "-t", "json", "--lua-filter", lua, "-M", f"csl={style}",
                "-M", "link-bibliography=false", "-M", f"pubcli-dir={tmp}",
                "-M", f"pubcli-units={len(units)}"]
        if locale:
            args += ["-M", f"lang={locale}"]
        total = sum(len(u) for u in units)
        out = pandoc.run(args, _DOC, timeout=max(600.0, 0.5 * total))
    found: dict[str, list[Formatted]] = {}
    for b in json.loads(out).get("blocks", []):
        if b.get("t") == "Div" and b["c"][0][0].startswith("pubcli-unit-"):
            found[b["c"][0][0]] = read_references({"blocks": b["c"][1]}, numbers=numbers)
    return [found.get(f"pubcli-unit-{n}", []) for n in range(len(units))]


def read_references(doc: dict, *, numbers: bool = False) -> list[Formatted]:
    """The ``ref-ID`` entries of pandoc's JSON document."""
    found: list[Formatted] = []

    def blocks(bs: list) -> None:
        for b in bs:
            if b.get("t") != "Div":
                continue
            (ident, classes, _), inner = b["c"]
            if ident.startswith("ref-") and "csl-entry" in classes:
                runs: list[Span] = []
                _blocks_to_runs(inner, runs, numbers)
                found.append(Formatted(ident[4:], _tidy(runs)))
            else:
                blocks(inner)
    blocks(doc.get("blocks", []))
    return found


def _blocks_to_runs(bs: list, out: list[Span], numbers: bool) -> None:
    for b in bs:
        t, c = b.get("t"), b.get("c")
        if t in ("Para", "Plain"):
            if out:
                out.append(Span(" "))
            _inlines(c, out, False, False, numbers)
        elif t == "Div":
            if out and not out[-1].text.endswith(" "):
                out.append(Span(" "))
            (_, classes, _), inner = c
            if "csl-left-margin" in classes and not numbers:
                continue
            _blocks_to_runs(inner, out, numbers)


def _inlines(ils: list, out: list[Span], em: bool, strong: bool, numbers: bool) -> None:
    for il in ils:
        t: str = il.get("t", "")
        c: Any = il.get("c")
        if t == "Str":
            out.append(Span(c, em, strong))
        elif t in ("Space", "SoftBreak", "LineBreak"):
            out.append(Span(" ", em, strong))
        elif t == "Emph":
            _inlines(c, out, not em, strong, numbers)  # emphasis inside emphasis: roman
        elif t == "Strong":
            _inlines(c, out, em, True, numbers)
        elif t in ("Underline", "Strikeout", "Superscript", "Subscript", "SmallCaps"):
            _inlines(c, out, em, strong, numbers)
        elif t == "Quoted":
            kind, inner = c
            left, right = _QUOTES.get(kind["t"] if isinstance(kind, dict) else kind,
                                      ("\u201c", "\u201d"))
            out.append(Span(left, em, strong))
            _inlines(inner, out, em, strong, numbers)
            out.append(Span(right, em, strong))
        elif t == "Span":
            (_, classes, _), inner = c
            if "csl-left-margin" in classes and not numbers:
                continue
            _inlines(inner, out, em, strong, numbers)
        elif t == "Link":
            _inlines(c[1], out, em, strong, numbers)
        elif t == "Code":
            out.append(Span(c[1], em, strong))
        elif t == "Math":
            out.append(Span(c[1], em, strong, math=True))
        elif t == "Cite":
            _inlines(c[1], out, em, strong, numbers)
        # RawInline, Image, Note: nothing a reference needs


def _tidy(runs: list[Span]) -> tuple[Span, ...]:
    """Merge runs of one style, one space between words, trimmed."""
    out: list[Span] = []
    for r in runs:
        text = r.text.replace("\n", " ")
        if out and not r.math and not out[-1].math and (out[-1].em, out[-1].strong) == \
                (r.em, r.strong):
            prev = out[-1].text
            if prev.endswith(" ") and text.startswith(" "):
                text = text.lstrip(" ")
            out[-1] = Span(prev + text, r.em, r.strong)
            continue
        if out and out[-1].text.endswith(" ") and text.startswith(" "):
            text = text.lstrip(" ")
        if text:
            out.append(Span(text, r.em, r.strong, r.math))
    if out and out[0].text.startswith(" "):
        out[0] = out[0]._replace(text=out[0].text.lstrip())
    if out and out[-1].text.endswith(" "):
        out[-1] = out[-1]._replace(text=out[-1].text.rstrip())
    return tuple(r for r in out if r.text)


__all__ = ["Formatted", "format_bibliographies", "format_bibliography", "formats_units",
           "read_references"]
