"""Display rows: what listings and pages show of a record, computed once.

A :class:`Row` holds the entry's key and type, its title and venue as Unicode
text, its authors (or editors) as written and as shown, and the values
:class:`pubcli.schema.model.Record` derives from its fields (which it reads from the
row when there is one). Together they are everything a listing shows of an
entry, so a read-only listing can run from the rows alone
(:func:`pubcli.store.listing`).

The store keeps rows in a cache beside its parse cache (keyed the same way, by
the file's bytes) and sets ``record.row`` on load; after a save it recomputes
only the rows of the entries that changed. :func:`row_of` computes a missing
row and remembers it on the record. The cache holds rows as plain tuples
(marshal stores no tuple subclass): :func:`to_rows` and :func:`from_rows` are the
two sides of that boundary.
"""

from __future__ import annotations

import functools
from typing import Iterable, NamedTuple

from pubcli.schema.model import Record
from pubcli.schema.names import display_name, split_authors
from pubcli.text.latex import to_text


class Row(NamedTuple):
    key: str
    type: str
    title: str                   # Unicode text
    raw_names: tuple[str, ...]   # the authors (else the editors) as written
    authors: tuple[str, ...]     # the same names as shown ("Ana Müller")
    venue: str                   # Unicode text
    year: int | None
    month: int | None
    areas: tuple[str, ...]
    featured: bool


def compute_row(rec: Record) -> Row:
    f = rec.fields
    raw = tuple(split_authors(f.get("author") or f.get("editor")))
    return Row(rec.key, rec.type, to_text(rec.title), raw, tuple(display_name(a) for a in raw),
               to_text(rec.venue), rec.year, rec.month, tuple(rec.areas), rec.featured)


def row_of(rec: Record) -> Row:
    row = rec.row
    if row is None:
        row = rec.row = compute_row(rec)
    return row


def to_rows(rows: Iterable[Row]) -> list[tuple]:
    """Rows as the cache stores them (plain tuples)."""
    return list(map(tuple, rows))


_as_row = functools.partial(tuple.__new__, Row)  # Row._make without its Python frame


def from_rows(items: Iterable[tuple]) -> list[Row]:
    """Rows from the cache's plain tuples (one C call per row: 0.1 s for 100k rows; rows
    of another shape are refused, and the cache is then rebuilt)."""
    rows = list(map(_as_row, items))
    if rows and len(rows[0]) != len(Row._fields):
        raise ValueError("display rows of another shape")
    return rows
