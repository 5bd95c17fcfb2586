"""The in-memory library: records in file order, a key index and the edit log.

A :class:`Library` is what :func:`pubcli.store.load` returns and
:func:`pubcli.store.save` writes. Change it only through :meth:`add`,
:meth:`replace` and :meth:`remove`: they keep the log the store uses to
rewrite just the entries that changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

from .errors import NotFound, ValidationError
from .model import Record


class Problem:
    """Something found while loading: a block kept verbatim, a duplicate key..."""

    __slots__ = ("line", "message", "kind")

    def __init__(self, line: int, message: str, kind: str = "parse") -> None:
        self.line = line
        self.message = message
        self.kind = kind

    def __repr__(self) -> str:
        return f"Problem(line={self.line}, {self.message!r})"


class Library:
    """Ordered publication records read from (or destined for) one file."""

    def __init__(self, records: Iterable[Record] = (), *, path: Path | None = None,
                 text: str = "", bom: bool = False, newline: str = "\n",
                 macros: dict[str, str] | None = None, problems: list[Problem] | None = None,
                 failed: list | None = None) -> None:
        self.path = path
        self.text = text            # the document as read (without BOM)
        self.bom = bom
        self.newline = newline
        self.macros = macros or {}
        self.problems = problems or []
        self.failed = failed or []  # blocks kept verbatim (bibtex.Failed)
        self.records: list[Record] = list(records)
        self._index: dict[str, Record] = {}
        for rec in self.records:
            self._index.setdefault(rec.key, rec)
        self._originals: dict[int, Record] = {}  # id(new record) -> record it replaced
        self._removed: list[Record] = []
        self._added: list[Record] = []

    # -- reading -----------------------------------------------------------
    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records)

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def get(self, key: str) -> Record | None:
        return self._index.get(key)

    def __getitem__(self, key: str) -> Record:
        rec = self._index.get(key)
        if rec is None:
            raise NotFound(f"no entry with key '{key}'", path=self.path)
        return rec

    def keys(self) -> list[str]:
        return [r.key for r in self.records]

    def has_key(self, key: str) -> bool:
        """Keys are compared case-insensitively, as biber and biblatex do."""
        folded = key.casefold()
        return any(k.casefold() == folded for k in self._index) if key not in self._index \
            else True

    @property
    def changed(self) -> bool:
        return bool(self._originals or self._removed or self._added)

    # -- editing -----------------------------------------------------------
    def add(self, record: Record) -> Record:
        if self.has_key(record.key):
            raise ValidationError(f"the key '{record.key}' is already in the library")
        record.source = None
        record.line = 0
        self.records.append(record)
        self._index[record.key] = record
        self._added.append(record)
        return record

    def replace(self, old_key: str, new: Record) -> Record:
        """Put ``new`` in place of the entry ``old_key``; only that entry's text changes."""
        old = self[old_key]
        if new.key != old_key and self.has_key(new.key):
            raise ValidationError(f"the key '{new.key}' is already in the library")
        i = self.records.index(old)
        new.source = old.source
        new.line = old.line
        self.records[i] = new
        del self._index[old_key]
        self._index[new.key] = new
        if old in self._added:
            self._added[self._added.index(old)] = new
        else:
            self._originals[id(new)] = self._originals.pop(id(old), old)
        return new

    def remove(self, key: str) -> Record:
        rec = self[key]
        self.records.remove(rec)
        del self._index[key]
        for other in self.records:  # a duplicate key may now be reachable
            if other.key == key:
                self._index[key] = other
                break
        if rec in self._added:
            self._added.remove(rec)
        else:
            self._removed.append(self._originals.pop(id(rec), rec))
        return rec

    # -- for the store -------------------------------------------------------
    def original_of(self, rec: Record) -> Record | None:
        """The record as loaded, if ``rec`` replaced it; else None."""
        return self._originals.get(id(rec))

    def pending(self) -> tuple[list[Record], list[Record], list[Record]]:
        """(replaced records, removed records, added records)."""
        replaced = [r for r in self.records if id(r) in self._originals]
        return replaced, list(self._removed), list(self._added)

    def mark_saved(self) -> None:
        self._originals.clear()
        self._removed.clear()
        self._added.clear()
