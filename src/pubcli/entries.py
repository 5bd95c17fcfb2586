"""Building and validating a new entry from ``pubcli add`` options.

:func:`build` turns the options into a :class:`~pubcli.model.Record` (no key
yet); :func:`validate` checks any new record, from options or from a ``.bib``
file, and raises one :class:`~pubcli.errors.ValidationError` naming the first
problem; :func:`assign_key` gives it its citation key (:mod:`pubcli.keys`).

Rules:

* the type must be one of :data:`pubcli.model.KNOWN_TYPES` unless forced;
* ``year`` is a 4-digit year (a biblatex ``date`` must start with one);
* the type's required fields (:data:`pubcli.model.REQUIRED_FIELDS`) are there,
  and every entry has a title (pubcli needs it for keys and duplicate checks);
* ``--venue`` goes to the field that holds the venue for the type
  (:data:`VENUE_TARGET`): ``booktitle``, ``journal``, ``institution``,
  ``school``, ``publisher`` or ``howpublished``;
* ``--field name=value`` sets any other field; a field may be given only once;
* the key is a valid BibTeX key, not already used (case-insensitively).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from . import bibtex
from .errors import ValidationError
from .model import (AREA_FIELD, FEATURED_FIELD, KNOWN_TYPES, MONTH_NAMES, REQUIRED_FIELDS,
                    Record, join_areas, parse_month)
from .names import split_authors

# Where --venue goes, by entry type; other types use howpublished.
VENUE_TARGET: dict[str, str] = {
    "article": "journal",
    "inproceedings": "booktitle",
    "conference": "booktitle",
    "incollection": "booktitle",
    "inbook": "booktitle",
    "proceedings": "publisher",
    "book": "publisher",
    "techreport": "institution",
    "report": "institution",
    "phdthesis": "school",
    "mastersthesis": "school",
    "thesis": "school",
    "manual": "organization",
}
DEFAULT_VENUE_FIELD = "howpublished"

_TYPE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_YEAR_RE = re.compile(r"^\d{4}$")
_DATE_RE = re.compile(r"^\d{4}(?:-\d{2}(?:-\d{2})?)?(?:/.*)?$")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.I)
_DOI_RE = re.compile(r"^10\.\d{4,9}/\S+$")

# The order fields are written in (others follow in the order given).
FIELD_ORDER = ("author", "editor", "title", "booktitle", "journal", "institution", "school",
               "number", "volume", "pages", "publisher", "howpublished", "organization",
               "year", "month", "doi", "url", "isbn")


@dataclass
class EntryOptions:
    """What ``pubcli add`` was given (strings as typed; areas already resolved)."""

    type: str | None = None
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: str | None = None
    month: str | None = None
    venue: str | None = None
    doi: str | None = None
    url: str | None = None
    areas: list[str] = field(default_factory=list)
    fields: list[str] = field(default_factory=list)  # "name=value"
    featured: bool = False


def default_type(venue: str | None) -> str:
    """The type when none is given: a paper at a venue, else @misc."""
    return "inproceedings" if venue and venue.strip() else "misc"


def check_type(entry_type: str, *, force: bool = False) -> str:
    t = entry_type.strip().lower()
    if not _TYPE_RE.match(t):
        raise ValidationError(f"'{entry_type}' is not a valid entry type name", field="type")
    if t not in KNOWN_TYPES and not force:
        known = ", ".join(sorted(REQUIRED_FIELDS))
        raise ValidationError(f"unknown entry type '{t}' (known: {known}); "
                              "pass --force to use it anyway", field="type")
    return t


def check_year(value: str) -> str:
    v = value.strip()
    if not _YEAR_RE.match(v):
        raise ValidationError(f"expected a 4-digit year, got {value!r}", field="year")
    return v


def normalize_month(value: str) -> str:
    """"may", "5", "05", "May" -> "May" (the English name, as month macros expand)."""
    n = parse_month(value)
    if n is None:
        raise ValidationError(f"expected a month name or number 1-12, got {value!r}",
                              field="month")
    return MONTH_NAMES[n - 1]


def normalize_doi(value: str) -> str:
    """"https://doi.org/10.1/x" or "doi:10.1/x" -> "10.1/x"; refuses what is not a DOI."""
    v = _DOI_PREFIX.sub("", value.strip())
    if not _DOI_RE.match(v):
        raise ValidationError(f"{value!r} is not a DOI (expected 10.NNNN/...)", field="doi")
    return v


def check_url(value: str) -> str:
    v = value.strip()
    if not re.match(r"^https?://[^\s\"'<>{}]+$", v, re.I):
        raise ValidationError(f"{value!r} is not an http(s) URL", field="url")
    return v


def parse_field_option(item: str) -> tuple[str, str]:
    """"name=value" -> ("name", "value"), the name lower-cased and checked."""
    name, sep, value = item.partition("=")
    name = name.strip()
    if not sep or not name:
        raise ValidationError(f"--field expects name=value, got {item!r}")
    if not bibtex.FIELD_NAME_RE.match(name):
        raise ValidationError(f"--field: '{name}' is not a valid BibTeX field name")
    return name.lower(), value.strip()


def join_authors(authors: Sequence[str]) -> str:
    """Repeated --author options and "A and B" values, as one BibTeX author list."""
    out: list[str] = []
    for a in authors:
        out += [" ".join(part.split()) for part in split_authors(a)]
    return " and ".join(p for p in out if p)


def _put(fields: dict[str, str], name: str, value: str, origin: str) -> None:
    if name in fields:
        raise ValidationError(f"{origin}: field '{name}' is given twice", field=name)
    fields[name] = value


def build(opts: EntryOptions, *, force: bool = False) -> Record:
    """A new record (key "") from the options; values are checked as they are set.
    Call :func:`validate` for the required fields."""
    entry_type = check_type(opts.type or default_type(opts.venue), force=force)
    fields: dict[str, str] = {}
    authors = join_authors(opts.authors)
    if authors:
        fields["author"] = authors
    if opts.title is not None and opts.title.strip():
        fields["title"] = " ".join(opts.title.split())
    if opts.venue is not None and opts.venue.strip():
        fields[VENUE_TARGET.get(entry_type, DEFAULT_VENUE_FIELD)] = " ".join(opts.venue.split())
    if opts.year is not None and opts.year.strip():
        fields["year"] = check_year(opts.year)
    if opts.month is not None and opts.month.strip():
        fields["month"] = normalize_month(opts.month)
    if opts.doi:
        fields["doi"] = normalize_doi(opts.doi)
    if opts.url:
        fields["url"] = check_url(opts.url)
    for item in opts.fields:
        name, value = parse_field_option(item)
        if name in (AREA_FIELD, FEATURED_FIELD):
            raise ValidationError(f"--field: set '{name}' with "
                                  f"{'--area' if name == AREA_FIELD else '--featured'}")
        _put(fields, name, value, "--field")
    if opts.areas:
        fields[AREA_FIELD] = join_areas(opts.areas)
    if opts.featured:
        fields[FEATURED_FIELD] = "true"
    return Record("", entry_type, order_fields(fields))


def order_fields(fields: dict[str, str]) -> dict[str, str]:
    """Conventional field order: people, title, venue, date, links, then the rest,
    with keywords and featured last."""
    head = [n for n in FIELD_ORDER if n in fields]
    tail = [n for n in (AREA_FIELD, FEATURED_FIELD) if n in fields]
    rest = [n for n in fields if n not in head and n not in tail]
    return {n: fields[n] for n in head + rest + tail}


def missing_fields(entry_type: str, fields: dict[str, str]) -> list[str]:
    """The required field specs ("author", "year|date") that ``fields`` lacks, title
    first (a title is always required)."""
    specs = ["title"] + [s for s in REQUIRED_FIELDS.get(entry_type, ()) if s != "title"]
    return [spec for spec in specs
            if not any(fields.get(name, "").strip() for name in spec.split("|"))]


def describe(spec: str) -> str:
    """"year|date" -> "year (or date)"."""
    first, *others = spec.split("|")
    return first + (f" (or {', '.join(others)})" if others else "")


def validate(rec: Record, *, force: bool = False) -> None:
    """Raise ValidationError for the first thing wrong with a new record."""
    where = f"entry '{rec.key}': " if rec.key else ""
    try:
        check_type(rec.type, force=force)
    except ValidationError as exc:
        raise ValidationError(where + exc.message, field=exc.field) from None
    if rec.key:
        bibtex.check_key(rec.key)
    year = rec.fields.get("year")
    if year is not None and not _YEAR_RE.match(year.strip()):
        raise ValidationError(f"{where}expected a 4-digit year, got {year!r}", field="year")
    date = rec.fields.get("date")
    if year is None and date is not None and not _DATE_RE.match(date.strip()):
        raise ValidationError(f"{where}expected a date like 2024 or 2024-05, got {date!r}",
                              field="date")
    missing = missing_fields(rec.type, rec.fields)
    if missing:
        names = ", ".join(describe(s) for s in missing)
        raise ValidationError(f"{where}@{rec.type} needs {names}; nothing was written")
    for name, value in rec.fields.items():
        if not bibtex.FIELD_NAME_RE.match(name):
            raise ValidationError(f"{where}'{name}' is not a valid BibTeX field name")
        if not bibtex.braces_balanced(value):
            raise ValidationError(f"{where}unbalanced braces in {value!r}", field=name)


def assign_key(rec: Record, taken: set[str], explicit: str | None = None) -> Record:
    """``rec`` with its key: ``explicit`` if given (refused when taken), else the
    scheme's key made unique. The key is added to ``taken`` (casefolded keys)."""
    from .keys import make_key

    if explicit is not None:
        key = explicit.strip()
        bibtex.check_key(key)
        if key.casefold() in taken:
            raise ValidationError(f"the key '{key}' is already in the library "
                                  "(keys compare case-insensitively); choose another --key")
    else:
        key = make_key(rec, taken)
    taken.add(key.casefold())
    return rec.copy(key=key)


def keep_or_renew_key(rec: Record, taken: set[str]) -> tuple[Record, str | None]:
    """For entries read from a file: keep their key when it is valid and free, else
    give a new one (suffix a, b... on a taken key; the scheme's key for an invalid
    one). Returns the record and its old key when it changed."""
    from .keys import make_key, unique_key

    key = rec.key
    try:
        bibtex.check_key(key)
        valid = True
    except ValidationError:
        valid = False
    if valid and key.casefold() not in taken:
        taken.add(key.casefold())
        return rec, None
    new = unique_key(key, taken) if valid else make_key(rec, taken)
    taken.add(new.casefold())
    return rec.copy(key=new), key


def apply_extras(rec: Record, areas: Iterable[str] = (), featured: bool = False) -> Record:
    """``rec`` with more areas and, if asked, the featured marker (for ``add --from``)."""
    from . import areas as areas_mod

    out = areas_mod.edit(rec, add=list(areas)) or rec
    if featured:
        out = areas_mod.set_featured(out, True) or out
    return out
