"""Pair comparisons (and the cheap tests that ruled pairs out) kept across versions
of a file, per pair of entry texts.

A comparison (:func:`.evidence.compare`) is a function of the two entries' contents
and of what the library says about their titles: whether each title is common there
(:meth:`.matcher.Matcher._common`) and whether it starts a series of titles
(:meth:`.blocking.Index.series`). Keyed by the two entries' content digests
(:mod:`.entrycache`) and those two flags of each, a comparison made for one version
of a file holds for the next: after an edit only the pairs it touches are compared
again. Kept beside the per-entry rows, in the derived-data cache of
:mod:`pubcli.store.cache`; whatever is read is checked, and a row that does not fit
is compared afresh.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .entrycache import read_named, write_named
from .evidence import Comparison
from .levels import FIELDS
from .vetoes import Veto, VetoKind

_KIND = "pairs"
_MAKER = "pairs-1"
_NFIELDS = len(FIELDS)


def read(names: Sequence[str]) -> dict[bytes, tuple]:
    """The kept comparisons (key -> row, see :func:`comparison`) of a library, under
    the names :func:`.entrycache.kept_names` gives."""
    data = read_named(_KIND, _MAKER, names)
    return data if isinstance(data, dict) else {}


def row(cmp: Comparison) -> tuple:
    return (tuple(map(int, cmp.levels)), cmp.shown, float(cmp.title_score), cmp.title_key,
            tuple((v.kind.name, v.text) for v in cmp.vetoes))


def comparison(kept: tuple) -> Comparison | None:
    """The comparison a kept row holds, None when it is not one."""
    try:
        levels, shown, score, key, vetoes = kept
        if len(levels) != _NFIELDS or len(shown) != _NFIELDS \
                or not all(type(x) is int for x in levels) \
                or not all(type(x) is str for x in shown) \
                or type(score) is not float or type(key) is not str:
            return None
        return Comparison(levels, shown, tuple(Veto(VetoKind[kind], text)
                                               for kind, text in vetoes), score, key)
    except (TypeError, ValueError, KeyError):
        return None


def quick(kept: tuple, cheap_fields: int) -> tuple[tuple[int, ...], tuple | None] | None:
    """A kept cheap test ("q", cheap levels, title (level, score, shown) or None, the
    other title level, the shared title, content words) as (cheap levels, (title, other
    level, shared title, words) or None); None when it is not one."""
    try:
        tag, cheap, title, alt, key, words = kept
        if tag != "q" or len(cheap) != cheap_fields or not all(type(x) is int for x in cheap) \
                or type(alt) is not int or type(key) is not str or type(words) is not int:
            return None
        if title is None:
            return tuple(cheap), None
        level, score, shown = title
        if type(level) is not int or type(score) is not float or type(shown) is not str:
            return None
        return tuple(cheap), ((level, score, shown), alt, key, words)
    except (TypeError, ValueError):
        return None


def write(got: Sequence[bytes], rows: Iterable[tuple[bytes, tuple]]) -> None:
    """Keep the comparisons of this version of the library (``got``: its entries'
    content digests; key -> :func:`row`)."""
    write_named(_KIND, _MAKER, got, dict(rows), alias=False)
