"""What blocking found, kept across versions of a file (beside the per-entry rows of
:mod:`.entrycache`, in the derived-data cache of :mod:`pubcli.store.cache`).

Blocking is a function of the records' contents in the matcher's canonical order,
which their content digests (:func:`.entrycache.digests`) name: when a new version
of a file holds the same contents (keys renamed, entries moved, comments or spacing
edited), its candidate pairs are the version before's, read back. After an edit
the sorted passes are patched (:mod:`.windows`) from the keys of the records added
and removed. Two files: a base (every pass's sorted keys and every record's titles,
written when much has changed since the last base), and the version's own (its
digests, pairs and hits, and how its keys and records differ from the base's), so
an edit writes little. Whatever is read is checked; a file that does not fit is
ignored and blocking runs afresh.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import windows

_KIND, _BASE_KIND = "blocks", "blockbase"
_MAKER = "blocks-2"
_NONE = 0xFFFFFFFF
#: A new base is written when the keys and records changed since the last one exceed
#: this share of the records.
REBASE_SHARE = 0.02
#: a record's (title, main title, title in sorted word order)
Titles = tuple[str, str, str]
#: one pass of this version: what :func:`.windows.run` keeps, and the keys gone and
#: added since the version before (None when run afresh)
Pass = tuple[windows.Kept, windows.Change | None]
#: the passes whose keys are kept in the base (the ends' are the reversed titles')
_BASED = ("titles", "sorted", "reversed", "heads")


def _ints(data: Any) -> array:
    out = array("I")
    if not isinstance(data, bytes) or len(data) % out.itemsize:
        raise ValueError("not an array")
    out.frombytes(data)
    return out


def _strings(data: Any) -> list[str]:
    if not isinstance(data, list) or not set(map(type, data)) <= {str}:
        raise ValueError("not strings")
    return data


def _digest_list(data: Any) -> list[bytes]:
    if not isinstance(data, list) or not set(map(type, data)) <= {bytes}:
        raise ValueError("not digests")
    return data


class Before:
    """What blocking kept for the version of the library before this one."""

    def __init__(self, name: str, data: Mapping[str, Any]) -> None:
        self._name = name
        self.digests = _digest_list(data["digests"])
        n = len(self.digests)
        self._first, self._second = _ints(data["first"]), _ints(data["second"])
        if len(self._first) != len(self._second) or (
                self._second and (max(self._second) >= n
                                  or any(map(int.__ge__, self._first, self._second)))):
            raise ValueError("not pairs")
        self._hits: dict[str, tuple[bytes, bytes]] = dict(data["hits"])
        #: per pass (base keys gone, keys not in the base), of the version before
        self.delta: dict[str, tuple[list, list]] = {
            k: (list(g), list(a)) for k, (g, a) in dict(data["delta"]).items()}
        added = data["added"]  # records not in the base: digests, and their titles
        self._added: dict[bytes, Titles] = dict(zip(
            _digest_list(added[0]), zip(*map(_strings, added[1:4]), strict=True),
            strict=True))
        self.token: str = data["token"]
        if not isinstance(self.token, str):
            raise ValueError("not a token")
        self._base: dict[str, Any] | None = None

    def pairs(self) -> set[tuple[int, int]]:
        return set(zip(self._first, self._second, strict=True))

    def base(self) -> dict[str, Any]:
        """The base this version's keys were patched from ({} when it is gone)."""
        if self._base is None:
            from ..store import cache

            data = cache.read_derived(_BASE_KIND, self._name, _MAKER)
            self._base = {}
            if isinstance(data, dict) and data.get("token") == self.token:
                try:
                    keys = dict(data["keys"])
                    digests = _digest_list(data["digests"])
                    rows = [_strings(c) for c in data["rows"]]
                    if len(rows) != 3 or any(len(c) != len(digests) for c in rows) \
                            or set(keys) != set(_BASED):
                        raise ValueError("not a base")
                    self._base = {"keys": keys, "digests": digests, "rows": rows}
                except (KeyError, TypeError, ValueError):
                    pass
        return self._base

    def kept(self, name: str, kinds: tuple[type, ...], window: int) -> windows.Kept | None:
        """Pass ``name`` of the version before (checked), None when not known."""
        base, hits, delta = self.base(), self._hits.get(name), self.delta.get(name)
        if not base or not isinstance(hits, (tuple, list)) or len(hits) != 2 or delta is None:
            return None
        keys = base["keys"].get("reversed" if name == "ends" else name)
        if not isinstance(keys, list):
            return None
        if name == "ends":  # (the ends' keys are the reversed titles')
            keys = [(r, r[::-1], True) for r in keys]
        if delta[0] or delta[1]:
            keys = windows.patch(keys, *delta)
        return windows.valid((keys, hits[0], hits[1]), kinds, window)

    def let_go(self) -> None:
        """Free the base's keys (the passes are patched): only its digests stay."""
        if self._base:
            self._base = {"keys": {}, "digests": self._base["digests"], "rows": None}

    def titles_of(self, gone: Iterable[bytes]) -> list[Titles] | None:
        """The titles of the version before's records of contents ``gone``; None when
        one is not known."""
        base = self.base()
        if not base:
            return None
        wanted = set(gone) - self._added.keys()
        out = [self._added[d] for d in gone if d in self._added]
        if wanted:
            digests, (titles, mains, sorted_titles) = base["digests"], base["rows"]
            for k, d in enumerate(digests):
                if d in wanted:
                    out.append((titles[k], mains[k], sorted_titles[k]))
                    wanted.discard(d)
            if wanted:
                return None
        return out


