"""TeX math (``$...$`` in a title or abstract) as MathML, which Chromium and Firefox
render natively (MathML Core: no script, no web font, no network).

:func:`to_mathml` converts many formulas in one pandoc call (``--mathml``). A
formula pandoc cannot convert comes back as None, and the page shows its TeX.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import pandoc

_PARA = re.compile(r"<p>(.*?)</p>", re.S)
_INLINE = re.compile(r'\A<math display="inline"[^>]*>.*</math>\Z', re.S)


def body(tex: str) -> str:
    """``$x$`` / ``$$x$$`` -> ``x``, on one line."""
    t = tex.strip()
    t = t[2:-2] if t.startswith("$$") and t.endswith("$$") else \
        t[1:-1] if t.startswith("$") and t.endswith("$") else t
    return " ".join(t.split())


def to_mathml(formulas: Sequence[str]) -> list[str | None]:
    """MathML ``<math>`` elements for ``formulas`` (TeX, with or without ``$``), in order."""
    if not formulas:
        return []
    bodies = [body(f) for f in formulas]
    # each formula its own paragraph; a paragraph that is not exactly one inline
    # <math> element (pandoc gave up, or the TeX closed the math early) is None
    doc = "\n\n".join(f"\\({b}\\)" if b else "x" for b in bodies) + "\n"
    out = pandoc.run(["-f", "latex", "-t", "html", "--mathml", "--wrap=none"], doc)
    paras = [p.strip() for p in _PARA.findall(out)]
    if len(paras) != len(bodies):
        return [_one(b) for b in bodies]
    return [p if b and _INLINE.match(p) else None for b, p in zip(bodies, paras, strict=True)]


def _one(b: str) -> str | None:
    if not b:
        return None
    try:
        out = pandoc.run(["-f", "latex", "-t", "html", "--mathml", "--wrap=none"],
                         f"\\({b}\\)\n")
    except pandoc.PandocFailed:
        return None
    paras = [p.strip() for p in _PARA.findall(out)]
    return paras[0] if len(paras) == 1 and _INLINE.match(paras[0]) else None


__all__ = ["to_mathml", "body"]
