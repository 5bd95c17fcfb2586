"""The in-memory library: records in file order, a key index and the edit log.

A :class:`Library` is what :func:`pubcli.store.load` returns and
:func:`pubcli.store.save` writes. Change it only through :meth:`add`,
:meth:`replace` and :meth:`remove`: they keep the log the store uses to
rewrite just the entries that changed.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING
from collections.abc import Iterable, Iterator

from pubcli.errors import AmbiguousKey, NotFound, ValidationError
from pubcli.schema.model import Record

if TYPE_CHECKING:  # document.py imports Problem from here
    from pubcli.bibtex import Failed
    from pubcli.store.document import Document


class Problem:
    """Something found while loading: a block kept verbatim, a duplicate key..."""

    __slots__ = ("line", "message", "kind")

    def __init__(self, line: int, message: str, kind: str = "parse") -> None:
        self.line = line
        self.message = message
        self.kind = kind

    def __repr__(self) -> str:
        return f"Problem(line={self.line}, {self.message!r})"


def read_only_reason(rec: Record) -> str:
    """Why pubcli must not rewrite this entry's text ("" when it may): no citation key,
    a field written twice... Bulk edits pass such entries by with a warning."""
    src = rec.source
    return src.read_only if src is not None else ""


class NoDocument(RuntimeError):
    """A library made in memory was asked for the file it was read from (a bug of the
    caller: :func:`pubcli.store.load` and :func:`pubcli.store.loads` give libraries one)."""


class Library:
    """Ordered publication records read from (or destined for) one file.

    ``document`` is that file's text and details (:class:`~pubcli.store.document.Document`),
    which the store needs to write it back; a library made in memory without one has
    none to give (:class:`NoDocument`), but lists its records, problems (none) and text
    ("") all the same."""

    def __init__(self, records: Iterable[Record] = (), *, path: Path | None = None,
                 document: Document | None = None) -> None:
        self.path = path
        self._document = document
        self.records: list[Record] = list(records)
        keys = [rec.key for rec in self.records]
        # key -> its first record (reversed: the first of a repeated key is set last)
        self._index: dict[str, Record] = dict(zip(reversed(keys), reversed(self.records), strict=True))
        # casefolded key -> how many records use it
        self._folded: dict[str, int] = Counter(map(str.casefold, keys))
        self._pos: dict[int, int] | None = None   # id(record) -> index in records
        self._originals: dict[int, Record] = {}  # id(new record) -> record it replaced
        self._removed: list[Record] = []
        self._added: dict[int, Record] = {}      # id -> record, in insertion order

    # -- the file (read-only views of the store's document) ----------------------
    @property
    def document(self) -> Document:
        doc = self._document
        if doc is None:
            raise NoDocument("this library was made in memory, not read from a file: it has "
                             "no document (load it with pubcli.store.load or loads)")
        return doc

    @property
    def problems(self) -> list[Problem]:
        """What a user should hear about the file, derived from it and the records."""
        return self.problems_now()

    def problems_now(self, *, warnings: bool = True) -> list[Problem]:
        """:attr:`problems`; without BibTeX's warnings when ``warnings`` is False
        (see :meth:`Document.problems`)."""
        doc = self._document
        if doc is None:
            return []
        # (every key used once, compared case-insensitively: no duplicate keys to look for)
        return doc.problems(self.records, warnings=warnings,
                            repeated=len(self._folded) < len(self.records))

    @property
    def text(self) -> str:
        return self._document.text if self._document is not None else ""

    @property
    def bom(self) -> bool:
        return self._document is not None and self._document.bom

    @property
    def newline(self) -> str:
        return self._document.newline if self._document is not None else "\n"

    @property
    def macros(self) -> dict[str, str]:
        return self._document.macros if self._document is not None else {}

    @property
    def failed(self) -> list[Failed]:
        return self._document.failed if self._document is not None else []

    # -- reading -----------------------------------------------------------
    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records)

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def find(self, key: str) -> list[Record]:
        """Every record whose key is exactly ``key``, in file order (real files repeat keys)."""
        first = self._index.get(key)
        if first is None:
            return []
        if self._folded.get(key.casefold(), 0) == 1:
            return [first]
        return [r for r in self.records if r.key == key]

    def get(self, key: str) -> Record | None:
        """The one record with ``key``, or None; a key used twice raises :class:`AmbiguousKey`."""
        found = self.find(key)
        if len(found) > 1:
            raise AmbiguousKey(key, found, path=self.path)
        return found[0] if found else None

    def __getitem__(self, key: str) -> Record:
        rec = self.get(key)
        if rec is None:
            raise NotFound(f"no entry with key '{key}'", path=self.path)
        return rec

    def keys(self) -> list[str]:
        return [r.key for r in self.records]

    def has_key(self, key: str) -> bool:
        """Keys are compared case-insensitively, as biber and biblatex do."""
        return self._folded.get(key.casefold(), 0) > 0

    def _holds(self, rec: Record) -> bool:
        pos = self._pos
        i = -1 if pos is None else pos.get(id(rec), -1)
        if 0 <= i < len(self.records) and self.records[i] is rec:
            return True
        self._pos = {id(r): j for j, r in enumerate(self.records)}
        return id(rec) in self._pos

    def locate(self, rec: Record) -> Record | None:
        """The record in this library that is ``rec`` as it was read elsewhere (an earlier
        load of the same file): same key, same place in the file and the same content.
        None when it is gone or changed. Used to re-find records after a prompt."""
        if self._holds(rec):
            return rec
        for cand in self.find(rec.key):
            same_place = (cand.source is not None and rec.source is not None
                          and cand.source.start == rec.source.start) or cand.line == rec.line
            if same_place and cand.type == rec.type and cand.fields == rec.fields:
                return cand
        return None

    @property
    def changed(self) -> bool:
        return bool(self._originals or self._removed or self._added)

    # -- editing -----------------------------------------------------------
    def _resolve(self, target: Record | str) -> Record:
        """The record an edit applies to: by identity, or by a key used exactly once."""
        if isinstance(target, str):
            return self[target]
        if not self._holds(target):
            raise NotFound(f"the entry '{target.key}' (line {target.line}) is not in the "
                           "library", path=self.path, line=target.line or None)
        return target

    def _position(self, rec: Record) -> int:
        """Index of ``rec`` (by identity) in ``records``, in O(1) amortised."""
        pos = self._pos
        i = -1 if pos is None else pos.get(id(rec), -1)
        if not (0 <= i < len(self.records)) or self.records[i] is not rec:
            self._pos = pos = {id(r): j for j, r in enumerate(self.records)}
            i = pos[id(rec)]
        return i

    def _count_key(self, key: str, delta: int) -> None:
        folded = key.casefold()
        n = self._folded.get(folded, 0) + delta
        if n > 0:
            self._folded[folded] = n
        else:
            self._folded.pop(folded, None)

    def _unindex(self, rec: Record) -> None:
        """Drop ``rec`` (already out of ``records``) from the key index."""
        self._count_key(rec.key, -1)
        if self._index.get(rec.key) is rec:
            del self._index[rec.key]
            if self.has_key(rec.key):  # another entry with this key is now the first
                for other in self.records:
                    if other.key == rec.key and other is not rec:
                        self._index[rec.key] = other
                        break

    def _reindex(self, rec: Record) -> None:
        self._count_key(rec.key, 1)
        first = self._index.get(rec.key)
        if first is None or self._position(rec) < self._position(first):
            self._index[rec.key] = rec

    def add(self, record: Record) -> Record:
        if self.has_key(record.key):
            raise ValidationError(f"the key '{record.key}' is already in the library")
        record.source = None
        record.line = 0
        self.records.append(record)
        self._index[record.key] = record
        self._count_key(record.key, 1)
        self._added[id(record)] = record
        return record

    def replace(self, old: Record | str, new: Record) -> Record:
        """Put ``new`` in place of the entry ``old`` (the record itself, or a key used once);
        only that entry's text changes, even when another entry shares its key."""
        old = self._resolve(old)
        if new.key.casefold() != old.key.casefold() and self.has_key(new.key):
            raise ValidationError(f"the key '{new.key}' is already in the library")
        i = self._position(old)
        new.source = old.source
        new.line = old.line
        self.records[i] = new
        if self._pos is not None:
            self._pos.pop(id(old), None)
            self._pos[id(new)] = i
        self._unindex(old)
        self._reindex(new)
        if id(old) in self._added:
            del self._added[id(old)]
            self._added[id(new)] = new
        else:
            self._originals[id(new)] = self._originals.pop(id(old), old)
        return new

    def remove(self, target: Record | str) -> Record:
        """Remove the entry ``target`` (the record itself, or a key used once)."""
        rec = self._resolve(target)
        del self.records[self._position(rec)]
        self._pos = None
        self._unindex(rec)
        if id(rec) in self._added:
            del self._added[id(rec)]
        else:
            self._removed.append(self._originals.pop(id(rec), rec))
        return rec

    # -- for the store -------------------------------------------------------
    def original_of(self, rec: Record) -> Record | None:
        """The record as loaded, if ``rec`` replaced it; else None."""
        return self._originals.get(id(rec))

    def pending(self) -> tuple[list[Record], list[Record], list[Record]]:
        """(replaced records, removed records, added records)."""
        originals = self._originals
        replaced = [r for r in self.records if id(r) in originals] if originals else []
        return replaced, list(self._removed), list(self._added.values())

    def mark_saved(self) -> None:
        self._originals.clear()
        self._removed.clear()
        self._added.clear()
