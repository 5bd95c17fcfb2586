"""Read-only listings from the display cache: no parse, no key index.

A listing shows what the display rows hold (:mod:`pubcli.text.display`), each row
with its entry's key and type. When the display cache holds the file's current
version, :func:`listing` makes its records from the rows alone: it does not read
the parse cache, unpack 100k records or index their keys. Their ``fields``,
``line`` and ``source`` are real all the same: the first time anything asks for
one of them (a ``--search``, ``--format json``), the parse cache (or, if it is
gone, the file) is read once for every record. So whatever a listing does, it
sees the records :func:`pubcli.store.load` would give; only what it never asks
for costs nothing.

The display cache's meta says what a listing needs beyond the rows, worked out
from the full records when the rows were written: whether any entry inherits
(``crossref``/``xdata``: then a listing resolves them, which reads fields), and
what a user should hear about the file (:meth:`Library.problems`).
"""

from __future__ import annotations

from pathlib import Path
from types import MemberDescriptorType
from collections.abc import Callable, Sequence

from pubcli import bibtex
from pubcli.schema.model import Record
from pubcli.store import cache
from pubcli.store.library import Library, Problem

_META = "listing"
# the slots of Record, beneath _Listed's properties
_FIELDS: MemberDescriptorType = Record.__dict__["fields"]
_LINE: MemberDescriptorType = Record.__dict__["line"]
_SOURCE: MemberDescriptorType = Record.__dict__["source"]


class Listing:
    """What a read-only command needs of a library: its path, its records in file order
    (each with its display row) and the problems a user should hear about.

    ``inherits`` is False when no record has ``crossref`` or ``xdata`` (so nothing is to
    be resolved), None when unknown."""

    __slots__ = ("path", "records", "inherits", "library", "_problems", "version")

    def __init__(self, path: Path | None, records: list[Record], inherits: bool | None,
                 problems: list[Problem] | None, library: Library | None = None,
                 version: tuple[str, int] | None = None) -> None:
        self.path = path
        self.records = records
        self.inherits = inherits
        self._problems = problems
        self.library = library  # the full load it was made from, if it was
        self.version = version  # (digest, size) of the file's bytes, when cached

    @classmethod
    def of(cls, library: Library, version: tuple[str, int] | None = None) -> Listing:
        """The listing of a library loaded in full (``version``: see :func:`entry_forms`)."""
        return cls(library.path, library.records, None, None, library, version)

    @property
    def problems(self) -> list[Problem]:
        if self._problems is None:
            self._problems = self.library.problems if self.library is not None else []
        return self._problems


def meta_of(library: Library, *, warnings: bool = True) -> tuple:
    """The display cache's meta for ``library``'s records (see the module's doc);
    ``warnings=False`` after a save (see :meth:`Document.problems`)."""
    records = library.records
    inherits = any("crossref" in r.fields or "xdata" in r.fields for r in records)
    problems = library.problems_now(warnings=warnings)
    return (_META, inherits, tuple((p.line, p.message, p.kind) for p in problems))


def read_listing(path: Path, digest: str, size: int, text: str) -> Listing | None:
    """The listing of the file version ``digest`` from the display cache alone, or None
    when the cache does not hold it (or holds it after too many deltas: a full load then
    writes it again)."""
    from pubcli.text.display import from_rows

    got = cache.Journal(path, ".rows").read(digest, size)
    if got is None:
        return None
    items, meta, nframes = got
    if nframes >= cache.MAX_FRAMES or not (isinstance(meta, tuple) and len(meta) == 3
                                          and meta[0] == _META):
        return None
    try:
        rows = from_rows(items)
        problems = [Problem(*p) for p in meta[2]]
    except (TypeError, ValueError):
        return None
    shelf = _Shelf(path, digest, size, text)
    new = _Listed.__new__
    records: list[_Listed] = []
    append = records.append
    for row in rows:
        rec = new(_Listed)
        rec.key = row.key
        rec.type = row.type
        rec.row = row
        rec._shelf = shelf
        append(rec)
    shelf.records = records
    return Listing(path, list[Record](records), bool(meta[1]), problems,
                   version=(digest, size))


