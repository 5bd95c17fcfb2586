"""``pubcli sync``: a researcher's works from ORCID, DBLP and OpenAlex against the library.

:func:`fetch` asks each source for the person's works (a source that fails is a
warning, the others go on), and :func:`cluster` puts together what the sources say
about the same work (the dedupe matcher decides), preferring a published version
over its preprint and keeping the preprint's arXiv id. :func:`plan` (no network)
then matches each work against the library: an entry that records the source's
id (``dblp``, ``openalex``, ``orcid-put-code``) or that the matcher calls the same
work is *present*, and gains the ids and the missing fields the work has; any
other work is *added*, through the checks of ``pubcli add``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable, Sequence

from pubcli.usecases.newentry import EntryOptions, order_fields
from pubcli.schema.types import VENUE_TARGET
from ..errors import PubcliError, ValidationError
from pubcli.schema import identifiers
from pubcli.schema.model import Record
from . import BadResponse, NetworkError, NotFoundOnline, crossref, ids, mapping
from .http import Client
from .services import NAMES

SOURCES = ("dblp", "openalex", "orcid")          # the order they are asked
# the order they are trusted, field by field (the registration agencies first)
PRIORITY = {"crossref": 0, "doi": 0, "dblp": 1, "arxiv": 2, "openalex": 3, "orcid": 4}
# what a preprint's description cannot say of its published version
PUBLISHED_ONLY = frozenset({"doi", "volume", "number", "pages", "year", "month", "publisher",
                            "isbn", "series", "editor"})
ID_FIELDS = ("dblp", "openalex", "orcid-put-code")
FILLABLE = ("doi", "pages", "volume", "number", "month")
_PARSERS: dict[str, Callable[[str], str]] = {
    "orcid": ids.parse_orcid, "dblp": ids.parse_dblp, "openalex": ids.parse_openalex}


@dataclass
class Work:
    """One work as the sources together describe it."""

    found: list[mapping.Found]
    record: Record = field(init=False)
    origin: dict[str, str] = field(init=False)   # field -> the source that gave it

    def __post_init__(self) -> None:
        self.rebuild()

    def rebuild(self) -> None:
        self.record, self.origin = merge(self.found)

    def explain(self) -> str:
        return explain(self.origin, list(self.record.fields))

    @property
    def sources(self) -> list[str]:
        return sorted({f.source for f in self.found}, key=lambda s: PRIORITY.get(s, 9))

    @property
    def label(self) -> str:
        return ", ".join(NAMES.get(s, s) for s in self.sources)


def explain(origin: dict[str, str], names: Sequence[str]) -> str:
    """"from Crossref: author, title; from DBLP: dblp": the source of each field named."""
    by: dict[str, list[str]] = {}
    for k in names:
        if origin.get(k):
            by.setdefault(origin[k], []).append(k)
    order = sorted(by, key=lambda s: PRIORITY.get(s, 9))
    return "; ".join(f"from {NAMES.get(s, s)}: {', '.join(by[s])}" for s in order)


@dataclass
class Change:
    old: Record
    new: Record
    added: list[str]           # field names gained
    origin: dict[str, str] = field(default_factory=dict)   # field -> its source

    def explain(self) -> str:
        return explain(self.origin, self.added)


@dataclass
class Plan:
    added: list[tuple[Record, Work]] = field(default_factory=list)
    changed: list[Change] = field(default_factory=list)
    present: list[tuple[Record, Work]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def person_ids(given: dict[str, str | None], config) -> dict[str, str]:
    """The ids to sync: those given on the command line, else those of pubcli.toml;
    each checked."""
    chosen = {k: v for k, v in given.items() if v}
    where = "the command line"
    if not chosen:
        chosen = {k: getattr(config, k) for k in SOURCES if getattr(config, k, None)}
        where = str(config.path) if config.path else "pubcli.toml"
    if not chosen:
        raise ValidationError("nothing to sync: give --orcid, --dblp or --openalex, or set "
                              "orcid, dblp or openalex in pubcli.toml")
    out = {}
    for k, v in chosen.items():
        try:
            out[k] = _PARSERS[k](v)
        except ValidationError as exc:
            raise ValidationError(f"{exc.message} (from {where})", field=k) from None
    return out


# ---------------------------------------------------------------- fetching
def fetch(client: Client, people: dict[str, str]) -> tuple[list[Work], list[str]]:
    """The works of the person at each source, clustered; and one warning per source
    that failed. Raises when every source failed."""
    from . import dblp, openalex, orcid

    fetchers = {"dblp": dblp.works, "openalex": openalex.works, "orcid": orcid.works}
    found: list[mapping.Found] = []
    warnings: list[str] = []
    for name in SOURCES:
        if name not in people:
            continue
        try:
            found += fetchers[name](client, people[name])
        except (NetworkError, BadResponse, NotFoundOnline) as exc:
            warnings.append(f"{NAMES[name]} ({people[name]}): {_short(exc)}; skipped")
    if warnings and len(warnings) == len(people):
        raise NetworkError("no source answered: " + " / ".join(warnings))
    works = cluster(_readable(found, warnings))
    try:
        known = crossref.works_many(client, [w.record.fields["doi"] for w in works
                                             if _needs_authors(w) and "," not in
                                             w.record.fields.get("doi", ",")])
    except BadResponse:
        known = {}   # asked one by one below
    for work in works:
        try:
            complete(client, work, None, known)
        except (NetworkError, BadResponse, NotFoundOnline) as exc:
            warnings.append(f"{work.label}: '{work.record.title}': {_short(exc)}")
    orcid_id = people.get("orcid")
    if orcid_id:
        _orcid_authors(client, orcid_id, [w for w in works if _needs_authors(w)], warnings)
    return works, warnings


def _orcid_authors(client: Client, orcid_id: str, works: list[Work],
                   warnings: list[str]) -> None:
    """The authors of works only ORCID describes, from its full records, in bulk."""
    from . import orcid

    founds = [f for w in works for f in w.found if f.source == "orcid" and orcid.ID_FIELD in f.ids]
    try:
        orcid.details_many(client, orcid_id, founds)
    except BadResponse:
        for f in founds:   # asked one by one
            try:
                orcid.details(client, orcid_id, f)
            except (NetworkError, BadResponse, NotFoundOnline) as exc:
                warnings.append(f"ORCID: '{f.opts.title}': {_short(exc)}")
    except (NetworkError, NotFoundOnline) as exc:
        warnings.append(f"ORCID ({orcid_id}): the authors of {len(works)} works: "
                        f"{_short(exc)}")
    for w in works:
        w.rebuild()


def _needs_authors(work: Work) -> bool:
    return not work.record.fields.get("author")


def _readable(found: list[mapping.Found], warnings: list[str]) -> list[mapping.Found]:
    """The works whose values pubcli accepts (a malformed year or DOI from a source is
    a warning, not the end of the sync)."""
    out = []
    for f in found:
        try:
            f.record()
        except ValidationError as exc:
            warnings.append(f"{NAMES.get(f.source, f.source)}: '{f.opts.title or '(untitled)'}'"
                            f": {exc.message}; skipped")
            continue
        out.append(f)
    return out


def _short(exc: PubcliError) -> str:
    return exc.message.replace("; nothing was written", "")


def complete(client: Client, work: Work, orcid_id: str | None,
             known: dict[str, dict | None] | None = None) -> None:
    """A work without authors (ORCID summaries have none): its DOI's Crossref record
    (from ``known``, Crossref's answers asked in one batch, else asked now), else
    ORCID's full work record."""
    from pubcli.schema.values import doi_match_key

    if not _needs_authors(work):
        return
    doi = work.record.fields.get("doi")
    if doi:
        key = doi_match_key(doi)
        msg = known[key] if known is not None and key in known else crossref.work(client, doi)
        if msg is not None:
            work.found.append(crossref.to_found(msg, source="crossref"))
            work.rebuild()
            return
    if orcid_id:
        from . import orcid

        for f in work.found:
            if f.source == "orcid" and orcid.ID_FIELD in f.ids:
                orcid.details(client, orcid_id, f)
                work.rebuild()
                return


def cluster(found: Sequence[mapping.Found]) -> list[Work]:
    """Group what the sources say about the same work (the dedupe matcher decides)."""
    from ..dedupe import Guard

    ordered = sorted(found, key=lambda f: PRIORITY.get(f.source, 9))
    pool: list[Record] = []
    guard = Guard(pool)
    owner: list[Work] = []
    works: list[Work] = []
    for f in ordered:
        rec = f.record()
        match = next(iter(guard.matches(rec)), None)
        if match is not None:
            work = owner[next(i for i, r in enumerate(pool) if r is match.record)]
            work.found.append(f)
            work.rebuild()
        else:
            work = Work([f])
            works.append(work)
        pool.append(rec)
        guard.add(rec)
        owner.append(work)
    return works


def merge(found: Sequence[mapping.Found]) -> tuple[Record, dict[str, str]]:
    """One record from several descriptions, and the source of each field. The type
    is the published version's; each field comes from the most trusted source that
    has it (:data:`PRIORITY`: Crossref/DataCite > DBLP > arXiv > OpenAlex > ORCID),
    a preprint's description giving only what a preprint can say of the published
    work (its arXiv id, and title or authors no published source has). The month
    comes with the year: from a source that gave the same year."""
    ranked = sorted(found, key=lambda f: (f.preprint, PRIORITY.get(f.source, 9)))
    base = ranked[0]
    described = [(f, f.record()) for f in ranked]
    rec = described[0][1]
    other_venues = set(VENUE_TARGET.values()) - {VENUE_TARGET.get(rec.type, "howpublished")}
    fields: dict[str, str] = {}
    origin: dict[str, str] = {}
    for f, r in described:
        for k, v in r.fields.items():
            if k in fields or k in other_venues or k == "month":
                continue
            if f.preprint and not base.preprint and (k in PUBLISHED_ONLY
                                                     or k == VENUE_TARGET.get(rec.type)):
                continue
            if k in ("eprint", "archiveprefix", "primaryclass") and identifiers.arxiv_of(fields) \
                    and origin.get("eprint") != f.source:
                continue
            fields[k] = v
            origin[k] = f.source
    if "year" not in fields:     # only preprints know the year
        for f, r in described:
            if r.fields.get("year"):
                fields["year"], origin["year"] = r.fields["year"], f.source
                break
    for f, r in described:
        if r.fields.get("month") and r.fields.get("year") == fields.get("year"):
            fields["month"], origin["month"] = r.fields["month"], f.source
            break
    return rec.copy(fields=order_fields(fields)), origin


# ---------------------------------------------------------------- planning
def plan(records: Sequence[Record], works: Sequence[Work], config, *,
         areas: Sequence[str] = (), allow_new: bool = False) -> Plan:
    """What syncing ``works`` would do to ``records`` (nothing is changed here)."""
    from ..dedupe import Guard
    from pubcli.usecases.adding import plan_add

    from pubcli.usecases.areas import choose

    out = Plan()
    chosen, out.warnings = choose(list(areas), records, config, allow_new=allow_new)
    pool = list(records)
    guard = Guard(pool)  # the library and what is added, judged by one matcher
    added: set[int] = set()
    by_id: dict[tuple[str, str], Record] = {}
    for r in pool:
        _index_ids(by_id, r)
    current: dict[int, Record] = {}   # id(original) -> its new version
    changes: dict[int, Change] = {}
    form = mapping.NameForm(records)
    for work in works:
        rec = mapping.names_as_library(work.record, form)
        old = next((by_id[(k, rec.fields[k])] for k in ID_FIELDS
                    if (k, rec.fields.get(k)) in by_id), None)
        if old is None:
            matches = guard.matches(rec)
            old = matches[0].record if matches else None
        if old is not None and id(old) in added:
            out.present.append((old, work))  # two descriptions the clustering kept apart
            continue
        if old is not None:
            out.present.append((old, work))
            latest = current.get(id(old), old)
            gained = gains(latest, rec)
            if gained:
                new = latest.copy(fields=order_fields({**latest.fields, **gained}))
                current[id(old)] = new
                ch = changes.get(id(old))
                if ch is None:
                    ch = changes[id(old)] = Change(old, new, [])
                    out.changed.append(ch)
                ch.new = new
                ch.origin.update((k, work.origin.get(k, "")) for k in gained)
                ch.added += list(gained)
                _index_ids(by_id, new, old)
            if mapping.is_preprint_type(old.type) and not mapping.is_preprint_type(rec.type):
                out.notes.append(f"{old.key}: listed as @{rec.type} by {work.label}; "
                                 f"'pubcli update {old.key}' upgrades the preprint")
            continue
        try:
            add = plan_add(pool, options_of(rec, chosen), config, allow_new=True,
                           prompted=True, guard=guard)
        except ValidationError as exc:
            out.warnings.append(f"{work.label}: '{rec.title or '(untitled)'}' not added: "
                                f"{exc.message.replace('; nothing was written', '')}")
            continue
        new = add.records[0]
        added.add(id(new))
        pool.append(new)
        guard.add(new)
        _index_ids(by_id, new)
        out.added.append((new, work))
    return out


def _index_ids(by_id: dict, rec: Record, alias: Record | None = None) -> None:
    for k in ID_FIELDS:
        v = rec.fields.get(k)
        if v:
            by_id[(k, v)] = alias if alias is not None else rec


def gains(old: Record, work: Record) -> dict[str, str]:
    """The fields ``old`` would gain from ``work``: source ids, and missing values
    that fit its type (never a value already there)."""
    out = {k: work.fields[k] for k in ID_FIELDS if work.fields.get(k) and not old.fields.get(k)}
    same_kind = old.type == work.type
    names = list(FILLABLE) + ([VENUE_TARGET[old.type]] if old.type in VENUE_TARGET else [])
    for k in names:
        if (k in ("doi", "pages", "volume", "number") or k == VENUE_TARGET.get(old.type)) \
                and not same_kind:
            continue
        if work.fields.get(k) and not old.fields.get(k):
            out[k] = work.fields[k]
    if not identifiers.arxiv_of(old.fields) and identifiers.arxiv_of(work.fields):
        out.update(eprint=work.fields["eprint"], archiveprefix=work.fields.get(
            "archiveprefix", "arXiv"))
    return out


def options_of(rec: Record, areas: Sequence[str]) -> EntryOptions:
    """The add options that make ``rec`` (every field passed through)."""
    f = dict(rec.fields)
    author = f.pop("author", None)
    return EntryOptions(type=rec.type, title=f.pop("title", None),
                        authors=[author] if author else [], year=f.pop("year", None),
                        month=f.pop("month", None), doi=f.pop("doi", None),
                        url=f.pop("url", None), areas=list(areas),
                        fields=[f"{k}={v}" for k, v in f.items()])
