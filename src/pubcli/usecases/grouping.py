"""Selecting and grouping records for lists and pages (pure functions)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from pubcli.errors import ValidationError
from pubcli.text.display import row_of
from pubcli.text.latex import search_fold, to_text
from pubcli.text.fold import fold
from pubcli.schema.model import area_key
from pubcli.schema.model import GroupBy, Record, type_group
from pubcli.schema.types import REPORT_TYPES, type_group_order
from pubcli.schema.names import PersonQuery, matches_person, person_query, split_authors

NO_YEAR = "No year"
NO_AREA = "No area"
NO_VENUE = "No venue"


@dataclass
class Filters:
    """What ``list`` and ``export`` keep. Empty fields keep everything."""

    areas: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    years: tuple[int | None, int | None] | None = None
    authors: list[str] = field(default_factory=list)
    search: str | None = None
    keys: list[str] = field(default_factory=list)
    known_areas: list[str] = field(default_factory=list)  # e.g. the config's, even unused

    def is_empty(self) -> bool:
        return not (self.areas or self.types or self.years or self.authors or self.search
                    or self.keys)


def parse_year_range(text: str) -> tuple[int | None, int | None]:
    """"2015", "2015..2020", "2015.." or "..2020"."""
    m = re.fullmatch(r"\s*(\d{4})?\s*(\.\.)?\s*(\d{4})?\s*", text or "")
    if not m or not (m.group(1) or m.group(3)) or (m.group(3) and not m.group(2)):
        raise ValidationError(f"--year: expected YYYY or YYYY..YYYY, got {text!r}")
    lo = int(m.group(1)) if m.group(1) else None
    hi = int(m.group(3)) if m.group(3) else None
    if not m.group(2):
        hi = lo
    if lo is not None and hi is not None and lo > hi:
        raise ValidationError(f"--year: {lo} is after {hi}")
    return lo, hi


def searchable(rec: Record) -> str:
    f = rec.fields
    row = rec.row  # the display row holds the title and venue as text already
    if row is None:
        title, venue = search_fold(rec.title), search_fold(rec.venue)
    else:
        title, venue = fold(row.title), fold(row.venue)
    return " ".join((title, search_fold(f.get("author", "")),
                     search_fold(f.get("editor", "")), venue))


def check_filters(filters: Filters, records: Sequence[Record]) -> None:
    """Refuse an ``--area`` or ``--type`` that names nothing pubcli knows, with the
    closest known name ("did you mean ...?"), instead of selecting nothing."""
    from pubcli.schema.types import KNOWN_TYPES, TYPE_GROUPS
    from pubcli.text.similar import closest, did_you_mean, known_list

    if filters.areas:
        values = dict.fromkeys(tuple(r.areas) for r in records)  # few distinct
        known = [*filters.known_areas, *(a for v in values for a in v)]
        folded = {area_key(a) for a in known}
        for a in filters.areas:
            if area_key(a) not in folded:
                close = closest(a, known, fold=area_key)
                raise ValidationError(f"--area: no entry has the area {a!r}"
                                      + (did_you_mean(close) if close
                                         else known_list(list(dict.fromkeys(known)))))
    if filters.types:
        types = sorted(KNOWN_TYPES | {r.type for r in records})
        names = {t: t for t in types} | {g.lower(): g for g, _ in TYPE_GROUPS} \
            | {type_group(t).lower(): type_group(t) for t in types}
        for t in filters.types:
            if t.lower() not in names:
                raise ValidationError(f"--type: unknown entry type {t!r}"
                                      + did_you_mean(closest(t, list(names.values()),
                                                             fold=str.lower)))


def select(records: Iterable[Record], filters: Filters | None) -> list[Record]:
    """The records ``filters`` keep, in order (an unknown area or type is refused)."""
    recs = list(records)
    if filters is None or filters.is_empty():
        return recs
    check_filters(filters, recs)
    if filters.keys:
        wanted = set(filters.keys)
        recs = [r for r in recs if r.key in wanted]
    if filters.areas:
        want = {area_key(a) for a in filters.areas}
        recs = [r for r in recs if any(area_key(a) in want for a in r.areas)]
    if filters.types:
        want = {t.lower() for t in filters.types}
        recs = [r for r in recs if r.type in want or r.type_group.lower() in want]
    if filters.years:
        lo, hi = filters.years
        recs = [r for r in recs if r.year is not None and (lo is None or r.year >= lo)
                and (hi is None or r.year <= hi)]
    if filters.authors:
        people = [person_query(a) for a in filters.authors]
        recs = [r for r in recs if _has_author(r, people)]
    if filters.search:
        terms = fold(filters.search).split()
        recs = [r for r in recs if _has_all(searchable(r), terms)]
    return recs


def _has_all(text: str, terms: list[str]) -> bool:
    return all(t in text for t in terms)


def _has_author(rec: Record, people: list[PersonQuery]) -> bool:
    names = split_authors(rec.fields.get("author")) + split_authors(rec.fields.get("editor"))
    return any(matches_person(raw, p) for raw in names for p in people)


def _newest_first(rec: Record) -> tuple[int, int]:
    row = rec.row  # what rec.year and rec.month read when there is one, without the calls
    if row is not None:
        return (-(row.year or 0), -(row.month or 0))
    return (-(rec.year or 0), -(rec.month or 0))


def _minus_year(rec: Record) -> int:
    return _newest_first(rec)[0]


def group(records: Sequence[Record], by: GroupBy | str,
          area_order: Sequence[str] = ()) -> list[tuple[str, list[Record]]]:
    """Group records, newest first inside each group.

    * year: newest year first, "No year" last;
    * area: a record appears under each of its areas; configured order first,
      then other areas by name, "No area" last;
    * type: readable names ("Conference papers") in a fixed order;
    * venue: by venue name;
    * none: one group named "" holding everything.
    """
    by = GroupBy(by)
    # newest first; within a month the file's order stays (as on the seed page)
    ordered = sorted(records, key=_newest_first)
    if by is GroupBy.none:
        return [("", ordered)] if ordered else []
    groups: dict[str, list[Record]] = {}
    if by is GroupBy.year:  # ordered by year already: a group is a run
        for minus_year, run in itertools.groupby(ordered, key=_minus_year):
            groups.setdefault(str(-minus_year) if minus_year else NO_YEAR, []).extend(run)
        return sorted(groups.items(), key=lambda kv: (kv[0] == NO_YEAR, -int(kv[0])
                                                      if kv[0] != NO_YEAR else 0))
    if by is GroupBy.area:
        canon = {area_key(a): a for a in area_order}
        for r in ordered:
            areas = r.areas or [NO_AREA]
            for a in areas:
                groups.setdefault(canon.get(area_key(a), a), []).append(r)
        rank = {a: i for i, a in enumerate(area_order)}
        return sorted(groups.items(), key=lambda kv: (kv[0] == NO_AREA,
                                                      rank.get(kv[0], len(rank)),
                                                      fold(kv[0])))
    if by is GroupBy.type:
        for r in ordered:
            groups.setdefault(type_group(r.type), []).append(r)
        return sorted(groups.items(), key=lambda kv: type_group_order(kv[0]))
    for r in ordered:
        # a report groups under its series (fields); any other entry under the row's venue
        venue = to_text(r.venue_group) if r.type in REPORT_TYPES else row_of(r).venue
        groups.setdefault(venue or NO_VENUE, []).append(r)
    return sorted(groups.items(), key=lambda kv: (kv[0] == NO_VENUE, fold(kv[0])))


def unique_records(groups: Iterable[tuple[str, Sequence[Record]]]) -> list[Record]:
    """The records of a grouped listing, each once (a paper in two areas is listed
    twice), in listing order."""
    seen: set[int] = set()
    out = []
    for _, recs in groups:
        for r in recs:
            if id(r) not in seen:
                seen.add(id(r))
                out.append(r)
    return out