def read(name: str) -> Before | None:
    """What was kept for the library named ``name`` (:func:`.entrycache.kept_names`;
    None when nothing fits)."""
    from ..store import cache

    data = cache.read_derived(_KIND, name, _MAKER)
    if not isinstance(data, dict):
        return None
    try:
        return Before(name, data)
    except (KeyError, TypeError, ValueError):
        return None


def changes(before: Before, digests: Sequence[bytes]) -> tuple[list[int], list[bytes]]:
    """(this version's records whose content the version before did not hold, the
    contents of the version before that this one does not hold)."""
    had, now = set(before.digests), set(digests)
    new = now - had
    return [i for i, d in enumerate(digests) if d in new] if new else [], list(had - now)


def write(name: str, digests: Sequence[bytes], pairs: Iterable[tuple[int, int]],
          passes: Mapping[str, Pass], rows: Sequence[Titles], before: Before | None) -> None:
    """Keep this version's blocking: ``digests`` (the records' content digests in
    index order), the candidate pairs, the sorted passes (:data:`Pass`), and each
    record's titles; on ``before``'s base when little changed since it."""
    from ..store import cache

    delta = _delta(before, passes, digests, rows) if before is not None else None
    if delta is None:
        token = hashlib.blake2b(b"".join(digests), digest_size=12).hexdigest()
        cache.write_derived(_BASE_KIND, name, _MAKER, {
            "token": token, "keys": {k: passes[k][0][0] for k in _BASED},
            "digests": list(digests), "rows": [list(c) for c in zip(*rows, strict=True)]
            if rows else [[], [], []]})
        delta = ({k: ([], []) for k in passes}, ([], [], [], []))
    else:
        assert before is not None
        token = before.token
    ordered = sorted(pairs)
    cache.write_derived(_KIND, name, _MAKER, {
        "token": token, "digests": list(digests),
        "first": array("I", [i for i, _ in ordered]).tobytes(),
        "second": array("I", [j for _, j in ordered]).tobytes(),
        "hits": {k: (v[0][1], v[0][2]) for k, v in passes.items()},
        "delta": delta[0], "added": delta[1]})


def _delta(before: Before, passes: Mapping[str, Pass], digests: Sequence[bytes],
           rows: Sequence[Titles]) -> tuple[dict, tuple] | None:
    """How this version's keys and records differ from ``before``'s base (None when a
    pass was run afresh, the base is gone, or much changed: a new base is due)."""
    base = before.base()
    if not base or any(p[1] is None for p in passes.values()) \
            or set(passes) != set(before.delta):
        return None
    limit = REBASE_SHARE * max(len(digests), 1)
    out: dict[str, tuple[list, list]] = {}
    size = 0
    for name, (_, change) in passes.items():
        assert change is not None
        gone_keys, new_keys = map(set, before.delta[name])
        for k in change[0]:
            if k in new_keys:
                new_keys.discard(k)
            else:
                gone_keys.add(k)
        for k in change[1]:
            if k in gone_keys:
                gone_keys.discard(k)
            else:
                new_keys.add(k)
        size += len(gone_keys) + len(new_keys)
        if size > limit:
            return None
        out[name] = (sorted(gone_keys), sorted(new_keys))
    in_base = set(base["digests"])
    added = [(d, r) for d, r in zip(digests, rows, strict=True) if d not in in_base]
    if len(added) + size > limit:
        return None
    return out, ([d for d, _ in added], [r[0] for _, r in added], [r[1] for _, r in added],
                 [r[2] for _, r in added])
