"""What blocking reads of each record, kept per entry text (beside the parse cache, in
the derived-data cache of :mod:`pubcli.store.cache`).

The weights cache is keyed by the digest of the whole file, so every edit makes it
stale; the blocking rows (:data:`.blocking.Row`: normalised titles, identifiers, page
keys) are a function of one entry's content alone, so after an edit only the changed
entries' rows are made again. Rows are looked up by a digest of the entry's content
(:func:`.matcher.content_text`: type and fields, not the key); the file holding them is
named after the library's first keys and the order of magnitude of its size (a hint of
which library it is; a wrong guess only finds fewer rows), so a few libraries keep theirs side by side.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from .blocking import Row

#: Below this many records, making the rows is about as quick as reading them.
MIN_RECORDS = 500
_KIND = "entries"
_MAKER = "rows-1"


def library_name(keys: Sequence[str]) -> str:
    # (and the size's order of magnitude, in powers of two: two generated libraries
    # of one generator start with the same keys)
    text = "\n".join(keys[:64]) + f"\n{len(keys).bit_length()}"
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def digests(texts: Sequence[str]) -> list[bytes]:
    """The lookup key of each entry's content text."""
    b2 = hashlib.blake2b
    return [b2(t.encode("utf-8", "surrogatepass"), digest_size=16).digest() for t in texts]


def read(keys: Sequence[str], wanted: Sequence[bytes]) -> list[Row | None]:
    """The kept rows of the entries whose content digests are ``wanted`` (None where
    none is kept); ``keys``: the library's citation keys in file order."""
    from ..store import cache

    data = cache.read_derived(_KIND, library_name(keys), _MAKER)
    try:
        blob, columns = data  # type: ignore[misc]
        n = len(blob) // 16
        if not isinstance(blob, bytes) or len(columns) != 8 or any(
                len(c) != n or not set(map(type, c)) <= {str} for c in columns):
            raise ValueError("not rows")
    except (TypeError, ValueError):
        return [None] * len(wanted)
    at = dict(zip([blob[k:k + 16] for k in range(0, 16 * n, 16)], range(n), strict=True))
    rows: list[Row] = list(zip(*columns, strict=True))
    get = at.get
    return [None if (k := get(d)) is None else rows[k] for d in wanted]


def write(keys: Sequence[str], got: Sequence[bytes], rows: Sequence[Row]) -> None:
    """Keep the rows of this version of the library (``got``: their content digests)."""
    from ..store import cache

    cache.write_derived(_KIND, library_name(keys), _MAKER,
                        (b"".join(got), [list(c) for c in zip(*rows, strict=True)]))


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
