"""What the matcher keeps between commands in the derived-data cache
(:func:`pubcli.store.cache.write_derived`, keyed by the digest of the file's bytes,
the code and a ``maker`` string): the weights, candidate pairs, canonical order and
normalised titles; and the links a threshold gives, with the comparisons behind them.
Beside a version's own estimate, the weights the duplicate guard carried to a version it
wrote (:func:`write_carried`: a few titles and a reference to the estimate, not a copy).
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


_SEP = "\x00"  # between the titles kept (no BibTeX value holds it)
#: a version of a file whose own estimate is kept: (digest, maker, number of records)
Base = tuple[str, str, int]
#: the derived-data kinds: a version's own estimate, and weights a guard carried to it
WEIGHTS, CARRIED = "weights", "guard"


def read_weights(digest: str, maker: str, n: int) -> Kept | None:
    """What :func:`write_weights` kept for this version of a file of ``n`` records, or None."""
    return _read_kept(WEIGHTS, digest, maker, n)


def write_weights(digest: str, maker: str, model: Model, pairs: Iterable[tuple[int, int]],
                  order: Sequence[int], titles: list[str], mains: list[str],
                  sorted_titles: list[str]) -> None:
    from ..store import cache

    ordered = sorted(pairs)
    cache.write_derived(WEIGHTS, digest, maker, {
        "model": model.to_data(),
        "first": array("I", [i for i, _ in ordered]).tobytes(),
        "second": array("I", [j for _, j in ordered]).tobytes(),
        "order": array("I", order).tobytes(),
        # (each a string: a list of many small strings costs marshal three times as much)
        "titles": _SEP.join(titles),
        "mains": _SEP.join(mains),
        "sorted": _SEP.join(sorted_titles)})


def _read_kept(kind: str, digest: str, maker: str, n: int) -> Kept | None:
    from ..store import cache

    data = cache.read_derived(kind, digest, maker)
    if data is None:
        return None
    try:
        model = Model.from_data(data["model"])
        first, second, order = array("I"), array("I"), array("I")
        first.frombytes(data["first"])
        second.frombytes(data["second"])
        order.frombytes(data["order"])
        titles, mains, sorted_titles = (_split(data[k], n) for k in ("titles", "mains", "sorted"))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if len(first) != len(second) or (second and max(second) >= n) \
            or not _permutation(order, n) \
            or not all(_strings(x, n) for x in (titles, mains, sorted_titles)):
        return None
    return model, set(zip(first, second, strict=False)), list(order), titles, mains, sorted_titles


def read_carried(digest: str, n: int) -> tuple[Kept, Base] | None:
    """The weights a guard carried to this version of a file of ``n`` records
    (:func:`write_carried`), with the canonical order and titles of its records: those
    of the version they were estimated for (``Base``: its digest, maker and size, whose
    records come first), then those appended since; no candidate pairs (the guard
    blocks one entry at a time). None when there are none or the base is gone."""
    from ..store import cache

    data = cache.read_derived(CARRIED, digest, f"carried:{n}")
    if data is None:
        return None
    try:
        model = Model.from_data(data["model"])
        base_digest, base_maker, size = data["base"]
        titles, mains, sorted_titles = data["titles"], data["mains"], data["sorted"]
        base = (str(base_digest), str(base_maker), int(size))
    except (KeyError, TypeError, ValueError):
        return None
    if not (0 < base[2] <= n) \
            or not all(_strings(x, n - base[2]) for x in (titles, mains, sorted_titles)):
        return None
    kept = _read_kept(WEIGHTS, base[0], base[1], base[2])
    if kept is None:
        return None
    _, _, order, base_titles, base_mains, base_sorted = kept
    return (model, set(), order + list(range(base[2], n)), base_titles + titles,
            base_mains + mains, base_sorted + sorted_titles), base


def _split(joined: str, n: int) -> list[str]:
    """The ``n`` strings :func:`write_weights` joined."""
    return joined.split(_SEP) if n else []


def _permutation(order: Sequence[int], n: int) -> bool:
    """Is ``order`` the numbers 0 to n - 1, each once?"""
    return len(order) == n and (n == 0 or (max(order) < n and len(set(order)) == n))


def _strings(x: object, n: int) -> bool:
    """Is ``x`` a list of ``n`` strings?"""
    return isinstance(x, list) and len(x) == n and (n == 0 or set(map(type, x)) == {str})


def write_carried(digest: str, n: int, base: Base, model: Model, titles: list[str],
                  mains: list[str], sorted_titles: list[str]) -> None:
    """Keep ``model`` for the version ``digest`` of a file of ``n`` records: the
    records of ``base`` (a version whose own estimate is kept), then ``n - base[2]``
    appended, whose normalised, main and sorted titles are given."""
    from ..store import cache

    assert len(titles) == len(mains) == len(sorted_titles) == n - base[2]
    cache.write_derived(CARRIED, digest, f"carried:{n}", {
        "model": model.to_data(), "base": list(base), "titles": titles, "mains": mains,
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
