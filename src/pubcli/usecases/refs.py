"""Naming entries on the command line: the one key resolver.

Every command that takes a key (show, edit, remove, rename, tag, update, open,
dedupe --explain) asks :func:`resolve` / :func:`resolve_many`, so a key is read
the same way everywhere, in this order:

1. the exact key (a key used by several entries is refused, naming each as
   ``KEY@LINE``; real files use a key twice);
2. the key compared case-insensitively (as biber and biblatex compare keys);
3. ``KEY@LINE``: the entry of that key starting on that line (``smith2020@42``).
   A key that itself ends in ``@digits`` is looked up as a key first (step 1), so
   no key becomes unreachable;
4. a unique prefix of a key (``wang2024`` for ``wang2024zero``), as pubs accepts;
   a prefix several keys start with is refused, listing them.

A key that names nothing gets one "did you mean" (:func:`pubcli.text.similar.did_you_mean`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

from pubcli.errors import AmbiguousKey, AmbiguousPrefix, NotFound

if TYPE_CHECKING:
    from pubcli.schema.model import Record

_REF_RE = re.compile(r"^(?P<key>.+)@(?P<line>\d+)$")


def split_ref(ref: str) -> tuple[str, int | None]:
    """``"smith2020@42"`` -> ("smith2020", 42); a plain key -> (key, None)."""
    m = _REF_RE.match(ref)
    return (m.group("key"), int(m.group("line"))) if m else (ref, None)


def ref(key: str, line: int) -> str:
    """The reference of the entry ``key`` starting on ``line``."""
    return f"{key}@{line}"


class Keys:
    """An index of ``records`` by key, to resolve what a user typed (see the module doc).
    Built once per command; the case-folded index is built on the first miss only."""

    def __init__(self, records: Sequence["Record"], *, path: str | Path | None = None) -> None:
        self.records = records
        self.path = path
        self._exact: dict[str, list[Record]] = {}
        for rec in records:
            self._exact.setdefault(rec.key, []).append(rec)
        self._folded: dict[str, list[Record]] | None = None

    def _by_folded(self) -> dict[str, list["Record"]]:
        if self._folded is None:
            self._folded = {}
            for rec in self.records:
                self._folded.setdefault(rec.key.casefold(), []).append(rec)
        return self._folded

    def _same_key(self, key: str) -> list["Record"]:
        """Steps 1 and 2: the entries whose key is ``key``, exactly, else case-insensitively."""
        return self._exact.get(key) or self._by_folded().get(key.casefold(), [])

    def prefixed(self, prefix: str) -> list[str]:
        """The distinct keys that start with ``prefix`` (case-insensitively), in file order."""
        p = prefix.casefold()
        return list(dict.fromkeys(k for k in self._exact if k.casefold().startswith(p)))

    def resolve(self, text: str) -> "Record":
        """The one entry ``text`` names; raises :class:`NotFound`, :class:`AmbiguousKey`
        or :class:`AmbiguousPrefix` (each a one-line message)."""
        key, found = self._named(text)
        return self._one(key, found)

    def sharing(self, texts: Iterable[str]) -> list["Record"]:
        """Like :meth:`resolve_many`, but a key several entries use names all of them
        (for commands that treat each entry on its own, such as ``update``)."""
        out: dict[int, Record] = {}
        for text in texts:
            for rec in self._named(text)[1]:
                out.setdefault(id(rec), rec)
        return list(out.values())

    def _named(self, text: str) -> tuple[str, list["Record"]]:
        """The key ``text`` stands for and the entries that use it (all of them)."""
        found = self._same_key(text)
        if found:
            return text, found
        key, line = split_ref(text)
        if line is not None:
            return key, [self._at_line(key, line)]
        keys = self.prefixed(text) if text else []
        if len(keys) == 1:
            return keys[0], self._exact[keys[0]]
        if keys:
            raise AmbiguousPrefix(text, keys, path=self.path)
        raise NotFound(f"no entry with key '{text}'{self.hint(text)}", path=self.path)

    def resolve_many(self, texts: Iterable[str]) -> list["Record"]:
        """Each entry named once, in the order named."""
        out: dict[int, Record] = {}
        for text in texts:
            rec = self.resolve(text)
            out.setdefault(id(rec), rec)
        return list(out.values())

    def hint(self, text: str) -> str:
        """"; did you mean 'KEY'?" for the known key closest to ``text``, or ""."""
        from pubcli.text.similar import closest, did_you_mean

        return did_you_mean(closest(text, self._exact))

    def _one(self, key: str, found: list["Record"]) -> "Record":
        if len(found) > 1:
            raise AmbiguousKey(key, found, path=self.path,
                               hint="name one as " + " or ".join(ref(r.key, r.line)
                                                                  for r in found))
        return found[0]

    def _at_line(self, key: str, line: int) -> "Record":
        same = self._same_key(key)
        if not same:
            keys = self.prefixed(key)
            same = [r for k in keys for r in self._exact[k]]
            key = keys[0] if len(keys) == 1 else key
        at = [r for r in same if r.line == line]
        if len(at) == 1:
            return at[0]
        if not same:
            raise NotFound(f"no entry with key '{key}'{self.hint(key)}", path=self.path)
        lines = sorted({r.line for r in same})
        where = ", ".join(str(n) for n in lines[:-1]) + (" and " if len(lines) > 1 else "") \
            + str(lines[-1])
        raise NotFound(f"no entry '{key}' starts on line {line} "
                       f"(it is on line{'s' if len(lines) > 1 else ''} {where})", path=self.path)


def resolve(records: Sequence["Record"], text: str, *, path: str | Path | None = None) -> "Record":
    """The one entry ``text`` names in ``records`` (see the module doc)."""
    return Keys(records, path=path).resolve(text)


def resolve_many(records: Sequence["Record"], texts: Iterable[str], *,
                 path: str | Path | None = None) -> list["Record"]:
    """The entries ``texts`` name, each once, in the order named."""
    return Keys(records, path=path).resolve_many(texts)
