"""Styled runs: a LaTeX field value as :class:`Span` runs a page shows.

``\\emph{..}``/``\\textit{..}`` become emphasis, ``\\textbf{..}`` strong text and
``$...$`` math stays verbatim; the rest is Unicode text (:func:`pubcli.text.latex.to_text`).
Nothing here escapes anything: escaping belongs to the backends.
"""

from __future__ import annotations

import re
from typing import NamedTuple
from collections.abc import Iterable

from pubcli.text.latex import closing_brace, to_text


class Span(NamedTuple):
    """A run of text with one style. ``math`` text is ``$...$`` as written."""

    text: str
    em: bool = False
    strong: bool = False
    math: bool = False


_STYLE_CMDS = {"emph": "em", "textit": "em", "textsl": "em", "textbf": "strong"}
_STYLE_DECLS = {"em": "em", "it": "em", "itshape": "em", "sl": "em", "slshape": "em",
                "bf": "strong", "bfseries": "strong"}
_STYLE_HINT = re.compile(r"\\(?:emph|textit|textsl|textbf|em|it|itshape|sl|slshape|bf|bfseries)"
                         r"(?![A-Za-z])")
_MATH_AT = re.compile(r"(\$\$?)(.+?)(?<!\\)\1", re.S)
_CMD_NAME = re.compile(r"[A-Za-z]+")


def rich(value: str | None) -> tuple[Span, ...]:
    """LaTeX field value -> styled runs of Unicode text (math kept as ``$...$``)."""
    if not value:
        return ()
    if "$" not in value and ("\\" not in value or not _STYLE_HINT.search(value)):
        text = to_text(value)
        return (Span(text),) if text else ()
    out: list[Span] = []
    _parse(value, 0, len(value), False, False, out)
    return _normalize(out)


def plain(spans: Iterable[Span]) -> str:
    return "".join(s.text for s in spans)


def _flush(s: str, start: int, stop: int, em: bool, strong: bool, out: list[Span]) -> None:
    piece = s[start:stop]
    if not piece:
        return
    text = to_text(piece)
    lead = " " if piece[0].isspace() or piece[0] == "~" else ""
    trail = " " if piece[-1].isspace() or (piece[-1] == "~" and not piece.endswith("\\~")) else ""
    if text:
        out.append(Span(lead + text + trail, em, strong))
    elif lead or trail:
        out.append(Span(" ", em, strong))


def _parse(s: str, i: int, end: int, em: bool, strong: bool, out: list[Span]) -> None:
    start = i
    while i < end:
        c = s[i]
        if c == "\\":
            m = _CMD_NAME.match(s, i + 1, end)
            if not m:  # \$, \{, \\ ...: an escaped character
                i += 2
                continue
            name = m.group(0)
            j = m.end()
            style = _STYLE_CMDS.get(name)
            if style:
                k = j
                while k < end and s[k].isspace():
                    k += 1
                if k < end and s[k] == "{":
                    close = closing_brace(s, k, end)
                    if close != -1:
                        _flush(s, start, i, em, strong, out)
                        _parse(s, k + 1, close, em or style == "em",
                               strong or style == "strong", out)
                        i = start = close + 1
                        continue
            i = j
            continue
        if c == "{":
            close = closing_brace(s, i, end)
            if close == -1:
                i += 1
                continue
            inner = s[i + 1:close]
            m = re.match(r"\s*\\([A-Za-z]+)(?![A-Za-z])\s*", inner)
            decl = _STYLE_DECLS.get(m.group(1)) if m else None
            if decl and m:
                _flush(s, start, i, em, strong, out)
                _parse(s, i + 1 + m.end(), close, em or decl == "em",
                       strong or decl == "strong", out)
                i = start = close + 1
                continue
            if "$" in inner or _STYLE_HINT.search(inner):
                _flush(s, start, i, em, strong, out)
                _parse(s, i + 1, close, em, strong, out)
                i = start = close + 1
                continue
            i = close + 1  # a plain group ({ZeRO}, \'{e}): left to to_text
            continue
        if c == "$":
            m = _MATH_AT.match(s, i, end)
            if m:
                _flush(s, start, i, em, strong, out)
                out.append(Span(" ".join(m.group(0).split()), em, strong, math=True))
                i = start = m.end()
                continue
        i += 1
    _flush(s, start, end, em, strong, out)


def _normalize(spans: list[Span]) -> tuple[Span, ...]:
    """Merge runs of one style, collapse spaces across runs, trim both ends."""
    merged: list[Span] = []
    for sp in spans:
        text = sp.text
        if merged and merged[-1].text.endswith(" ") and text.startswith(" "):
            text = text[1:]
        if not text:
            continue
        prev = merged[-1] if merged else None
        if prev and not prev.math and not sp.math and (prev.em, prev.strong) == (sp.em, sp.strong):
            merged[-1] = Span(prev.text + text, sp.em, sp.strong)
        else:
            merged.append(Span(text, sp.em, sp.strong, sp.math))
    if merged and merged[0].text.startswith(" "):
        merged[0] = Span(merged[0].text.lstrip(), merged[0].em, merged[0].strong, merged[0].math)
    if merged and merged[-1].text.endswith(" "):
        last = merged[-1]
        merged[-1] = Span(last.text.rstrip(), last.em, last.strong, last.math)
    return tuple(s for s in merged if s.text)

