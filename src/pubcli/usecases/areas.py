"""Research areas: the controlled vocabulary and the edits ``tag`` and ``add`` make.

Areas live in the ``keywords`` field, comma-separated (see :mod:`pubcli.schema.model`).

* The vocabulary is the ``areas`` list of the config; without one, the areas
  already used in the library (first spelling seen wins).
* Names match case- and accent-insensitively: "systems AND networking" is
  "Systems and networking", and the vocabulary's spelling is what gets written.
* A name not in the vocabulary is refused unless the caller allows new areas
  (``--new``); when it is close to a known one ("Sytems and networking") the
  error says "did you mean 'Systems and networking'?". When the vocabulary is
  empty (no config areas, no areas in the library) every name is accepted.
* A name containing ``,`` or ``;`` (the separators) is refused.

:func:`plan_tag` (and :func:`plan_rename`) decide everything ``pubcli tag``
does: which entries, which spellings, what each entry becomes. The command
only applies the returned changes and prints them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

from pubcli.errors import ValidationError
from pubcli.store.library import read_only_reason
from pubcli.usecases import refs
from pubcli.text.similar import CUTOFF, closest, did_you_mean
from pubcli.schema.model import (AREA_FIELD, FEATURED_FIELD, Record, area_key, join_areas,
                                 split_areas)

if TYPE_CHECKING:
    from pubcli.local.config import Config
    from pubcli.usecases.grouping import Filters

SUGGEST_CUTOFF = CUTOFF  # the one "did you mean" cutoff (pubcli.text.similar)


# ------------------------------------------------------------------ names
def clean(name: str, *, what: str = "area") -> str:
    """``name`` with white space collapsed; refuses separators and empty names."""
    if "," in name or ";" in name:
        raise ValidationError(f"{what} {name!r} contains a separator (',' or ';'); areas are "
                              "stored comma-separated in 'keywords', so give one area at a time")
    out = " ".join(name.split())
    if not out:
        raise ValidationError(f"an empty {what} name")
    return out


def unique(names: Iterable[str]) -> list[str]:
    """``names`` without repeats (compared case- and accent-insensitively), first kept."""
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(area_key(name), name)
    return list(seen.values())


def library_areas(records: Iterable[Record]) -> list[str]:
    """The areas used in ``records``, first spelling seen, in order of first use."""
    values = dict.fromkeys(rec.fields.get(AREA_FIELD) for rec in records)  # few distinct
    return unique(area for value in values for area in split_areas(value))


def vocabulary(config_areas: Sequence[str], records: Iterable[Record]) -> list[str]:
    """The controlled vocabulary: the config's areas, else the library's."""
    return list(config_areas) if config_areas else library_areas(records)


def suggest(name: str, known: Sequence[str], cutoff: float = SUGGEST_CUTOFF) -> str | None:
    """The known area closest to ``name``, if it is close enough."""
    return closest(name, known, cutoff=cutoff, fold=area_key)


@dataclass
class Resolved:
    name: str       # the spelling to write
    is_new: bool    # not in the vocabulary


def resolve(name: str, known: Sequence[str], *, allow_new: bool = False,
            option: str = "--add") -> Resolved:
    """The vocabulary's spelling of ``name``; refuses unknown names unless ``allow_new``."""
    name = clean(name)
    target = area_key(name)
    hit = next((k for k in known if area_key(k) == target), None)
    if hit is not None:
        return Resolved(hit, False)
    if allow_new or not known:
        return Resolved(name, True)
    close = suggest(name, known)
    if close is not None:
        raise ValidationError(f"{option}: unknown area {name!r}{did_you_mean(close)} "
                              "(pass --new to add it as a new area)")
    listed = ", ".join(repr(k) for k in known[:8]) + (", ..." if len(known) > 8 else "")
    raise ValidationError(f"{option}: unknown area {name!r} (known: {listed}); "
                          "pass --new to add it as a new area")


def choose(names: Sequence[str], records: Sequence[Record], config: Config, *,
           allow_new: bool = False, option: str = "--area") -> tuple[list[str], list[str]]:
    """The spellings to write for areas being given to entries (``add --area``,
    ``tag --add``, ``import --area``), each once, and a warning for each one the
    config's ``areas`` do not list (only possible with ``allow_new``)."""
    if not names:
        return [], []
    vocab = vocabulary(config.areas, records)
    chosen = unique(resolve(n, vocab, allow_new=allow_new, option=option).name for n in names)
    warnings = [f"area {a!r} is not in the 'areas' of {config.path}; add it there to give it "
                "a place in lists and pages" for a in unlisted(chosen, config)]
    return chosen, warnings


def unlisted(names: Sequence[str], config: Config) -> list[str]:
    """The ``names`` a config that lists areas does not list (none when it lists none:
    the library's areas are the vocabulary then)."""
    configured = {area_key(a) for a in config.areas}
    return [a for a in names if configured and area_key(a) not in configured]


