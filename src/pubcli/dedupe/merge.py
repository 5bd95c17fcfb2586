"""Merging a group of duplicates into one entry, and which entry to keep."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from pubcli.schema.keys import split_keys
from pubcli.schema.model import AREA_FIELD, Record, join_areas, split_areas
from .identifiers import normalise_doi
from .normalise import normalise
from .people import parse_authors, shared_authors

@dataclass
class Conflict:
    """A field the merged entries disagree on; ``kept`` is what the merge holds."""

    field: str
    kept: str
    others: list[tuple[str, str]]  # (key, value)


@dataclass
class MergeResult:
    """The merged entry (``kept``'s key and place), what it dropped and what disagreed."""

    record: Record
    conflicts: list[Conflict]
    dropped_keys: list[str]
    filled: list[tuple[str, str]] = field(default_factory=list)  # (field, from key)
    #: The record merged into (by identity) and the records merged away.
    kept: Record | None = None
    dropped: list[Record] = field(default_factory=list)


def _same_value(name: str, a: str, b: str) -> bool:
    if a == b:
        return True
    if name == "doi":
        return normalise_doi(a) == normalise_doi(b) != ""
    if name == "author" or name == "editor":
        pa, pb = parse_authors(a), parse_authors(b)
        return len(pa) == len(pb) and shared_authors(pa, pb) == len(pa)
    if name == "pages":
        return normalise(a.replace("--", "-")) == normalise(b.replace("--", "-"))
    return normalise(a) == normalise(b)


def _the_record(group_records: Sequence[Record], keep: Record | str) -> Record:
    if isinstance(keep, Record):
        if not any(r is keep for r in group_records):
            raise ValueError(f"{keep.key!r} is not in the group")
        return keep
    same = [r for r in group_records if r.key == keep]
    if len(same) != 1:
        raise ValueError(f"{keep!r} is not in the group" if not same else
                         f"{keep!r} names {len(same)} entries of the group (lines "
                         + ", ".join(str(r.line) for r in same) + "): pass the record")
    return same[0]


def merge(group_records: Sequence[Record], keep: Record | str) -> MergeResult:
    """Merge a group into the entry ``keep`` (a record of the group, by identity; a
    key only when unique in the group): its fields win; fields it lacks are filled
    from the others (in order); ``keywords`` are united; values that disagree are
    reported as conflicts (never silently replaced); the other keys go into the
    biblatex ``ids`` field so documents citing them still compile."""
    keep = _the_record(group_records, keep)
    fields = dict(keep.fields)
    others = [r for r in group_records if r is not keep]
    conflicts: dict[str, Conflict] = {}
    filled: list[tuple[str, str]] = []
    areas = split_areas(fields.get(AREA_FIELD))
    ids = [k for k in split_keys(fields.get("ids")) if k != keep.key]
    dropped: list[str] = []
    for other in others:
        if other.key != keep.key and other.key not in dropped:
            dropped.append(other.key)
        for k in [other.key, *split_keys(other.fields.get("ids"))]:
            if k != keep.key and k not in ids:
                ids.append(k)
        if other.type != keep.type:
            c = conflicts.setdefault("@type", Conflict("@type", keep.type, []))
            c.others.append((other.key, other.type))
        for name, value in other.fields.items():
            if name == AREA_FIELD:
                seen = {a.casefold() for a in areas}
                areas += [a for a in split_areas(value) if a.casefold() not in seen]
                continue
            if name == "ids":
                continue
            if not value.strip():
                continue
            current = fields.get(name)
            if current is None or not current.strip():
                fields[name] = value
                filled.append((name, other.key))
            elif not _same_value(name, current, value):
                c = conflicts.setdefault(name, Conflict(name, current, []))
                if all(not _same_value(name, v, value) for _, v in c.others):
                    c.others.append((other.key, value))
    if areas:
        fields[AREA_FIELD] = join_areas(areas)
    if ids:
        fields["ids"] = ", ".join(ids)
    return MergeResult(keep.copy(fields=fields), list(conflicts.values()), dropped, filled,
                       kept=keep, dropped=others)


_TYPE_RANK = {"article": 4, "inproceedings": 4, "book": 4, "incollection": 4, "inbook": 4,
              "phdthesis": 3, "mastersthesis": 3, "thesis": 3, "conference": 4,
              "techreport": 2, "report": 2, "proceedings": 3, "collection": 3}


def suggest_keep(group_records: Sequence[Record]) -> Record:
    """The record a merge should keep by default: the published version (not the
    preprint), then the entry with the most fields, a DOI, then the first in the file."""
    def rank(r: Record) -> tuple:
        filled = sum(1 for v in r.fields.values() if v.strip())
        return (_TYPE_RANK.get(r.type, 1), "doi" in r.fields, filled, -r.line)

    return max(group_records, key=rank)


@dataclass
class Planned:
    """One merge ``--merge --yes`` will make, or the reason it leaves a group alone."""

    number: int                     # the group's number (1-based) in the listing
    records: list[Record]
    result: MergeResult | None = None
    skipped: str = ""               # why the group needs a human


def plan_merges(groups: Sequence) -> list[Planned]:
    """Merge every group into its suggested entry, except groups the matcher could
    not close (a link left apart because two members are different works): those
    need a human. ``groups`` are :class:`pubcli.dedupe.Group` values."""
    out = []
    for n, g in enumerate(groups, 1):
        if g.conflicts:
            out.append(Planned(n, list(g.records), skipped=g.conflicts[0]))
            continue
        out.append(Planned(n, list(g.records), merge(g.records, suggest_keep(g.records))))
    return out


def apply(library, result: MergeResult, located: dict[int, Record] | None = None) -> Record:
    """Put a merge into ``library`` (a :class:`pubcli.library.Library`): the kept entry
    replaced by the merged one, the others removed; returns the merged record.
    ``located`` maps ``id()`` of the group's records as they were read to the same
    entries in ``library`` (a fresh load: :func:`pubcli.editing.relocate`)."""
    assert result.kept is not None

    def now(rec: Record) -> Record:
        return rec if located is None else located[id(rec)]

    kept = now(result.kept)
    merged = kept.copy(type=result.record.type, fields=result.record.fields)
    library.replace(kept, merged)
    for rec in result.dropped:
        library.remove(now(rec))
    return merged
