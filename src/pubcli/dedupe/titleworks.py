"""How many different works share a title: a heading a venue carries in every issue,
or one title written by people who have nothing in common, is not one work's."""

from __future__ import annotations

from collections.abc import Sequence

from .blocking import Index
from .features import Features
from .people import _close_name, names_nobody, shared_authors, swapped_shared


#: A title carried by records of one venue in this many issues (years or volumes) is a
#: heading ("Editor's comments", "Letter from the President"), not a work's title.
HEADING_ISSUES = 3


def title_works(index: Index) -> dict[str, int]:
    """How many different works share each title of two or more records: records
    without a person in common (or, without authors, years apart) count apart, and
    a title one venue carries in :data:`HEADING_ISSUES` or more issues counts as
    many works as issues (a column's heading: the same editor writes it each time)."""
    out: dict[str, int] = {}
    for title, members in index.by_title.items():
        if len(members) < 2:
            continue
        feats = [index.feats[i] for i in members]
        issues = _heading_issues(feats)
        if issues >= HEADING_ISSUES:
            out[title] = max(issues, len(feats) if len(feats) > 60 else 0)
            continue
        if len(feats) > 60:
            firsts = {f.authors[0].last[-1] if f.authors else ("", f.year) for f in feats}
            out[title] = len(firsts)
            continue
        reps: list[Features] = []
        for f in feats:
            if not any(_same_work(f, r) for r in reps):
                reps.append(f)
        if len(reps) > 1:
            out[title] = len(reps)
    return out


def _heading_issues(feats: Sequence[Features]) -> int:
    """The most issues (distinct years, volumes, or volume and issue numbers) one venue
    carries a title in, among records that name their venue."""
    by_venue: dict[str, tuple[set, set, set]] = {}
    for f in feats:
        if f.venue:
            years, volumes, issues = by_venue.setdefault(f.venue, (set(), set(), set()))
            volume, number = f.biblio[0], f.biblio[1]
            if f.year:
                years.add(f.year)
            if volume:
                volumes.add(volume)
                if number:
                    issues.add((volume, number))
    return max((max(map(len, sets)) for sets in by_venue.values()), default=0)


def _other_issues(a: Features, b: Features) -> bool:
    """Do two records name one venue and two of its issues (volume or number)?"""
    (va, na), (vb, nb) = a.biblio[:2], b.biblio[:2]
    return bool(a.venue) and a.venue == b.venue and (va, na) != (vb, nb) \
        and bool(va or na) and bool(vb or nb)


def _same_work(a: Features, b: Features) -> bool:
    """Could two records of one title be one work? A person in common, or (with a
    single author or none on one side, often a broken export) years at most one apart;
    not two single authors who are different people."""
    if names_nobody(a.authors) or names_nobody(b.authors):  # "acms anthology, p edition"
        return not (a.year and b.year and abs(a.year - b.year) > 1)
    if len(a.authors) >= 2 and len(b.authors) >= 2:
        # a family name in common (or nearly: one or two typos) is enough here; initials
        # are often garbled
        if a.author_index.keys() & b.author_index.keys():
            return True
        names_b = [p.last[-1] for p in b.authors]
        return any(_close_name(p.last[-1], y) for p in a.authors for y in names_b) \
            or swapped_shared(a.authors, b.authors) > 0
    if a.authors and b.authors and shared_authors(a.authors, b.authors, b.author_index):
        return True
    if len(a.authors) == 1 and len(b.authors) == 1 and _other_issues(a, b) \
            and not _close_name(a.authors[0].last[-1], b.authors[0].last[-1]):
        return False  # two writers of one venue's column in two issues: its heading
    return not (a.year and b.year and abs(a.year - b.year) > 1)
