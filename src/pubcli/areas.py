"""Research areas: the controlled vocabulary and the edits ``tag`` and ``add`` make.

Areas live in the ``keywords`` field, comma-separated (see :mod:`pubcli.model`).

* The vocabulary is the ``areas`` list of the config; without one, the areas
  already used in the library (first spelling seen wins).
* Names match case- and accent-insensitively: "systems AND networking" is
  "Systems and networking", and the vocabulary's spelling is what gets written.
* A name not in the vocabulary is refused unless the caller allows new areas
  (``--new``); when it is close to a known one ("Sytems and networking") the
  error says "did you mean 'Systems and networking'?". When the vocabulary is
  empty (no config areas, no areas in the library) every name is accepted.
* A name containing ``,`` or ``;`` (the separators) is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from .errors import ValidationError
from .latex import fold
from .model import AREA_FIELD, Record, join_areas, split_areas

SUGGEST_CUTOFF = 75.0  # rapidfuzz ratio (0-100) from which a known area is suggested


def clean(name: str, *, what: str = "area") -> str:
    """``name`` with white space collapsed; refuses separators and empty names."""
    if "," in name or ";" in name:
        raise ValidationError(f"{what} {name!r} contains a separator (',' or ';'); areas are "
                              "stored comma-separated in 'keywords', so give one area at a time")
    out = " ".join(name.split())
    if not out:
        raise ValidationError(f"an empty {what} name")
    return out


def library_areas(records: Iterable[Record]) -> list[str]:
    """The areas used in ``records``, first spelling seen, in order of first use."""
    values = dict.fromkeys(rec.fields.get(AREA_FIELD) for rec in records)  # in order
    seen: dict[str, str] = {}
    for value in values:
        for area in split_areas(value):
            seen.setdefault(fold(area), area)
    return list(seen.values())


def vocabulary(config_areas: Sequence[str], records: Iterable[Record]) -> list[str]:
    """The controlled vocabulary: the config's areas, else the library's."""
    return list(config_areas) if config_areas else library_areas(records)


def suggest(name: str, known: Sequence[str], cutoff: float = SUGGEST_CUTOFF) -> str | None:
    """The known area closest to ``name``, if it is close enough."""
    if not known:
        return None
    from rapidfuzz import fuzz, process

    choices = {fold(k): k for k in known}
    best = process.extractOne(fold(name), list(choices), scorer=fuzz.ratio,
                              score_cutoff=cutoff)
    return choices[best[0]] if best else None


@dataclass
class Resolved:
    name: str       # the spelling to write
    is_new: bool    # not in the vocabulary


def resolve(name: str, known: Sequence[str], *, allow_new: bool = False,
            option: str = "--add") -> Resolved:
    """The vocabulary's spelling of ``name``; refuses unknown names unless ``allow_new``."""
    name = clean(name)
    by_fold = {fold(k): k for k in known}
    hit = by_fold.get(fold(name))
    if hit is not None:
        return Resolved(hit, False)
    if allow_new or not known:
        return Resolved(name, True)
    close = suggest(name, known)
    if close is not None:
        raise ValidationError(f"{option}: unknown area {name!r}; did you mean {close!r}? "
                              "(pass --new to add it as a new area)")
    listed = ", ".join(repr(k) for k in known[:8]) + (", ..." if len(known) > 8 else "")
    raise ValidationError(f"{option}: unknown area {name!r} (known: {listed}); "
                          "pass --new to add it as a new area")


def find_used(name: str, records: Iterable[Record]) -> str | None:
    """The spelling of area ``name`` as used in ``records`` (None if nobody uses it)."""
    target = fold(name)
    for area in library_areas(records):
        if fold(area) == target:
            return area
    return None


def with_areas(rec: Record, areas: Sequence[str]) -> Record:
    """A copy of ``rec`` with exactly these areas (``keywords`` dropped when none)."""
    fields = dict(rec.fields)
    if areas:
        fields[AREA_FIELD] = join_areas(areas)
    else:
        fields.pop(AREA_FIELD, None)
    return rec.copy(fields=fields)


def edit(rec: Record, add: Sequence[str] = (), remove: Sequence[str] = ()) -> Record | None:
    """``rec`` with ``add`` added and ``remove`` removed (names already resolved);
    None when that changes nothing. Existing areas keep their spelling and order."""
    current = split_areas(rec.fields.get(AREA_FIELD))
    drop = {fold(a) for a in remove}
    new = [a for a in current if fold(a) not in drop]
    have = {fold(a) for a in new}
    for a in add:
        if fold(a) not in have:
            new.append(a)
            have.add(fold(a))
    if new == current:
        return None
    return with_areas(rec, new)


def rename(rec: Record, old: str, new: str) -> Record | None:
    """``rec`` with area ``old`` (any case) renamed to ``new``, in place in the list;
    when ``rec`` already has ``new``, ``old`` is merged into it (dropped). None when
    unchanged."""
    current = split_areas(rec.fields.get(AREA_FIELD))
    f_old, f_new = fold(old), fold(new)
    if not any(fold(a) == f_old for a in current):
        return None
    merge = f_new != f_old and any(fold(a) == f_new for a in current)
    out = [a for a in current if fold(a) != f_old] if merge else \
        [new if fold(a) == f_old else a for a in current]
    if out == current:
        return None
    return with_areas(rec, out)


def set_featured(rec: Record, featured: bool) -> Record | None:
    """``rec`` with the featured marker set or cleared; None when unchanged."""
    from .model import FEATURED_FIELD

    if rec.featured == featured and (featured or FEATURED_FIELD not in rec.fields):
        return None
    fields = dict(rec.fields)
    if featured:
        fields[FEATURED_FIELD] = "true"
    else:
        fields.pop(FEATURED_FIELD, None)
    return rec.copy(fields=fields)


@dataclass
class AreaCount:
    name: str
    count: int
    configured: bool  # listed in the config's areas


def counts(records: Iterable[Record], config_areas: Sequence[str]) -> list[AreaCount]:
    """Each area with its number of publications: the config's areas first, in their
    order (count 0 when unused), then the other areas in the library by name."""
    from collections import Counter

    per_value = Counter(rec.fields.get(AREA_FIELD) for rec in records)  # few distinct values
    tally: dict[str, int] = {}
    spelling: dict[str, str] = {}
    for value, n in per_value.items():
        for area in split_areas(value):
            f = fold(area)
            tally[f] = tally.get(f, 0) + n
            spelling.setdefault(f, area)
    out = []
    listed = set()
    for area in config_areas:
        f = fold(area)
        listed.add(f)
        out.append(AreaCount(area, tally.get(f, 0), True))
    rest = sorted((f for f in tally if f not in listed), key=lambda f: f)
    out += [AreaCount(spelling[f], tally[f], False) for f in rest]
    return out