def find_used(name: str, records: Iterable[Record]) -> str | None:
    """The spelling of area ``name`` as used in ``records`` (None if nobody uses it)."""
    target = area_key(name)
    return next((a for a in library_areas(records) if area_key(a) == target), None)


# ------------------------------------------------------------------ keywords and areas
# A file's own ``keywords`` (a JabRef group, Zotero tags, biblatex-examples' "primary")
# share the field with the areas: an import counts as areas only those the vocabulary
# names (``pubcli import --areas-from-keywords`` makes the others areas too).
@dataclass
class Keywords:
    """An incoming entry's keywords sorted against the vocabulary: ``areas`` (the
    vocabulary's spelling), ``near`` ((keyword, the area it is close to): did you mean)
    and ``other`` (not areas)."""

    areas: list[str] = field(default_factory=list)
    near: list[tuple[str, str]] = field(default_factory=list)
    other: list[str] = field(default_factory=list)


def sort_keywords(keywords: Iterable[str], known: Sequence[str]) -> Keywords:
    """Match each keyword with the area matcher (:func:`resolve`'s folding, and
    :func:`suggest` for a near miss) against the vocabulary ``known``."""
    out = Keywords()
    canon = {area_key(a): a for a in known}
    for k in unique(keywords):
        hit = canon.get(area_key(k))
        if hit is not None:
            out.areas.append(hit)
            continue
        close = suggest(k, known) if known else None
        if close is not None:
            out.near.append((k, close))
        else:
            out.other.append(k)
    return out


# ------------------------------------------------------------------ record edits
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
    drop = {area_key(a) for a in remove}
    new = [a for a in current if area_key(a) not in drop]
    have = {area_key(a) for a in new}
    new += [a for a in unique(add) if area_key(a) not in have]
    if new == current:
        return None
    return with_areas(rec, new)


def rename(rec: Record, old: str, new: str) -> Record | None:
    """``rec`` with area ``old`` (any case) renamed to ``new``, in place in the list;
    when ``rec`` already has ``new``, ``old`` is merged into it (dropped). None when
    unchanged."""
    current = split_areas(rec.fields.get(AREA_FIELD))
    f_old, f_new = area_key(old), area_key(new)
    if not any(area_key(a) == f_old for a in current):
        return None
    merge = f_new != f_old and any(area_key(a) == f_new for a in current)
    out = [a for a in current if area_key(a) != f_old] if merge else \
        [new if area_key(a) == f_old else a for a in current]
    if out == current:
        return None
    return with_areas(rec, out)


def set_featured(rec: Record, featured: bool) -> Record | None:
    """``rec`` with the featured marker set or cleared; None when unchanged."""
    if rec.featured == featured and (featured or FEATURED_FIELD not in rec.fields):
        return None
    fields = dict(rec.fields)
    if featured:
        fields[FEATURED_FIELD] = "true"
    else:
        fields.pop(FEATURED_FIELD, None)
    return rec.copy(fields=fields)


