"""A new entry from options: :class:`EntryOptions`, each option's value checked, and the
record built in pubcli's field order. What ``pubcli add`` and the online commands make
entries from (the online commands' one seam into adding); :mod:`.adding` judges and plans."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING
from collections.abc import Mapping, Sequence

from pubcli import bibtex
from pubcli.errors import ValidationError
from pubcli.schema import values
from pubcli.schema.model import AREA_FIELD, FEATURED_FIELD, Record, join_areas
from pubcli.schema.names import split_authors
from pubcli.schema.types import DEFAULT_VENUE_FIELD, KNOWN_TYPES, VENUE_TARGET, required_for
from pubcli.schema.values import MONTH_NAMES
from pubcli.schema.values import parse_month

if TYPE_CHECKING:
    pass

#: what an entry type name may be (letters, digits, "_" and "-", a letter first)
TYPE_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_YEAR_RE = re.compile(r"^\d{4}$")

# The order fields are written in (others follow in the order given).
FIELD_ORDER = ("author", "editor", "title", "booktitle", "journal", "institution", "school",
               "number", "volume", "pages", "publisher", "howpublished", "organization",
               "year", "month", "doi", "url", "isbn")


@dataclass
class EntryOptions:
    """What ``pubcli add`` was given, as typed (areas are resolved by :func:`plan_add`)."""

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


# ------------------------------------------------------------------ single values
def default_type(venue: str | None) -> str:
    """The type when none is given: a paper at a venue, else @misc."""
    return "inproceedings" if venue and venue.strip() else "misc"


def check_type(entry_type: str, *, force: bool = False) -> str:
    """The type, lower-cased; refuses a malformed name, and an unknown one unless forced."""
    t = entry_type.strip().lower()
    if not TYPE_NAME_RE.match(t):
        raise ValidationError(f"'{entry_type}' is not a valid entry type name", field="type")
    if t not in KNOWN_TYPES and not force:
        from pubcli.text.similar import closest, did_you_mean

        near = closest(t, sorted(KNOWN_TYPES))
        hint = did_you_mean(near) if near else "; common: article, book, inproceedings, misc"
        raise ValidationError(f"unknown entry type '{t}'{hint} (pass --force to use it "
                              "anyway)", field="type")
    return t


def check_year(value: str) -> str:
    """A year as typed for a new entry: four digits."""
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
    """A DOI in any usual form (``https://doi.org/10.1/x``, ``doi:10.1/x``...) -> ``10.1/x``;
    refuses what is not a DOI (:func:`pubcli.schema.values.parse_doi` decides)."""
    doi = values.parse_doi(value)
    if doi is None:
        raise ValidationError(f"{value!r} is not a DOI (expected 10.NNNN/...)", field="doi")
    return doi


def check_url(value: str) -> str:
    v = value.strip()
    if values.web_link(v) is None:
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


# ------------------------------------------------------------------ building
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
        if name in fields:
            raise ValidationError(f"--field: field '{name}' is given twice", field=name)
        fields[name] = value
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


def missing_fields(entry_type: str, fields: Mapping[str, str], *,
                   in_biblatex_file: bool = False) -> list[str]:
    """The required field specs ("author", "year|date") that ``fields`` lacks, title
    first (a title is always required; a biblatex @set and @xdata have none); by
    biblatex's rules when the entry or its file is written for biblatex
    (:func:`pubcli.schema.types.required_for`)."""
    specs = [s for s in required_for(entry_type, fields, in_biblatex_file=in_biblatex_file)
             if s != "title"]
    if entry_type not in ("set", "xdata"):
        specs.insert(0, "title")
    return [spec for spec in specs
            if not any(fields.get(name, "").strip() for name in spec.split("|"))]


def missing_required(opts: EntryOptions, *, force: bool = False) -> list[str]:
    """The fields to ask for: those the entry's type requires and ``opts`` leave out,
    one name each (the first of "year|date"), title first. Raises for a bad option."""
    rec = build(opts, force=force)
    return [spec.split("|")[0] for spec in missing_fields(rec.type, rec.fields)]


def with_answers(opts: EntryOptions, answers: Mapping[str, str]) -> EntryOptions:
    """``opts`` completed with answers to :func:`missing_required` (name -> value)."""
    rest = dict(answers)
    return replace(opts,
                   title=rest.pop("title", opts.title),
                   authors=[rest.pop("author")] if "author" in rest else opts.authors,
                   year=rest.pop("year", opts.year),
                   fields=[*opts.fields, *(f"{k}={v}" for k, v in rest.items())])


def describe(spec: str) -> str:
    """"year|date" -> "year (or date)"."""
    first, *others = spec.split("|")
    return first + (f" (or {', '.join(others)})" if others else "")
