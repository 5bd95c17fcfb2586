"""Remembered "these are not duplicates" decisions (and import's "the same work").

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

The other decision, "this incoming entry is the same work as that library entry"
(``pubcli import``, a near-duplicate judged the same), is kept the same way in
``<library name>.same.txt``: the incoming entry's key (its key scheme's key when
it has none, as a listing's items) then the library entry's, one pair a line,
so a re-import skips it without asking again.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from pubcli.errors import LibraryReadError

HEADER = "# pubcli: entries judged \"not duplicates\" by `pubcli dedupe`; one pair of keys per line\n"
SAME_HEADER = ("# pubcli: imported entries judged the same work as a library entry by "
               "`pubcli import`; the imported entry's key, then the library's\n")


def distinct_path(library: str | os.PathLike[str]) -> Path:
    """``data/library.bib`` -> ``data/library.distinct.txt``."""
    p = Path(library)
    return p.with_name(p.stem + ".distinct.txt")


def _pair(a: str, b: str) -> tuple[str, str]:
    x, y = a.casefold(), b.casefold()
    return (x, y) if x <= y else (y, x)


def same_path(library: str | os.PathLike[str]) -> Path:
    """``data/library.bib`` -> ``data/library.same.txt``."""
    p = Path(library)
    return p.with_name(p.stem + ".same.txt")


def pair(a: str, b: str) -> tuple[str, str]:
    """The form :func:`load` gives a pair in: case-folded, in sorted order."""
    return _pair(a, b)


def load(library: str | os.PathLike[str]) -> set[tuple[str, str]]:
    """The remembered pairs (case-folded, each in sorted order); empty if there is no file."""
    return {_pair(a, b) for a, b in _read(distinct_path(library))}


def load_same(library: str | os.PathLike[str]) -> dict[str, str]:
    """The remembered "same work" decisions: the incoming key (case-folded) -> the
    library entry's key; empty if there is no file."""
    return {a.casefold(): b for a, b in _read(same_path(library))}


def add_same(library: str | os.PathLike[str],
             pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Remember that each (incoming key, library key) is one work; returns the new ones."""
    known = load_same(library)
    new = []
    for a, b in pairs:
        if known.get(a.casefold(), "").casefold() != b.casefold():
            known[a.casefold()] = b
            new.append((a, b))
    _append(same_path(library), SAME_HEADER, new)
    return new


def _read(path: Path) -> list[tuple[str, str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise LibraryReadError(f"cannot read the decisions file: {exc}", path=path) from None
    pairs: list[tuple[str, str]] = []
    for n, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        keys = body.split()
        if len(keys) != 2:
            raise LibraryReadError("expected two citation keys separated by a space "
                                   f"(got {len(keys)} words); fix or delete this line",
                                   path=path, line=n)
        pairs.append((keys[0], keys[1]))
    return pairs


def add(library: str | os.PathLike[str], pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Remember ``pairs``; returns the ones that were new. The file is rewritten
    atomically with its old lines (and comments) kept."""
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
    _append(path, HEADER, new)
    return new


def _append(path: Path, header: str, pairs: list[tuple[str, str]]) -> None:
    """Add ``pairs`` to the file at ``path`` (atomically, its old lines and comments
    kept; started with ``header``)."""
    from pubcli.store import atomic_write

    if not pairs:
        return
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = header
    if old and not old.endswith("\n"):
        old += "\n"
    text = old + "".join(f"{a} {b}\n" for a, b in pairs)
    atomic_write(path, text.encode("utf-8"))
