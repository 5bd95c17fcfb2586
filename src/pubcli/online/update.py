"""``pubcli update``: fill entries' missing fields and upgrade preprints, from the web.

The DOIs and arXiv ids of all the entries are asked first in batches
(:class:`Sources`: Crossref ``filter=doi:a,doi:b``, arXiv ``id_list=a,b``; 100
preprints are two arXiv requests, not 100 three seconds apart). Then for each
entry, :func:`find` takes, in order: Crossref's record of its DOI (doi.org for
other agencies); arXiv's for its arXiv id, then the published version (the DOI
arXiv gives, at Crossref or doi.org, else a Crossref query by title; with neither,
arXiv's journal reference becomes the ``note``); a Crossref bibliographic query by
title for an entry with neither. A query's best hit is taken only when it is clearly
ahead of the next (:data:`MARGIN`) *and* the dedupe matcher calls it the same
work (title, authors, year). :func:`diff` then decides, field by field: a missing
field is filled; a value the user wrote is kept unless ``--overwrite FIELD``; a
preprint found published becomes the published type with its venue, keeping its
``eprint``/``archiveprefix``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Sequence

from pubcli.usecases.newentry import normalize_doi, order_fields
from pubcli.schema.types import VENUE_TARGET
from ..errors import ValidationError
from pubcli.schema.model import AREA_FIELD, FEATURED_FIELD, Record
from pubcli.schema import identifiers
from . import BadResponse, NotFoundOnline, arxiv, crossref, doi as doi_mod, mapping
from .http import Client

MARGIN = 1.25   # the best hit's score must be this many times the next one's
NEVER = frozenset({AREA_FIELD, FEATURED_FIELD, "eprint", "archiveprefix"})


@dataclass
class FieldChange:
    name: str
    old: str | None
    new: str | None
    kind: str   # "add", "overwrite", "kept" (a differing value left as the user wrote it)


@dataclass
class Update:
    old: Record
    new: Record | None                  # None: nothing to change
    changes: list[FieldChange] = field(default_factory=list)
    source: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def applied(self) -> list[FieldChange]:
        return [c for c in self.changes if c.kind != "kept"]


from pubcli.usecases.progress import Progress  # noqa: E402 - (what is asked, done, total): the one seam


class Sources:
    """What the services say about the records of one update: asked in batches first
    (:meth:`prefetch`: Crossref ``filter=doi:``, arXiv ``id_list``), one by one after."""

    def __init__(self, client: Client, progress: Progress | None = None) -> None:
        self.client = client
        self.progress = progress
        self._works: dict[str, dict | None] = {}
        self._preprints: dict[str, arxiv.Preprint | None] = {}

    def prefetch(self, records: Sequence[Record]) -> None:
        dois = [d for d in map(_doi_of, records) if d and not _is_arxiv_doi(d)]
        arxs = [a for r in records if not _is_published_doi(_doi_of(r))
                for a in [identifiers.arxiv_of(r.fields)] if a]
        self._batch_works(dois)
        if arxs:
            found = self._batched("arXiv", len(arxs),
                                  lambda tick: arxiv.fetch_many(self.client, arxs, tick))
            if found is not None:
                for a in arxs:
                    self._preprints[a] = found.get(a)
                self._batch_works([p.doi for p in found.values() if _is_published_doi(p.doi)])

    def _batch_works(self, dois: Sequence[str | None]) -> None:
        from pubcli.schema.values import doi_match_key

        todo = [d for d in dict.fromkeys(d for d in dois if d)
                if doi_match_key(d) not in self._works and "," not in d]
        if todo:
            found = self._batched("Crossref", len(todo),
                                  lambda tick: crossref.works_many(self.client, todo, tick))
            self._works.update(found or {})

    def _batched(self, name: str, total: int, ask):
        """A batch request; a batch the service refuses is asked again one by one."""
        done = [0]

        def tick(n: int) -> None:
            done[0] += n
            if self.progress is not None:
                self.progress(f"asking {name}", done[0], total)

        try:
            return ask(tick)
        except BadResponse:
            return None

    def work(self, doi: str) -> dict | None:
        from pubcli.schema.values import doi_match_key

        key = doi_match_key(doi)
        if key not in self._works:
            self._works[key] = crossref.work(self.client, doi)
        return self._works[key]

    def preprint(self, arxiv_id: str) -> arxiv.Preprint:
        if arxiv_id in self._preprints:
            pre = self._preprints[arxiv_id]
            if pre is None:
                raise NotFoundOnline(f"arXiv does not know {arxiv_id}")
            return pre
        return arxiv.fetch(self.client, arxiv_id)


def _is_arxiv_doi(doi: str | None) -> bool:
    return bool(doi) and str(doi).lower().startswith("10.48550/")


def _is_published_doi(doi: str | None) -> bool:
    return bool(doi) and not _is_arxiv_doi(doi)


def plan(client: Client, records: Sequence[Record], overwrite: Sequence[str] = (),
         progress: Progress | None = None) -> list[Update]:
    """One :class:`Update` per record (network errors raise; nothing is changed)."""
    from ..bibtex import FIELD_NAME_RE

    wanted = {o.strip().lower() for o in overwrite}
    for name in sorted(wanted):
        if not FIELD_NAME_RE.match(name):
            raise ValidationError(f"--overwrite: '{name}' is not a field name")
    sources = Sources(client, progress)
    sources.prefetch(records)
    out = []
    for i, rec in enumerate(records):
        if progress is not None:
            progress("updating", i, len(records))
        found, notes = find(sources, rec)
        if found is None:
            out.append(Update(rec, None, notes=notes))
            continue
        try:
            new, changes = diff(rec, found, wanted)
        except ValidationError as exc:
            out.append(Update(rec, None, notes=[*notes, f"{found.source} gave a value pubcli "
                                                f"refuses: {exc.message}"]))
            continue
        out.append(Update(rec, new if any(c.kind != "kept" for c in changes) else None,
                          changes, found.source, notes))
    if progress is not None:
        progress("updating", len(records), len(records))
    return out


def _doi_of(rec: Record) -> str:
    raw = rec.fields.get("doi", "").strip()
    if not raw:
        return ""
    try:
        return normalize_doi(raw)
    except ValidationError:
        return ""


def find(sources: Sources | Client, rec: Record) -> tuple[mapping.Found | None, list[str]]:
    """The best description of ``rec`` the services give, and notes for the user."""
    if isinstance(sources, Client):
        sources = Sources(sources)
    client = sources.client
    notes: list[str] = []
    doi = _doi_of(rec)
    arx = identifiers.arxiv_of(rec.fields)
    if doi and not _is_arxiv_doi(doi):
        msg = sources.work(doi)
        if msg is not None:
            return crossref.to_found(msg, source="crossref"), notes
        try:
            return doi_mod.lookup(client, doi), notes
        except NotFoundOnline as exc:
            return None, [exc.message]
    if arx:
        try:
            pre = sources.preprint(arx)
        except NotFoundOnline as exc:
            return None, [exc.message]
        notes += pre.found.notes
        if _is_published_doi(pre.doi):
            published = _published(sources, str(pre.doi))
            if published is not None:
                return published, notes
        published, why = query(client, rec)
        if published is not None and not published.preprint:
            return published, notes
        if why:
            notes.append(why)
        if pre.journal_ref:
            pre.found.opts.fields.append(f"note={mapping.venue(pre.journal_ref)}")
            notes.append(f"arXiv gives the journal reference '{pre.journal_ref}' but no "
                         "published record was found; kept as the note")
        return pre.found, notes
    found, why = query(client, rec)
    return found, [why] if why else []


def _published(sources: Sources, doi: str) -> mapping.Found | None:
    """The published version a preprint's DOI names: Crossref's record, else doi.org's
    (DataCite, mEDRA...); None when neither knows it."""
    msg = sources.work(doi)
    if msg is not None:
        return crossref.to_found(msg, source="crossref")
    try:
        found = doi_mod.lookup(sources.client, doi)
    except NotFoundOnline:
        return None
    return None if found.preprint else found


def query(client: Client, rec: Record) -> tuple[mapping.Found | None, str]:
    """Crossref's best hit for the entry's title and first author, when it is clearly
    ahead of the next one and the matcher agrees; else (None, why)."""
    from ..dedupe import find_matches
    from pubcli.text.latex import to_text
    from pubcli.schema.names import parse_name, split_authors

    title = to_text(rec.title)
    if not title:
        return None, "no title to search for"
    people = split_authors(rec.fields.get("author"))
    author = parse_name(people[0]).last if people else None
    items = crossref.search(client, title, author)
    if not items:
        return None, "Crossref found nothing for the title"
    best = items[0]
    if len(items) > 1:
        a, b = crossref.score(best), crossref.score(items[1])
        if a < MARGIN * b:
            return None, (f"Crossref's two best hits are close (scores {a:g} and {b:g}); "
                          "none was taken (set the doi field by hand and update again)")
    found = crossref.to_found(best, source="crossref")
    if not find_matches(found.record(), [rec], threshold=None):
        shown = to_text(mapping.first(best.get("title")) or "")
        return None, (f"Crossref's best hit ('{shown}') is not the same work by the "
                      "matcher (title, authors, year); not taken")
    return found, ""


def diff(old: Record, found: mapping.Found,
         overwrite: set[str]) -> tuple[Record, list[FieldChange]]:
    """The entry with what ``found`` adds, and the changes field by field."""
    fetched = found.record()
    changes: list[FieldChange] = []
    fields = dict(old.fields)
    new_type = old.type
    upgrade = (mapping.is_preprint_type(old.type) and not found.preprint
               and not mapping.is_preprint_type(fetched.type))
    if upgrade or ("type" in overwrite and fetched.type != old.type):
        new_type = fetched.type
        changes.append(FieldChange("type", old.type, new_type, "overwrite"))
    elif fetched.type != old.type:
        changes.append(FieldChange("type", old.type, fetched.type, "kept"))
    wrong_venues = set(VENUE_TARGET.values()) - {VENUE_TARGET.get(new_type, "howpublished")}
    for name, value in fetched.fields.items():
        if name in NEVER or name in wrong_venues and name not in old.fields:
            continue
        cur = old.fields.get(name)
        if cur is None or not cur.strip():
            fields[name] = value
            changes.append(FieldChange(name, None, value, "add"))
        elif cur != value and name in overwrite:
            fields[name] = value
            changes.append(FieldChange(name, cur, value, "overwrite"))
        elif cur != value and not _same(name, cur, value):
            changes.append(FieldChange(name, cur, value, "kept"))
    return old.copy(type=new_type, fields=order_fields(fields)), changes


def _same(name: str, a: str, b: str) -> bool:
    """Values that differ only in form (case, braces, accents as LaTeX or Unicode)."""
    from pubcli.text.latex import to_text
    from pubcli.text.fold import fold

    if name == "doi":
        return a.strip().lower() == b.strip().lower()
    return fold(" ".join(to_text(a).split())) == fold(" ".join(to_text(b).split()))
