"""Reading publications to import (a ``.bib`` file or a copied listing, :mod:`.listing`)
and judging each against the library: new, a duplicate, a repeat, a near-duplicate to
review, held or invalid; the decisions remembered; the plan ``pubcli import`` writes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from collections.abc import Mapping, Sequence

from pubcli.usecases import sources
from pubcli.errors import PubcliError, ValidationError
from pubcli.schema.model import Record
from pubcli.schema.names import known_names

if TYPE_CHECKING:
    from pubcli.local.config import Config
    from pubcli.usecases.progress import Progress

from pubcli.usecases.listing import Item, Listing, parse_listing
from pubcli.usecases.triage import Decisions, Outcome, plan, summary

# ------------------------------------------------------------------ files
FORMATS = ("auto", "bib", "text")

# where an input is read: :mod:`pubcli.usecases.sources` (re-exported for the commands)
read_input = sources.read_input
source_label = sources.source_label


def looks_like_bibtex(text: str) -> bool:
    return re.search(r"(?m)^\s*@\s*[A-Za-z]+\s*[{(]", text) is not None


def detect_format(source: str, text: str) -> str:
    """"bib" for a .bib name or text with @entries, else "text"."""
    return "bib" if source.lower().endswith(".bib") or looks_like_bibtex(text) else "text"


def read_source(source: str, text: str, *, fmt: str = "auto",
                known: Mapping[str, str] | None = None) -> tuple[list[Item], list[tuple[int, str]]]:
    """The items in ``text`` read from ``source`` as ``fmt`` ("bib", "text", or "auto":
    see :func:`detect_format`), and (line, message) warnings about what was skipped
    (the blocks not understood among them)."""
    got = read_items(source, text, fmt=fmt, known=known)
    return got.items, sorted(got.warnings + [(line, f"not understood: {why}")
                                             for line, why in got.unread])


def read_items(source: str, text: str, *, fmt: str = "auto",
               known: Mapping[str, str] | None = None) -> Listing:
    """What ``text`` read from ``source`` as ``fmt`` holds (see :func:`read_source`)."""
    text = text.removeprefix("\ufeff")
    if fmt == "auto":
        fmt = detect_format(source, text)
    if fmt == "bib":
        from pubcli import bibtex

        parsed = bibtex.parse(text)
        warnings = [(f.line, f"could not read this block, skipped: {f.reason}")
                    for f in parsed.failed]
        warnings += list(parsed.warnings)
        items = [Item(Record(r.key, r.type, r.fields), r.line) for r in parsed.records]
        return Listing(items, sorted(warnings))
    if fmt != "text":
        raise PubcliError(f"unknown format '{fmt}' ({', '.join(FORMATS)})")
    return parse_listing(text, known=known)


@dataclass
class ImportPlan:
    """What ``pubcli import`` does: one outcome per incoming item (add those with
    ``added``), warnings about the input, and how messages name the input."""

    outcomes: list[Outcome]
    warnings: list[str]
    where: str
    unread: list[tuple[int, str]] = field(default_factory=list)  # (line, reason)
    #: the added entries' own keywords that are not research areas (kept in the field)
    not_areas: list[str] = field(default_factory=list)
    #: with ``areas_from_keywords``: keywords to add to the config's areas
    new_areas: list[str] = field(default_factory=list)

    def summary(self) -> list[tuple[str, int]]:
        rows = summary(self.outcomes, len(self.unread))
        if self.not_areas:
            rows.append(("keywords that are not research areas (kept as keywords)",
                         len(self.not_areas)))
        return rows


class NothingToImport(ValidationError):
    """The input holds no publication; ``details`` are the warnings that may say why."""

    def __init__(self, message: str, *, details: list[str]) -> None:
        super().__init__(message, details=details)


def plan_import(text: str, library: Sequence[Record], config: Config, *, source: str = "-",
                fmt: str = "auto", areas: Sequence[str] = (), allow_new: bool = False,
                add_near: bool = False, force: bool = False, strict: bool = False,
                areas_from_keywords: bool = False, digest: str | None = None,
                decisions: Decisions | None = None,
                progress: Progress | None = None) -> ImportPlan:
    """Read ``text`` (from ``source``, "-" for stdin) as ``fmt`` and decide what an
    import into ``library`` does (see :func:`plan`). ``areas`` are names as typed,
    resolved against the vocabulary (``allow_new`` accepts new ones). Names in a
    text listing take the spelling the library already uses for them. ``strict``
    refuses entries with a shortfall BibTeX only warns about (see :func:`plan`).

    An entry's own ``keywords`` are kept as written; only those the vocabulary (the
    configured areas, else the library's) names count as research areas: the others
    are counted in ``not_areas``, a near miss gets a "did you mean" warning.
    ``areas_from_keywords`` opts in: a near miss is filed under the area it is close
    to, and the other keywords become areas (``new_areas``, for the config's list)."""
    from pubcli.usecases.areas import choose

    where = source_label(source)
    chosen, warnings = choose(areas, library, config, allow_new=allow_new)
    if fmt == "auto":
        fmt = detect_format(source, text)
    known = known_names(library) if fmt == "text" else None
    got = read_items(source, text, fmt=fmt, known=known)
    items = got.items
    problems = sorted(got.warnings + [(line, f"not understood: {why}")
                                      for line, why in got.unread])
    warnings += [f"{where}:{line}: {message}" for line, message in problems]
    if not items:
        hint = " (is it a listing? try --format text)" if fmt == "bib" else ""
        raise NothingToImport(f"{where}: found no publications to import{hint}",
                              details=warnings)
    if digest is not None:  # the library's bytes and the items': what the weights are of
        from pubcli.store.cache import digest_of

        digest = digest_of(f"{digest}\0".encode() + text.encode("utf-8", "surrogateescape"))
    outcomes = plan(items, library, force=force, add_near=add_near, areas=chosen,
                    strict=strict, digest=digest, decisions=decisions, progress=progress)
    warnings += outcome_warnings(outcomes, where)
    result = ImportPlan(outcomes, warnings, where, got.unread)
    _sort_keywords(result, library, config, adopt=areas_from_keywords)
    return result


def _sort_keywords(plan: ImportPlan, library: Sequence[Record], config: Config, *,
                   adopt: bool) -> None:
    """Which of the added entries' own keywords are research areas (see
    :func:`plan_import`): fills ``plan.not_areas`` or, with ``adopt``, files near misses
    under their area and lists the other keywords in ``plan.new_areas``."""
    from pubcli.usecases import areas as A
    from pubcli.text.fold import fold
    from pubcli.schema.model import AREA_FIELD, split_areas

    if not config.areas and not library:
        known: list[str] = []  # no vocabulary yet: the file's keywords will start it
    else:
        known = A.vocabulary(config.areas, library)
    not_areas: dict[str, str] = {}
    for o in plan.outcomes:
        if not o.added or o.item.held:
            continue
        sorted_ = A.sort_keywords(split_areas(o.item.record.fields.get(AREA_FIELD)), known)
        if adopt:
            for keyword, area in sorted_.near:
                o.record = A.rename(o.record, keyword, area) or o.record
            for keyword in sorted_.other:
                not_areas.setdefault(fold(keyword), keyword)
            continue
        for keyword, area in sorted_.near:
            plan.warnings.append(f"{plan.where}:{o.item.line}: entry '{o.record.key}': keyword "
                                 f"'{keyword}' is not a research area; did you mean '{area}'? "
                                 "(--areas-from-keywords files it there)")
        for keyword in [*(k for k, _ in sorted_.near), *sorted_.other]:
            not_areas.setdefault(fold(keyword), keyword)
    if not known:
        return  # every keyword is an area of a library without a vocabulary
    if adopt:
        plan.new_areas = list(not_areas.values()) if config.areas else []
    else:
        plan.not_areas = list(not_areas.values())


def outcome_warnings(outcomes: Sequence[Outcome], where: str) -> list[str]:
    """``FILE:LINE: ...`` for what each added entry falls short of (BibTeX's warnings)
    and for each key that could not be kept."""
    from pubcli.usecases.adding import renewed_key_note

    out = []
    for o in outcomes:
        if not o.added:
            continue
        out += [f"{where}:{o.item.line}: {w}" for w in o.shortfalls]
        if o.renamed_from:  # (a listing's items have no key to keep)
            out.append(f"{where}:{o.item.line}: {renewed_key_note(o.renamed_from, o.record.key)}")
    return out
