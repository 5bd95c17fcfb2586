"""Display rows: what listings and pages show of a record, computed once.

A row is ``(title, raw names, display names, venue, year, month, areas,
featured)``: the title and venue as Unicode text, the authors (or editors) as
written and as shown, and the values :class:`pubcli.schema.model.Record` derives from
its fields (which it reads from the row when there is one). Together they are
what a listing or a page shows of an entry, beside its key and type.

The store keeps rows in a cache beside its parse cache (keyed the same way, by
the file's bytes) and sets ``record.row`` on load; after a save it recomputes
only the rows of the entries that changed. :func:`row_of` computes a missing
row and remembers it on the record.
"""

from __future__ import annotations

from pubcli.text.latex import to_text
from pubcli.schema.model import Record
from pubcli.schema.names import display_name, split_authors

# (title, raw_names, authors, venue, year, month, areas, featured)
Row = tuple


def compute_row(rec: Record) -> Row:
    f = rec.fields
    raw = tuple(split_authors(f.get("author") or f.get("editor")))
    return (to_text(rec.title), raw, tuple(display_name(a) for a in raw), to_text(rec.venue),
            rec.year, rec.month, tuple(rec.areas), rec.featured)


def row_of(rec: Record) -> Row:
    row = rec.row
    if row is None:
        row = rec.row = compute_row(rec)
    return row