# ------------------------------------------------------------------ pubcli tag
@dataclass
class TagPlan:
    """What a tag command changes: (entry as it is, entry as it becomes) pairs, and
    warnings for the user. Apply it with ``lib.replace(old, new)`` (by identity: keys repeat)."""

    changes: list[tuple[Record, Record]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    path: Path | None = None  # the library, for the warnings
    config_rename: tuple[str, str] | None = None  # (old, new) to rename in the config too
    config_add: list[str] = field(default_factory=list)  # new areas (--new) for the config

    def propose(self, old: Record, new: Record) -> None:
        """Plan ``old`` -> ``new``, unless pubcli must leave ``old``'s text alone (no key,
        a repeated field): then say so and go on with the others."""
        why = read_only_reason(old)
        if why:
            name = f"entry '{old.key}'" if old.key else f"the @{old.type} entry"
            where = f"{self.path}:{old.line}" if self.path else f"line {old.line}"
            self.warnings.append(f"{where}: {name} was left as it is ({why}); "
                                 "fix it by hand to change it")
        else:
            self.changes.append((old, new))


def select_entries(records: Sequence[Record], keys: Sequence[str] = (),
                   filters: Filters | None = None, *, confirm_all: bool = False,
                   preview: bool = False, path: Path | None = None) -> list[Record]:
    """The entries a tag command works on.

    Either those named by ``keys`` (an exact key first, else compared
    case-insensitively; each entry once, in the order named), or those
    ``filters`` select, which a change needs ``confirm_all`` for (``preview``,
    a dry run, may list them without it). ``confirm_all`` without filters
    selects every entry.
    """
    from pubcli.usecases.grouping import select

    has_filters = filters is not None and not filters.is_empty()
    if keys:
        if confirm_all or has_filters:
            raise ValidationError("give KEYs or filters with --all, not both")
        return _by_keys(records, keys, path)
    if not (has_filters or confirm_all):
        raise ValidationError("name the entries by KEY, or select them with --search, --year, "
                              "--type, --area or --author plus --all (--all alone: every entry)")
    chosen = select(records, filters)
    if not (confirm_all or preview):
        raise ValidationError(f"the filters select {len(chosen)} "
                              f"entr{'y' if len(chosen) == 1 else 'ies'}; add --all to change "
                              "them (or --dry-run to see them first)")
    return chosen


def _by_keys(records: Sequence[Record], keys: Sequence[str],
             path: Path | None = None) -> list[Record]:
    """The entries named by ``keys`` (:mod:`pubcli.usecases.refs`: a key used by several entries
    is refused, since changing the first of them would be a guess)."""
    return refs.resolve_many(records, keys, path=path)


def plan_tag(records: Sequence[Record], config: Config, *, keys: Sequence[str] = (),
             filters: Filters | None = None, add: Sequence[str] = (),
             remove: Sequence[str] = (), featured: bool | None = None,
             rename: tuple[str, str] | None = None, allow_new: bool = False,
             confirm_all: bool = False, preview: bool = False,
             path: Path | None = None) -> TagPlan:
    """What ``pubcli tag`` changes in ``records`` (of the library at ``path``).

    ``add``/``remove`` are area names as typed, resolved against the
    vocabulary (``allow_new`` accepts new ones for ``add``, listed in ``config_add``
    for the config's ``areas``, so ``check`` knows them); ``featured`` sets
    (True) or clears (False) the marker; ``rename`` (OLD, NEW) works on the
    whole library and goes alone (see :func:`plan_rename`). The entries are
    chosen by :func:`select_entries`. Entries already as asked are left out
    of the plan.
    """
    has_filters = filters is not None and not filters.is_empty()
    if rename is not None:
        if keys or add or remove or featured is not None or has_filters or confirm_all:
            raise ValidationError("--rename works on the whole library; give it alone "
                                  "(with --new or --dry-run if needed)")
        return plan_rename(records, config, *rename, allow_new=allow_new, path=path)
    if not (add or remove or featured is not None):
        raise ValidationError("nothing to do: give --add AREA, --remove AREA, --rename OLD NEW, "
                              "--featured or --not-featured")
    for name in (*add, *remove):
        clean(name)
    targets = select_entries(records, keys, filters, confirm_all=confirm_all, preview=preview,
                             path=path)
    to_add, _ = choose(add, records, config, allow_new=allow_new, option="--add")
    known = [*config.areas, *library_areas(records)] if remove else []
    to_remove = unique(resolve(a, known, option="--remove").name for a in remove)
    removed = {area_key(a) for a in to_remove}
    both = [a for a in to_add if area_key(a) in removed]
    if both:
        raise ValidationError(f"area {both[0]!r} is both added and removed")
    plan = TagPlan(path=path, config_add=unlisted(to_add, config))
    for rec in targets:
        new = edit(rec, to_add, to_remove) or rec
        if featured is not None:
            new = set_featured(new, featured) or new
        if new is not rec:
            plan.propose(rec, new)
    return plan


def plan_rename(records: Sequence[Record], config: Config, old: str, new: str, *,
                allow_new: bool = False, path: Path | None = None) -> TagPlan:
    """Rename area ``old`` to ``new`` in every entry that has it (merging into ``new``
    where an entry has both). ``old`` must be in use; a ``new`` outside the
    vocabulary but close to one of its areas is refused unless ``allow_new``."""
    old, new = clean(old), clean(new)
    used = find_used(old, records)
    if used is None:
        close = suggest(old, library_areas(records))
        raise ValidationError(f"--rename: no entry has the area {old!r}{did_you_mean(close)}")
    vocab = vocabulary(config.areas, records)
    if not allow_new and not any(area_key(v) == area_key(new) for v in vocab):
        close = suggest(new, [v for v in vocab if area_key(v) != area_key(used)])
        if close is not None:
            raise ValidationError(f"--rename: {new!r} is close to the existing area {close!r}; "
                                  f"did you mean {close!r}? (pass --new to use {new!r})")
    plan = TagPlan(path=path)
    for rec in records:
        out = rename(rec, used, new)
        if out is not None:
            plan.propose(rec, out)
    if any(area_key(a) == area_key(used) for a in config.areas) and used != new:
        plan.config_rename = (used, new)
    return plan


# ------------------------------------------------------------------ pubcli areas
@dataclass
class AreaCount:
    name: str
    count: int
    configured: bool  # listed in the config's areas


def counts(records: Iterable[Record], config_areas: Sequence[str]) -> list[AreaCount]:
    """Each area with its number of publications: the config's areas first, in their
    order (count 0 when unused), then the other areas in the library by name."""
    per_value = Counter(rec.fields.get(AREA_FIELD) for rec in records)  # few distinct values
    tally: Counter[str] = Counter()
    spelling: dict[str, str] = {}
    for value, n in per_value.items():
        for area in split_areas(value):
            f = area_key(area)
            tally[f] += n
            spelling.setdefault(f, area)
    listed = {area_key(a) for a in config_areas}
    out = [AreaCount(area, tally[area_key(area)], True) for area in config_areas]
    out += [AreaCount(spelling[f], tally[f], False) for f in sorted(tally) if f not in listed]
    return out
