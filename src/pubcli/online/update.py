"""``pubcli update``: fill entries' missing fields and upgrade preprints, from the web.

For each entry, :func:`find` asks, in order: Crossref for its DOI (doi.org for
other agencies); arXiv for its arXiv id, then the published version (the DOI arXiv
gives, else a Crossref query by title); a Crossref bibliographic query by title
for an entry with neither. A query's best hit is taken only when it is clearly
ahead of the next (:data:`MARGIN`) *and* the dedupe matcher calls it the same
work (title, authors, year). :func:`diff` then decides, field by field: a missing
field is filled; a value the user wrote is kept unless ``--overwrite FIELD``; a
preprint found published becomes the published type with its venue, keeping its
``eprint``/``archiveprefix``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..entries import VENUE_TARGET, normalize_doi, order_fields
from ..errors import ValidationError
from ..model import AREA_FIELD, FEATURED_FIELD, Record
from . import NotFoundOnline, arxiv, crossref, doi as doi_mod, ids, mapping
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


def plan(client: Client, records: Sequence[Record], overwrite: Sequence[str] = ()) -> list[Update]:
    """One :class:`Update` per record (network errors raise; nothing is changed)."""
    from ..bibtex import FIELD_NAME_RE

    wanted = {o.strip().lower() for o in overwrite}
    for name in sorted(wanted):
        if not FIELD_NAME_RE.match(name):
            raise ValidationError(f"--overwrite: '{name}' is not a field name")
    out = []
    for rec in records:
        found, notes = find(client, rec)
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
    return out


def _doi_of(rec: Record) -> str:
    raw = rec.fields.get("doi", "").strip()
    if not raw:
        return ""
    try:
        return normalize_doi(raw)
    except ValidationError:
        return ""


def find(client: Client, rec: Record) -> tuple[mapping.Found | None, list[str]]:
    """The best description of ``rec`` the services give, and notes for the user."""
    notes: list[str] = []
    doi = _doi_of(rec)
    arx = ids.arxiv_of(rec.fields)
    if doi and not doi.lower().startswith("10.48550/"):
        msg = crossref.work(client, doi)
        if msg is not None:
            return crossref.to_found(msg, source="crossref"), notes
        try:
            return doi_mod.lookup(client, doi), notes
        except NotFoundOnline as exc:
            return None, [exc.message]
    if arx:
        try:
            pre = arxiv.fetch(client, arx)
        except NotFoundOnline as exc:
            return None, [exc.message]
        if pre.doi and not pre.doi.lower().startswith("10.48550/"):
            msg = crossref.work(client, pre.doi)
            if msg is not None:
                return crossref.to_found(msg, source="crossref"), notes
        published, why = query(client, rec)
        if published is not None and not published.preprint:
            return published, notes
        if why:
            notes.append(why)
        return pre.found, notes
    found, why = query(client, rec)
    return found, [why] if why else []


def query(client: Client, rec: Record) -> tuple[mapping.Found | None, str]:
    """Crossref's best hit for the entry's title and first author, when it is clearly
    ahead of the next one and the matcher agrees; else (None, why)."""
    from ..dedupe import find_matches
    from ..latex import to_text
    from ..names import parse_name, split_authors

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
    from ..latex import fold, to_text

    if name == "doi":
        return a.strip().lower() == b.strip().lower()
    return fold(" ".join(to_text(a).split())) == fold(" ".join(to_text(b).split()))
