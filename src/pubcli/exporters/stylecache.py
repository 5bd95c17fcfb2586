"""The cache of references formatted in a citation style (:mod:`.cslstyle`).

One file per style in pubcli's private cache folder (``cite-<style digest>.marshal``:
two checksummed frames, :func:`pubcli.store.cache.frame`): what made it (the style,
the locale, the pandoc binary, the code that maps records and reads pandoc's answer,
the cache's layout), then the formatted units, each under the digest of the CSL-JSON
it was made from: ``{key: [(id, before, title, after, names_end), ...]}``, a
reference's runs cut at its title (:class:`~.cite.Split`), formulas as their TeX.
A file made by anything else, damaged, or writable by others is not read.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import PubcliError
from .cite import Split, split_cite
from .cslmarkup import MARKS, MATH0
from .spans import Span

LAYOUT = 1  # bumped when what the cache file holds changes shape


def digest(obj: object) -> str:
    """A short digest of ``repr(obj)`` (strings, numbers, tuples, lists, dicts)."""
    return hashlib.blake2b(repr(obj).encode("utf-8", "surrogatepass"),
                           digest_size=16).hexdigest()


@dataclass
class StyleCache:
    path: Path | None
    key: str = ""  # what made the file
    units: dict[str, list] = field(default_factory=dict)
    dirty: bool = False
    used: set[str] = field(default_factory=set)

    @classmethod
    def load(cls, style_digest: str, made_by: tuple) -> StyleCache:
        """The cache of the style ``style_digest``, if ``made_by`` (and this code) made
        it; else an empty one that :meth:`save` writes there. None: no cache."""
        from pubcli.local import cachedir
        from ..store import cache as store_cache

        if cachedir.disabled():
            return cls(None)
        key = digest((LAYOUT, made_by, _code_digest()))
        path = cachedir.cache_dir() / f"cite-{style_digest[:20]}.marshal"
        cache = cls(path, key)
        if not (cachedir.private(path.parent, is_dir=True) and
                cachedir.private(path, is_dir=False)):
            return cache
        try:
            objs = store_cache.frames(path.read_bytes())
        except OSError:
            return cache
        if len(objs) == 2 and objs[0] == key and isinstance(objs[1], dict):
            cache.units = objs[1]
        return cache

    def pruned(self) -> dict[str, list]:
        """What to write back: everything, unless stale units (of entries since changed)
        outnumber the live ones; then only those used this run."""
        if len(self.units) > 2 * len(self.used) + 200:
            return {k: v for k, v in self.units.items() if k in self.used}
        return self.units

    def save(self) -> None:
        """Write the file if new units were formatted (a failure costs time only)."""
        from pubcli.local import cachedir
        from ..store import atomic_write
        from ..store import cache as store_cache

        if self.path is None or not self.dirty:
            return
        data = store_cache.frame(self.key) + store_cache.frame(self.pruned())
        try:
            if cachedir.make_private_dir() is None:
                return
            atomic_write(self.path, data)
            self.dirty = False
        except (OSError, PubcliError):
            pass


def stored(ident: str, runs: Sequence[Span], it: dict, math: list[str]) -> tuple:
    """A formatted reference as the cache keeps it: (id, the runs before its title, the
    title's, after it (formulas as their TeX), where its names may end)."""
    cut = split_cite(_unmark(list(runs), math), _title_text(it.get("title", ""), math))
    return (ident, *(tuple(tuple(r) for r in part) for part in cut[:3]), cut.names_end)


def split(kept: Sequence) -> Split:
    """A reference :func:`stored` keeps (its id left out) as a :class:`~.cite.Split`."""
    before, title, after, names_end = kept
    make = Span._make
    return Split(tuple(map(make, before)), tuple(map(make, title)), tuple(map(make, after)),
                 names_end)


_CODE: list[str] = []


def _code_digest() -> str:
    """The digest of the code that maps records and reads pandoc's answer."""
    if not _CODE:
        h = hashlib.sha256()
        for name in ("csl.py", "csltables.py", "cslmarkup.py", "citeproc.py", "cslstyle.py",
                     "stylecache.py", "cite.py", "spans.py"):
            h.update((Path(__file__).resolve().parent / name).read_bytes())
        _CODE.append(h.hexdigest()[:16])
    return _CODE[0]


def _unmark(runs: list[Span], math: list[str]) -> list[Span]:
    """Math placeholders back to math runs holding their TeX."""
    out: list[Span] = []
    for r in runs:
        if not MARKS.search(r.text):
            out.append(r)
            continue
        pos = 0
        for m in MARKS.finditer(r.text):
            if m.start() > pos:
                out.append(r._replace(text=r.text[pos:m.start()]))
            n = ord(m.group(0)) - MATH0
            if 0 <= n < len(math):
                out.append(Span(math[n], r.em, r.strong, math=True))
            pos = m.end()
        if pos < len(r.text):
            out.append(r._replace(text=r.text[pos:]))
    return out


def _title_text(title: str, math: list[str]) -> str:
    """The plain text of an item's CSL title, formulas as their TeX."""
    text = re.sub(r"<[^>]+>", "", title)
    return MARKS.sub(lambda m: math[ord(m.group(0)) - MATH0]
                      if 0 <= ord(m.group(0)) - MATH0 < len(math) else "", text)


__all__ = ["LAYOUT", "StyleCache", "digest", "split", "stored"]
