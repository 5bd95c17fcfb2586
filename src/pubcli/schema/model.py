"""The domain model: a publication record and the small enums the commands share.

A :class:`Record` is one BibTeX entry as pubcli sees it: its citation key, its
entry type (lower case) and its fields, field names lower-cased, values with
``@string`` macros resolved and the outer braces or quotes removed, but LaTeX
left as written (``{ZeRO}++``, ``M{\\"u}ller``). Turning LaTeX into text for
display is the job of :mod:`pubcli.text.latex`.

Research areas live in the ``keywords`` field, comma-separated, which is the
convention of biblatex, JabRef and Zotero exports. A publication is *featured*
when it has ``featured = {true}`` (other BibTeX tools ignore unknown fields).
"""

from __future__ import annotations

import re
from enum import Enum
from typing import TYPE_CHECKING
from collections.abc import Iterable, Mapping

# The data model and the value rules live in schema and values; they are re-exported
# here for the modules and users that read them from the model.
from pubcli.schema.types import (
    report_series, report_venue, type_group,
    venue_fields)
from pubcli.schema.values import parse_date, parse_month, parse_year
from pubcli.text.fold import fold

if TYPE_CHECKING:
    from pubcli.bibtex.read import Source  # where an entry's text sits (the reader's)
    from pubcli.text.display import Row

AREA_FIELD = "keywords"
FEATURED_FIELD = "featured"
AREA_SEPARATOR = ","

class GroupBy(str, Enum):
    year = "year"
    area = "area"
    type = "type"
    venue = "venue"
    none = "none"


class ListFormat(str, Enum):
    text = "text"
    line = "line"
    json = "json"
    csv = "csv"
    keys = "keys"
    bibtex = "bibtex"
    csl_json = "csl-json"


def area_key(name: str) -> str:
    """What two spellings of one area share: "Réseaux", "reseaux " and "RESEAUX" are one
    area (the one fold, spaces collapsed). ``tag``, ``list --area``, ``check`` and the page
    compare area names only through this."""
    return " ".join(fold(name).split())


def split_areas(value: str | None) -> list[str]:
    """Split a ``keywords`` value into areas (commas; semicolons are read too)."""
    if not value:
        return []
    if "," not in value and ";" not in value:
        area = " ".join(value.split())
        return [area] if area else []
    out: list[str] = []
    seen: set[str] = set()
    for part in re.split(r"[,;]", value):
        area = " ".join(part.split())
        if area and area.casefold() not in seen:
            seen.add(area.casefold())
            out.append(area)
    return out


def join_areas(areas: Iterable[str]) -> str:
    return (AREA_SEPARATOR + " ").join(areas)


class Record:
    """One publication. ``fields`` maps lower-case field names to values.

    ``line`` is the 1-based line of the entry in its file (0 for a new record).
    ``source`` is private to the store: where the entry's text sits in the file
    and how its fields were written, so that an edit rewrites only this entry.
    ``row`` is the record's display row (see :mod:`pubcli.text.display`) when the store
    had it in its cache, else None until first shown. Records are never edited in
    place (an edit makes a new Record), so a row never outlives the fields it shows.
    """

    __slots__ = ("key", "type", "fields", "line", "source", "row")

    def __init__(self, key: str, type: str, fields: Mapping[str, str] | None = None,
                 line: int = 0, source: Source | None = None) -> None:
        self.key = key
        self.type = type.lower()
        self.fields: dict[str, str] = dict(fields or {})
        self.line = line
        self.source = source
        self.row: Row | None = None

    @classmethod
    def restore(cls, key: str, type: str, fields: dict[str, str], line: int,
                source: Source | None) -> Record:
        """A record from values already in shape (a lower-case type, a fields dict of its
        own): the store's cache builds 100k of them, and ``__init__``'s copies cost."""
        rec = cls.__new__(cls)
        rec.key = key
        rec.type = type
        rec.fields = fields
        rec.line = line
        rec.source = source
        rec.row = None
        return rec

    def __repr__(self) -> str:
        return f"Record({self.key!r}, {self.type!r}, line={self.line})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return (self.key, self.type, self.fields) == (other.key, other.type, other.fields)

    __hash__ = None  # type: ignore[assignment]

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.fields.get(name, default)

    def copy(self, *, key: str | None = None, type: str | None = None,
             fields: Mapping[str, str] | None = None) -> Record:
        """A modified copy that keeps the source link (so the store patches in place)."""
        return Record(key if key is not None else self.key,
                      type if type is not None else self.type,
                      dict(fields) if fields is not None else dict(self.fields),
                      self.line, self.source)

    # -- derived values -------------------------------------------------
    @property
    def title(self) -> str:
        return self.fields.get("title", "")

    @property
    def year(self) -> int | None:
        if self.row is not None:  # derived from these fields already (pubcli.text.display)
            return self.row.year
        y = parse_year(self.fields.get("year"))
        if y is None:
            y = parse_year(self.fields.get("date"))
        return y

    @property
    def month(self) -> int | None:
        if self.row is not None:
            return self.row.month
        m = parse_month(self.fields.get("month"))
        if m is None and "date" in self.fields:
            d = parse_date(self.fields["date"])
            if d is not None and d.month is not None and d.month <= 12:
                m = d.month
        return m

    @property
    def areas(self) -> list[str]:
        if self.row is not None:
            return list(self.row.areas)
        return split_areas(self.fields.get(AREA_FIELD))

    @property
    def featured(self) -> bool:
        if self.row is not None:
            return self.row.featured
        return self.fields.get(FEATURED_FIELD, "").strip().lower() in {"true", "yes", "1"}

    @property
    def venue(self) -> str:
        """The raw venue text: booktitle, journal... by type; a report's number when it
        names itself, else its institution, type and number (:func:`report_venue`)."""
        report = report_venue(self.type, self.fields)
        if report is not None:
            return report
        for name in venue_fields(self.type):
            value = self.fields.get(name)
            if value:
                return value
        return ""

    @property
    def venue_group(self) -> str:
        """What ``list --by venue`` groups under: the venue, and for a report its series
        (institution and type), not one group per report number."""
        return report_series(self.type, self.fields) or self.venue

    @property
    def type_group(self) -> str:
        return type_group(self.type)
