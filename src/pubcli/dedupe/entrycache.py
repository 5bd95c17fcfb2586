"""What blocking reads of each record, kept per entry text (beside the parse cache, in
the derived-data cache of :mod:`pubcli.store.cache`).

The weights cache is keyed by the digest of the whole file, so every edit makes it
stale; the blocking rows (:data:`.blocking.Row`: normalised titles, identifiers, page
keys) are a function of one entry's content alone, so after an edit only the changed
entries' rows are made again. Rows are looked up by a digest of the entry's content
(:func:`.matcher.content_text`: type and fields, not the key); the file holding them is
named after the library's contents (:func:`library_names`: its few smallest content
digests), so different libraries, even of one generator or with the same first keys,
keep theirs side by side instead of evicting each other, and renaming keys or
reordering the file keeps the name. An edit that touches one of those few entries
renames the file: a second name, of the few largest digests, then leads to the file
kept under the old one (an alias), so only an edit touching both finds no row.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Callable, Sequence

from .blocking import Row

#: Below this many records, making the rows is about as quick as reading them.
MIN_RECORDS = 500
_KIND = "entries"
_MAKER = "rows-2"
_COLUMNS = 8  # (the fields of a Row)
_SEP = "\x00"  # between the values of a column (no BibTeX value holds it)


#: How many of the smallest (largest) content digests name a library's file (its alias).
NAME_DIGESTS = 3
_ALIAS_KIND, _ALIAS_MAKER = "library", "alias-1"


def library_names(got: Sequence[bytes]) -> tuple[str, str]:
    """The name of the file kept for the library whose entries' content digests
    (:func:`digests`) are ``got``, and of its alias: digests of its
    :data:`NAME_DIGESTS` smallest and largest, functions of the contents alone (not
    the keys, the order or the size)."""
    b2 = hashlib.blake2b
    return (b2(b"".join(heapq.nsmallest(NAME_DIGESTS, got)), digest_size=12).hexdigest(),
            b2(b"".join(heapq.nlargest(NAME_DIGESTS, got)), digest_size=12).hexdigest())


def kept_names(got: Sequence[bytes]) -> tuple[str, ...]:
    """Where what was kept for the library of ``got`` may be: its name
    (:func:`library_names`), then the name its alias leads to (the name before an edit).
    Asked once, before this run writes anything."""
    from ..store import cache

    name, alias = library_names(got)
    old = cache.read_derived(_ALIAS_KIND, alias, _ALIAS_MAKER)
    return (name, old) if isinstance(old, str) and old != name else (name,)


def read_named(kind: str, maker: str, names: Sequence[str]) -> object | None:
    """What was kept of ``kind`` under the first of ``names`` (:func:`kept_names`) that
    holds any."""
    from ..store import cache

    for name in names:
        data = cache.read_derived(kind, name, maker)
        if data is not None:
            return data
    return None


def write_named(kind: str, maker: str, got: Sequence[bytes], payload: object, *,
                alias: bool = True) -> None:
    """Keep ``payload`` of ``kind`` for the library of ``got``, and (``alias``) the
    alias that leads to it."""
    from ..store import cache

    name, second = library_names(got)
    if cache.write_derived(kind, name, maker, payload) and alias:
        cache.write_derived(_ALIAS_KIND, second, _ALIAS_MAKER, name)


def digests(texts: Sequence[str]) -> list[bytes]:
    """The lookup key of each entry's content text."""
    b2 = hashlib.blake2b
    return [b2(t.encode("utf-8", "surrogatepass"), digest_size=16).digest() for t in texts]


def read(wanted: Sequence[bytes], names: Sequence[str] | None = None) -> list[Row | None]:
    """The kept rows of the entries whose content digests are ``wanted`` (a library's
    entries: its file is named by them, ``names`` from :func:`kept_names`), None where
    none is kept."""
    data = read_named(_KIND, _MAKER, kept_names(wanted) if names is None else names)
    try:
        if not isinstance(data, tuple) or len(data) != 2:
            raise ValueError("not rows")
        blob, joined = data
        if not isinstance(blob, bytes) or not isinstance(joined, list) \
                or len(joined) != _COLUMNS or not all(isinstance(c, str) for c in joined):
            raise ValueError("not rows")
        n = len(blob) // 16
        columns = [c.split(_SEP) if n else [] for c in joined]
        if any(len(c) != n for c in columns):
            raise ValueError("not rows")
    except (TypeError, ValueError):
        return [None] * len(wanted)
    at = dict(zip([blob[k:k + 16] for k in range(0, 16 * n, 16)], range(n), strict=True))
    rows: list[Row] = list(zip(*columns, strict=True))
    get = at.get
    return [None if (k := get(d)) is None else rows[k] for d in wanted]


def write(got: Sequence[bytes], rows: Sequence[Row]) -> None:
    """Keep the rows of this version of the library (``got``: their content digests):
    each column one string (a list of many small strings costs marshal three times
    as much to write, its references checked one by one)."""
    columns = [_SEP.join(c) for c in zip(*rows, strict=True)] if rows else [""] * _COLUMNS
    write_named(_KIND, _MAKER, got, (b"".join(got), columns))


def sample(pairs: Sequence[tuple[int, int]], share: float, known: Sequence[bytes] | None,
           text: Callable[[int], str]) -> list[tuple[int, int]]:
    """Each pair drawn with probability ``share`` by a hash of its two records'
    contents (``known[i]``, their :func:`digests`, or else of ``text(i)``): the same
    pairs in every run, whatever the order, the keys or the rest of the library, and a
    sample that changes smoothly as the library grows (no step at any size)."""
    made: dict[int, bytes] = {}

    def digest(i: int) -> bytes:
        if known is not None:
            return known[i]
        d = made.get(i)
        if d is None:
            d = made[i] = digests([text(i)])[0]
        return d

    cut = int(share * 2 ** 64)
    b2 = hashlib.blake2b
    return [(i, j) for i, j in pairs
            if int.from_bytes(b2(digest(i) + digest(j), digest_size=8).digest()) < cut]
