"""The one fold: the accent- and case-insensitive form of text that search, keys, area
names, slugs and the matcher compare ("Sørensen", "S{\\o}rensen" once read, "Sorensen"
-> "sorensen"; "Réseaux" -> "reseaux"; "Straße" -> "strasse").

A letter is decomposed (NFKD) and its combining marks dropped, and so is an accent
printed alone (a modifier symbol outside ASCII: ´ ˜ ¯); the letters Unicode does not
decompose into a base letter (ø, ł, æ, ß, đ, þ, ı...) are written out as their usual Latin
transliteration; then the text is case-folded. Only :mod:`pubcli.text` normalises Unicode.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

#: letters NFKD leaves whole, as they are written in ASCII (ß -> ss is also casefold's)
_LETTERS = {
    "ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O",
    "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "Th",
    "ı": "i", "ŋ": "ng", "Ŋ": "Ng", "ħ": "h", "Ħ": "H", "ŧ": "t", "Ŧ": "T", "ŀ": "l", "Ŀ": "L",
}


class _Unaccented(dict):
    """str.translate table: a character -> its NFKD decomposition without combining
    marks (or its transliteration), filled on first sight. Decomposition works character
    by character, so this is the decomposition of the whole string with the marks dropped."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        out = _LETTERS.get(ch)
        if out is None and code > 127 and unicodedata.category(ch) == "Sk":
            # an accent printed alone (TeX's ``\'{}``, ``\~{}``: ´ ˜ ¯ ¨ ˇ ...) is an
            # accent, not a space: "Journ´ees" folds as "Journées" (NFKD would give a space)
            out = ""
        if out is None:
            out = "".join(c for c in unicodedata.normalize("NFKD", ch)
                          if not unicodedata.combining(c))
        self[code] = out
        return out


_UNACCENTED = _Unaccented()


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Accent- and case-insensitive form for comparing: "Müller" -> "muller"."""
    if text.isascii():
        return text.casefold()
    return text.translate(_UNACCENTED).casefold()


