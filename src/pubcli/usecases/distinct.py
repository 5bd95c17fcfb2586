"""Remembered "these are not duplicates" decisions.

When a user marks two entries as distinct (``pubcli dedupe --merge``, answer
"distinct"), the pair is written to a small text file beside the library,
``<library name>.distinct.txt`` (``data/library.distinct.txt`` for the usual
``data/library.bib``), so it is kept in git with the library and never
reported again, by anyone::

    # pubcli: entries judged "not duplicates"; one pair of keys per line
    rajbhandari2020zero rajbhandari2021zerooffload

Keys are compared case-insensitively (as biber does); a ``#`` starts a comment.
The library itself is never touched for this: a ``% pubcli:`` comment inside
it would be lost by tools that rewrite .bib files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from pubcli.errors import LibraryReadError

HEADER = "# pubcli: entries judged \"not duplicates\" by `pubcli dedupe`; one pair of keys per line\n"


def distinct_path(library: str | os.PathLike[str]) -> Path:
    """``data/library.bib`` -> ``data/library.distinct.txt``."""
    p = Path(library)
    return p.with_name(p.stem + ".distinct.txt")


def _pair(a: str, b: str) -> tuple[str, str]:
    x, y = a.casefold(), b.casefold()
    return (x, y) if x <= y else (y, x)


def load(library: str | os.PathLike[str]) -> set[tuple[str, str]]:
    """The remembered pairs (case-folded, each in sorted order); empty if there is no file."""
    path = distinct_path(library)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return set()
    except (OSError, UnicodeDecodeError) as exc:
        raise LibraryReadError(f"cannot read the not-duplicates file: {exc}", path=path) from None
    pairs: set[tuple[str, str]] = set()
    for n, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        keys = body.split()
        if len(keys) != 2:
            raise LibraryReadError("expected two citation keys separated by a space "
                                   f"(got {len(keys)} words); fix or delete this line",
                                   path=path, line=n)
        pairs.add(_pair(*keys))
    return pairs


def add(library: str | os.PathLike[str], pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Remember ``pairs``; returns the ones that were new. The file is rewritten
    atomically with its old lines (and comments) kept."""
    from pubcli.store import atomic_write

    path = distinct_path(library)
    known = load(library)
    new: list[tuple[str, str]] = []
    for a, b in pairs:
        if a.casefold() == b.casefold():
            continue
        key = _pair(a, b)
        if key not in known:
            known.add(key)
            new.append((a, b) if a.casefold() <= b.casefold() else (b, a))
    if not new:
        return []
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = HEADER
    if old and not old.endswith("\n"):
        old += "\n"
    text = old + "".join(f"{a} {b}\n" for a, b in new)
    atomic_write(path, text.encode("utf-8"))
    return new
