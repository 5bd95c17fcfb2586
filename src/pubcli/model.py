"""The domain model: a publication record and the small enums the commands share.

A :class:`Record` is one BibTeX entry as pubcli sees it: its citation key, its
entry type (lower case) and its fields, field names lower-cased, values with
``@string`` macros resolved and the outer braces or quotes removed, but LaTeX
left as written (``{ZeRO}++``, ``M{\\"u}ller``). Turning LaTeX into text for
display is the job of :mod:`pubcli.latex`.

Research areas live in the ``keywords`` field, comma-separated, which is the
convention of biblatex, JabRef and Zotero exports. A publication is *featured*
when it has ``featured = {true}`` (other BibTeX tools ignore unknown fields).
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any, Iterable, Mapping

AREA_FIELD = "keywords"
FEATURED_FIELD = "featured"
AREA_SEPARATOR = ","

_YEAR_RE = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}
MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July",
               "August", "September", "October", "November", "December"]
_MONTH_FAST = {**{name: i + 1 for i, name in enumerate(MONTH_NAMES)},
               **{str(i): i for i in range(1, 13)}}


class GroupBy(str, Enum):
    year = "year"
    area = "area"
    type = "type"
    venue = "venue"
    none = "none"


class ListFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    keys = "keys"
    bibtex = "bibtex"
    csl_json = "csl-json"


# Entry types grouped under a readable name, in display order.
TYPE_GROUPS: list[tuple[str, frozenset[str]]] = [
    ("Technical reports", frozenset({"techreport", "report"})),
    ("Conference papers", frozenset({"inproceedings", "conference"})),
    ("Journal articles", frozenset({"article"})),
    ("Books and chapters", frozenset({"book", "inbook", "incollection", "booklet", "mvbook",
                                      "collection", "proceedings", "mvproceedings"})),
    ("Theses", frozenset({"phdthesis", "mastersthesis", "thesis"})),
    ("Preprints and other", frozenset({"misc", "unpublished", "online", "preprint", "electronic",
                                       "manual", "software", "dataset", "patent"})),
]
_TYPE_GROUP_OF = {t: name for name, types in TYPE_GROUPS for t in types}

# Required fields per entry type, from the BibTeX standard (btxdoc) with the
# usual biblatex aliases accepted ("a|b" means either will do).
REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    "article": ("author", "title", "journal|journaltitle", "year|date"),
    "book": ("author|editor", "title", "publisher", "year|date"),
    "booklet": ("title",),
    "conference": ("author", "title", "booktitle", "year|date"),
    "inbook": ("author|editor", "title", "chapter|pages", "publisher", "year|date"),
    "incollection": ("author", "title", "booktitle", "publisher", "year|date"),
    "inproceedings": ("author", "title", "booktitle", "year|date"),
    "manual": ("title",),
    "mastersthesis": ("author", "title", "school|institution", "year|date"),
    "misc": (),
    "phdthesis": ("author", "title", "school|institution", "year|date"),
    "proceedings": ("title", "year|date"),
    "techreport": ("author", "title", "institution", "year|date"),
    "unpublished": ("author", "title", "note"),
}
KNOWN_TYPES = frozenset(REQUIRED_FIELDS) | frozenset(
    {"online", "report", "thesis", "software", "dataset", "patent", "preprint", "electronic",
     "mvbook", "collection", "mvproceedings", "periodical", "suppbook", "suppcollection"})

# Which field holds the venue, by entry type, tried in order.
VENUE_FIELDS: dict[str, tuple[str, ...]] = {
    "article": ("journal", "journaltitle"),
    "inproceedings": ("booktitle", "eventtitle"),
    "conference": ("booktitle", "eventtitle"),
    "incollection": ("booktitle",),
    "techreport": ("number", "institution"),
    "report": ("number", "institution"),
    "phdthesis": ("school", "institution"),
    "mastersthesis": ("school", "institution"),
    "thesis": ("school", "institution"),
    "book": ("publisher",),
    "misc": ("howpublished", "organization"),
}
_FALLBACK_VENUE = ("booktitle", "journal", "journaltitle", "howpublished", "school",
                   "institution", "publisher", "organization")


def type_group(entry_type: str) -> str:
    """The readable group name for an entry type ("Conference papers")."""
    return _TYPE_GROUP_OF.get(entry_type, entry_type.capitalize())


def type_group_order(name: str) -> tuple[int, str]:
    for i, (group, _) in enumerate(TYPE_GROUPS):
        if group == name:
            return (i, name)
    return (len(TYPE_GROUPS), name)


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


def parse_year(value: str | None) -> int | None:
    if not value:
        return None
    if len(value) == 4 and value.isdigit():
        return int(value)
    m = _YEAR_RE.search(value)
    return int(m.group(1)) if m else None


def parse_month(value: str | None) -> int | None:
    """Month number from ``may``, ``May``, ``5``, ``05`` or ``{May}``; None if unknown."""
    if not value:
        return None
    n = _MONTH_FAST.get(value)
    if n is not None:
        return n
    v = value.strip().strip("{}").strip().lower()
    if v.isdigit():
        n = int(v)
        return n if 1 <= n <= 12 else None
    return _MONTHS.get(v[:3])


class Record:
    """One publication. ``fields`` maps lower-case field names to values.

    ``line`` is the 1-based line of the entry in its file (0 for a new record).
    ``source`` is private to the store: where the entry's text sits in the file
    and how its fields were written, so that an edit rewrites only this entry.
    """

    __slots__ = ("key", "type", "fields", "line", "source")

    def __init__(self, key: str, type: str, fields: Mapping[str, str] | None = None,
                 line: int = 0, source: Any = None) -> None:
        self.key = key
        self.type = type.lower()
        self.fields: dict[str, str] = dict(fields or {})
        self.line = line
        self.source = source

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
             fields: Mapping[str, str] | None = None) -> "Record":
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
        y = parse_year(self.fields.get("year"))
        if y is None:
            y = parse_year(self.fields.get("date"))
        return y

    @property
    def month(self) -> int | None:
        m = parse_month(self.fields.get("month"))
        if m is None:
            date = self.fields.get("date", "")
            mm = re.match(r"\s*\d{4}-(\d{1,2})", date)
            if mm:
                m = parse_month(mm.group(1))
        return m

    @property
    def areas(self) -> list[str]:
        return split_areas(self.fields.get(AREA_FIELD))

    @property
    def featured(self) -> bool:
        return self.fields.get(FEATURED_FIELD, "").strip().lower() in {"true", "yes", "1"}

    @property
    def venue(self) -> str:
        """The raw venue text: booktitle, journal, report number... by type."""
        for name in VENUE_FIELDS.get(self.type, _FALLBACK_VENUE):
            value = self.fields.get(name)
            if value:
                return value
        return ""

    @property
    def type_group(self) -> str:
        return type_group(self.type)
