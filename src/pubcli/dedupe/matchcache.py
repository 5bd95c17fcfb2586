"""What the matcher keeps between commands in the derived-data cache
(:func:`pubcli.store.cache.write_derived`, keyed by the digest of the file's bytes,
the code and a ``maker`` string): the weights, candidate pairs, canonical order and
normalised titles; and the links a threshold gives, with the comparisons behind them.
Everything read is checked: a cache file that does not fit is ignored."""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable, Sequence

from .evidence import Comparison
from .levels import FIELDS
from .vetoes import Veto, VetoKind
from .weights import Model

#: (the weights, the candidate pairs, the canonical order, the normalised titles, main
#: titles and sorted titles in that order)
Kept = tuple[Model, set[tuple[int, int]], list[int], list[str], list[str], list[str]]


def read_weights(digest: str, maker: str, n: int) -> Kept | None:
    """What :func:`write_weights` kept for this version of a file of ``n`` records, or None."""
    from ..store import cache

    data = cache.read_derived("weights", digest, maker)
    if data is None:
        return None
    try:
        model = Model.from_data(data["model"])
        first, second, order = array("I"), array("I"), array("I")
        first.frombytes(data["first"])
        second.frombytes(data["second"])
        order.frombytes(data["order"])
        titles, mains, sorted_titles = data["titles"], data["mains"], data["sorted"]
    except (KeyError, TypeError, ValueError):
        return None
    if len(first) != len(second) or any(j >= n for j in second) \
            or sorted(order) != list(range(n)) or not isinstance(titles, list) \
            or len(titles) != n or not all(isinstance(t, str) for t in titles) \
            or any(not isinstance(x, list) or len(x) != n
                   or not all(isinstance(t, str) for t in x) for x in (mains, sorted_titles)):
        return None
    return model, set(zip(first, second, strict=False)), list(order), titles, mains, sorted_titles


def write_weights(digest: str, maker: str, model: Model, pairs: Iterable[tuple[int, int]],
                  order: Sequence[int], titles: list[str], mains: list[str],
                  sorted_titles: list[str]) -> None:
    from ..store import cache

    ordered = sorted(pairs)
    cache.write_derived("weights", digest, maker, {
        "model": model.to_data(),
        "first": array("I", [i for i, _ in ordered]).tobytes(),
        "second": array("I", [j for _, j in ordered]).tobytes(),
        "order": array("I", order).tobytes(),
        "titles": titles,
        "mains": mains,
        "sorted": sorted_titles})


def links_maker(maker: str, threshold: float, skip: set[tuple[str, str]]) -> str:
    """What the links depend on beyond the file's bytes: the threshold and the
    pairs marked as not duplicates."""
    marked = hashlib.blake2b("\n".join(sorted(f"{a}\t{b}" for a, b in skip)).encode(),
                             digest_size=10).hexdigest()
    return f"{maker}:{threshold!r}:{marked}"


def read_links(digest: str, maker: str, n: int
               ) -> tuple[list[tuple[int, int]], dict[tuple[int, int], Comparison]] | None:
    """The links kept for this version of a file of ``n`` records (``maker`` from
    :func:`links_maker`), and the comparisons they and their groups were judged by."""
    from ..store import cache

    data = cache.read_derived("links", digest, maker)
    if data is None:
        return None
    try:
        links = [(int(i), int(j)) for i, j in data["links"]]
        comparisons = {}
        for i, j, levels, shown, score, key, vetoes in data["comparisons"]:
            if not (0 <= i < j < n) or len(levels) != len(FIELDS) \
                    or len(shown) != len(FIELDS):
                return None
            comparisons[(i, j)] = Comparison(
                tuple(levels), tuple(shown),
                tuple(Veto(VetoKind[kind], text) for kind, text in vetoes), score, key)
    except (KeyError, TypeError, ValueError):
        return None
    if not all(p in comparisons for p in links):
        return None
    return links, comparisons


def write_links(digest: str, maker: str, links: list[tuple[int, int]],
                compared: Iterable[tuple[tuple[int, int], Comparison]]) -> None:
    from ..store import cache

    rows = []
    for pair, cmp in compared:
        rows.append((pair[0], pair[1], tuple(map(int, cmp.levels)), cmp.shown,
                     cmp.title_score, cmp.title_key,
                     tuple((v.kind.name, v.text) for v in cmp.vetoes)))
    cache.write_derived("links", digest, maker, {"links": links, "comparisons": rows})
