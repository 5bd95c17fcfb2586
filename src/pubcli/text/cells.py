"""How many terminal columns a text takes (the only width rule: wrapping asks it).

East Asian wide and full-width characters take two columns; combining marks and
format characters (zero-width joiners, soft hyphens) none; everything else one.
"""

from __future__ import annotations

import unicodedata


def cells(text: str) -> int:
    """How many terminal columns ``text`` takes."""
    if text.isascii():
        return len(text)
    n = 0
    for c in text:
        if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf"):
            continue
        n += 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1
    return n


__all__ = ["cells"]
