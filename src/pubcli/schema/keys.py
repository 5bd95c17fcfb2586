"""Citation keys: one documented scheme, unique in the library, never recomputed.

The scheme (``data/library.bib`` follows it)::

    <first author's last name><year><first significant title word>

all lower-case ASCII: accents are folded ("Müller" -> "muller", "ø" -> "o"),
LaTeX is read first (``M{\\"u}ller``), and everything that is not a letter or a
digit is dropped ("Yazdani Aminabadi" -> "yazdaniaminabadi", "{Phi-3}" ->
"phi3", "{ZeRO}++" -> "zero"). Title words are split on white space; the
leading words *a, an, the, on, of, in, for, to, and, with, at, by, from, via*
are skipped. Without an author the first editor is used; a missing part is
left out ("wang2024" for an untitled entry, "2024zero" without any name).

A key already taken (keys compare case-insensitively, as biber does) gets
``a``, ``b``, ... ``z``, ``aa``, ``ab``... appended. Keys of existing entries
are never recomputed: only new entries get one.
"""

from __future__ import annotations

import re
from typing import Iterable

from pubcli.text.fold import fold
from pubcli.text.latex import to_text
from pubcli.schema.model import Record
from pubcli.schema.names import parse_name, split_authors

SKIP_WORDS = frozenset({"a", "an", "the", "on", "of", "in", "for", "to", "and", "with", "at",
                        "by", "from", "via"})

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
FALLBACK_KEY = "entry"


def split_keys(value: str | None) -> list[str]:
    """A comma list of citation keys, as ``crossref``, ``xdata``, ``ids`` and ``related``
    hold them ("a, b,,c " -> ["a", "b", "c"]): the one reading of such a field."""
    return [k.strip() for k in value.split(",") if k.strip()] if value else []


def ascii_fold(text: str) -> str:
    """Lower-case ASCII letters and digits only: "Müller-Lüdenscheidt" -> "mullerludenscheidt"."""
    return _NON_ALNUM.sub("", fold(text))


def _last_name(rec: Record) -> str:
    for field in ("author", "editor"):
        names = split_authors(rec.fields.get(field))
        if names and names[0].lower() != "others":
            name = parse_name(names[0])
            return ascii_fold(" ".join(p for p in (name.von, name.last) if p))
    return ""


def _title_word(title: str) -> str:
    words = [ascii_fold(w) for w in to_text(title).split()]
    words = [w for w in words if w]
    for w in words:
        if w not in SKIP_WORDS:
            return w
    return words[0] if words else ""


def base_key(rec: Record) -> str:
    """The scheme's key for ``rec`` before any suffix ("wang2024zero")."""
    year = rec.year
    key = _last_name(rec) + (str(year) if year else "") + _title_word(rec.title)
    return key or FALLBACK_KEY


def _suffixes() -> Iterable[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    for a in letters:
        yield a
    for a in letters:
        for b in letters:
            yield a + b
    n = 1
    while True:  # 702 clashes on one base key would be odd, but never fail
        yield str(n)
        n += 1


def unique_key(base: str, taken: set[str]) -> str:
    """``base``, or ``base`` plus the first free suffix. ``taken`` holds casefolded keys."""
    if base.casefold() not in taken:
        return base
    for suffix in _suffixes():
        candidate = base + suffix
        if candidate.casefold() not in taken:
            return candidate
    raise AssertionError("unreachable")  # pragma: no cover


def taken_keys(records: Iterable[Record]) -> set[str]:
    """The casefolded keys of ``records``, for :func:`unique_key`."""
    return {r.key.casefold() for r in records}


def make_key(rec: Record, taken: set[str]) -> str:
    """A new key for ``rec`` that is not in ``taken`` (casefolded keys); the caller adds
    it to ``taken`` when it keeps it."""
    return unique_key(base_key(rec), taken)
