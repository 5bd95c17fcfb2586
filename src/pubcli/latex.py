"""LaTeX to Unicode for display and matching (the only user of pylatexenc).

``to_text`` turns field values into what a reader should see: accents become
Unicode (``M{\\"u}ller`` -> "Müller"), case-protecting braces disappear,
``--`` becomes an en dash, ``~`` a no-break space. Math (``$...$``) is kept
verbatim so that a page can hand it to KaTeX or MathJax. Values without any
LaTeX take a fast path that never touches pylatexenc.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

_MATH_RE = re.compile(r"(?<!\\)(\$\$?)(.+?)(?<!\\)\1", re.S)
_WS_RE = re.compile(r"\s+")
_BARE_AMP_RE = re.compile(r"(?<!\\)&")


@lru_cache(maxsize=1)
def _converter():
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="verbatim", strict_latex_spaces=False,
                           keep_braced_groups=False)


def _plain(s: str) -> str:
    s = s.replace("{", "").replace("}", "")
    if "-" in s:
        s = s.replace("---", "\u2014").replace("--", "\u2013")
    if "~" in s:
        s = s.replace("~", "\u00a0")
    return s


@lru_cache(maxsize=65536)
def to_text(value: str) -> str:
    """Unicode text for a LaTeX field value (math kept as ``$...$``)."""
    if not value:
        return ""
    if "\\" not in value and "$" not in value:
        out = _plain(value)
    else:
        parts = []
        pos = 0
        for m in _MATH_RE.finditer(value):
            parts.append(_convert(value[pos:m.start()]))
            parts.append(m.group(0))
            pos = m.end()
        parts.append(_convert(value[pos:]))
        out = "".join(parts)
    if "&" in out and ";" in out:  # HTML entities from web exports: "TNF-&alpha;"
        out = html.unescape(out)
    return _WS_RE.sub(" ", out).strip()


def _convert(s: str) -> str:
    if not s:
        return ""
    if "\\" not in s:
        return _plain(s)
    s = _BARE_AMP_RE.sub(r"\\&", s)  # a bare & in a .bib field is text, not a column
    try:
        return _converter().latex_to_text(s)
    except Exception:  # pylatexenc is tolerant; on a surprise, show the source  # noqa: BLE001
        return _plain(s)


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Accent- and case-insensitive form for searching: "Müller" -> "muller"."""
    if text.isascii():
        return text.casefold()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