def entry_forms(listing: Listing, kind: str, make: Callable[[Record], bytes],
                wanted: int) -> Callable[[Record], bytes]:
    """``make`` of each record a listing shows, kept beside the display cache.

    ``kind`` names the form (``"json"``: an entry as ``list --format json`` writes it) and
    the cache file it lives in; ``make`` must depend on the record alone (the caches'
    header names the code, so a change of ``make`` makes them stale). When the cache
    holds this version of the file, a warm listing reads the forms from it and builds
    none: no fields, no views. Otherwise, when ``wanted`` (how many records are to be
    shown, or more) is at least half the library, every record's form is made and kept for next time; a
    short selection is made directly. A record not of the listing (one resolved with
    what it inherits) always gets ``make`` of itself."""
    version, path, records = listing.version, listing.path, listing.records
    if version is None or path is None or not records or 2 * wanted < len(records):
        return make
    journal = cache.Journal(path, "." + kind)
    got = journal.read(*version)
    forms: list[bytes] | None = None
    if got is not None and got[1] == (_META, kind) and len(got[0]) == len(records):
        forms = got[0]
    if forms is None:
        forms = [make(r) for r in records]
        journal.write_base(*version, forms, (_META, kind))
    # the records stay alive with this function, so no other object can have their ids
    at = dict(zip(map(id, records), forms, strict=True))
    at_get = at.get

    def form(rec: Record) -> bytes:
        got = at_get(id(rec))
        return got if got is not None else make(rec)

    return form


class _Shelf:
    """Where the rows' records get their fields (all at once, the first time one is asked
    for) and then, if asked too, their lines and sources."""

    __slots__ = ("path", "digest", "size", "text", "records", "items", "newline")

    def __init__(self, path: Path, digest: str, size: int, text: str) -> None:
        self.path, self.digest, self.size, self.text = path, digest, size, text
        self.records: Sequence[_Listed] = ()
        self.items: list | None = None  # the parse cache's, once the fields are read
        self.newline = "\n"

    def fill_fields(self) -> None:
        got = cache.read_parse_items(self.path, self.digest, self.size)
        if got is None or len(got[0]) != len(self.records):
            self.fill_all()
            return
        self.items, meta, _ = got
        self.newline = meta[3]
        for rec, item in zip(self.records, self.items, strict=True):
            _FIELDS.__set__(rec, cache.fields_of(item))

    def fill_all(self) -> None:
        if self.items is None:
            got = cache.read_parse_items(self.path, self.digest, self.size)
            if got is not None and len(got[0]) == len(self.records):
                self.items, self.newline = got[0], got[1][3]
        if self.items is not None:
            full = cache.unpack_records(self.items, self.newline)
        else:
            full = bibtex.parse(self.text).records
            if len(full) != len(self.records):  # one digest, one text: cannot be, never mix
                raise RuntimeError(f"{self.path}: the file and its display cache disagree")
        for rec, src in zip(self.records, full, strict=True):
            _FIELDS.__set__(rec, src.fields)
            _LINE.__set__(rec, src.line)
            if src.source is not None:
                src.source.fields = None  # as store.load leaves them (read again on edit)
            _SOURCE.__set__(rec, src.source)
        self.records, self.items = (), None


class _Listed(Record):
    """A record made from its display row; the rest comes from its shelf when asked
    (an unset slot is what is not read yet)."""

    __slots__ = ("_shelf",)
    _shelf: _Shelf

    @property  # type: ignore[override]
    def fields(self) -> dict[str, str]:
        try:
            return _FIELDS.__get__(self)
        except AttributeError:
            self._shelf.fill_fields()
            return _FIELDS.__get__(self)

    @fields.setter
    def fields(self, value: dict[str, str]) -> None:
        _FIELDS.__set__(self, value)

    @property  # type: ignore[override]
    def line(self) -> int:
        try:
            return _LINE.__get__(self)
        except AttributeError:
            self._shelf.fill_all()
            return _LINE.__get__(self)

    @line.setter
    def line(self, value: int) -> None:
        _LINE.__set__(self, value)

    @property  # type: ignore[override]
    def source(self) -> bibtex.Source | None:
        try:
            return _SOURCE.__get__(self)
        except AttributeError:
            self._shelf.fill_all()
            return _SOURCE.__get__(self)

    @source.setter
    def source(self, value: bibtex.Source | None) -> None:
        _SOURCE.__set__(self, value)
