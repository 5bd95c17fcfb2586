"""Finding entries that describe the same work, and merging them safely.

Evidence is weighed, Fellegi-Sunter style, per library:

1. :mod:`.blocking` picks the candidate pairs (shared identifiers, alike titles).
2. :mod:`.evidence` compares each pair field by field into typed levels (title
   exact / exact but common / exact but short / 95+ / 88+ / without the subtitle or
   the debris around it / a word replaced / 70+ / 70+ with words replaced /
   different; authors all /
   most / some / none, order ignored; year; venue; volume; number; pages; DOI;
   arXiv id; ISBN; PubMed id; entry type) and names the vetoes that are decisive by
   definition ("Part 1" / "Part 2", an erratum, reply or comment vs its article,
   different editions or volumes of a book).
3. :mod:`.weights` estimates, for this library, how much each level weighs
   (EM over the candidate pairs, held near a prior), with the title's weight
   adjusted by how common the title is.
4. A pair matches when no veto applies and its match probability reaches the
   threshold (percent; :data:`DEFAULT_THRESHOLD`). :mod:`.clusters` joins
   matches into groups, checking every join, independent of the input order.
5. :mod:`.merge` merges a group; :mod:`.explain` says why.

The only package that imports rapidfuzz (and numpy, for the estimation); none of
it prints. Its one file is the weights cache: given the digest of the library
file's bytes, a :class:`Matcher` keeps the estimated weights and the candidate
pairs there (:func:`pubcli.store.cache.write_derived`), so the next command on
the same file (``add``, ``import``, ``dedupe --explain``) does not work them out
again.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
from array import array
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Sequence

from pubcli.local import gcpause
from pubcli.schema.model import Record
from .blocking import Index, block
from .clusters import cluster
from .evidence import (CHEAP_FIELDS, FIELDS, LEVELS, MISSING, Comparison, Features, Field, Veto,
                       VetoKind, cheap_levels, compare, quick_title)
from .explain import Verdict, model_summary, quick_verdict, verdict, weight_lines
from .identifiers import normalise_doi, normalise_isbn, page_range
from .merge import Conflict, MergeResult, Planned, merge, plan_merges, suggest_keep
from .normalise import _GENERIC, _unmatched_words, normalise, strip_annotations, title_score
from .people import _close_name, parse_authors, person_match, person_strings, shared_authors
from .venues import venue_relation
from .weights import Model, estimate, prior_model

__all__ = [
    "DEFAULT_THRESHOLD", "Conflict", "Field", "Group", "Link", "Match", "Matcher", "MergeResult",
    "Model", "Verdict", "Veto", "VetoKind", "explain", "find_groups", "find_matches", "merge",
    "normalise", "normalise_doi", "normalise_isbn", "page_range", "pair_key", "parse_authors",
    "person_match", "person_strings", "shared_authors", "strip_annotations", "suggest_keep",
    "title_score", "venue_relation", "weight_lines", "model_summary", "LEVELS", "FIELDS",
    "MISSING", "Comparison", "_unmatched_words", "Planned", "plan_merges",
]

#: The match probability (percent) a pair needs, no veto applying: the lowest at
#: which the labelled development sets (two systematic-review exports, the bib-dedupe
#: hard cases) have no false-positive record (at 97 a title-and-year-only pair joins)
#: and the project's hard non-duplicates (tests/data/dedupe/hard_cases.bib) stay apart;
#: DBLP vs Google Scholar has pair F1 0.86-0.87 from 97 to 98. See
#: ``bench/bench_dedupe.py devsets`` and ``sweep``.
DEFAULT_THRESHOLD = 98.0
#: Two groups are not joined when a cross pair's probability is below this (percent),
#: or when the pair does not match and one field speaks this strongly against it (bits).
CHAIN_FLOOR = 50.0
AGAINST = -6.0
#: The weights are estimated on at most this many candidate pairs (an even sample).
TRAINING_PAIRS = 8_000


@dataclass
class Match:
    """An existing record a candidate duplicates."""

    record: Record
    score: float                 # match probability, percent
    evidence: list[str]
    rule: str
    verdict: Verdict | None = None


@dataclass
class Link:
    """Two records judged duplicates, and why (worked out from the verdict when asked)."""

    a: Record
    b: Record
    verdict: Verdict

    @property
    def score(self) -> float:
        return self.verdict.score

    @property
    def rule(self) -> str:
        return self.verdict.rule

    @property
    def evidence(self) -> list[str]:
        return self.verdict.evidence


@dataclass
class Group:
    """Records that describe one work (joined transitively), in input order."""

    records: list[Record]
    links: list[Link]
    #: Links the matcher left out because the group would then hold two records
    #: known to be different works (a chain A-B-C where A and C conflict).
    conflicts: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        """The weakest link's score."""
        return min(link.score for link in self.links) if self.links else 0.0

    @property
    def keys(self) -> list[str]:
        return [r.key for r in self.records]


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The order-free, case-free form of a key pair (for remembered decisions)."""
    x, y = a.casefold(), b.casefold()
    return (x, y) if x <= y else (y, x)


def _no_gc() -> contextlib.AbstractContextManager[None]:
    """Building many small objects: the GC policy's one home is pubcli.local.gcpause."""
    return gcpause.paused()


def _content_key(rec: Record) -> tuple:
    """The canonical order: what a record says, its key only between records that
    say the same (so renaming keys leaves the order, and the groups, as they are)."""
    return (rec.type, tuple(rec.fields.items()), rec.key)


#: A title carried by records of one venue in this many issues (years or volumes) is a
#: heading ("Editor's comments", "Letter from the President"), not a work's title.
HEADING_ISSUES = 3


def _title_works(index: Index) -> dict[str, int]:
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
            firsts = {f.authors[0][0][-1] if f.authors else ("", f.year) for f in feats}
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


def _same_work(a: Features, b: Features) -> bool:
    """Could two records of one title be one work? A person in common, or (with a
    single author or none on one side, often a broken export) years at most one apart."""
    if len(a.authors) >= 2 and len(b.authors) >= 2:
        # a family name in common (or nearly: one or two typos) is enough here; initials
        # are often garbled
        if a.author_index.keys() & b.author_index.keys():
            return True
        names_b = [p[0][-1] for p in b.authors]
        return any(_close_name(p[0][-1], y) for p in a.authors for y in names_b)
    if a.authors and b.authors and shared_authors(a.authors, b.authors, b.author_index):
        return True
    return not (a.year and b.year and abs(a.year - b.year) > 1)


@lru_cache(maxsize=1)
def _code_digest() -> str:
    """The code the cached weights were made by: every source file of pubcli (a
    change to any of them makes the cache stale) and the sample size."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.blake2b(digest_size=16)
    for p in sorted(root.rglob("*.py")):
        h.update(p.relative_to(root).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()


class Matcher:
    """One library's matcher: its records indexed in a canonical (content) order,
    the weights estimated on its candidate pairs, and the comparisons made.

    ``digest`` (of the library file's bytes, whose records ``records`` are, in file
    order) lets the weights and candidate pairs come from, and go to, the weights
    cache."""

    def __init__(self, records: Sequence[Record], *, threshold: float | None = None,
                 model: Model | None = None, digest: str | None = None) -> None:
        self.threshold = DEFAULT_THRESHOLD if threshold is None else float(threshold)
        self.records = list(records)
        self._digest = digest
        self._size = len(self.records)  # the file's records (more may be added)
        self._model = model
        self._pairs: set[tuple[int, int]] | None = None
        cached = self._read_cache() if digest is not None else None
        with _no_gc():
            if cached is not None:
                order, titles = cached[2], cached[3]
            else:
                order = sorted(range(len(self.records)),
                               key=lambda i: _content_key(self.records[i]))
                titles = None
            self.position = {}  # canonical index -> input position
            canonical = []
            for n, i in enumerate(order):
                self.position[n] = i
                canonical.append(self.records[i])
            self.index = Index(canonical, titles)
        if cached is not None:
            if self._model is None:
                self._model = cached[0]
            self._pairs = cached[1]
        self._compared: dict[tuple[int, int], Comparison] = {}
        self._works: dict[str, int] | None = None
        self._by_id: dict[int, int] | None = None
        self._quick_pair: tuple[int, int] | None = None
        self._quick_done: list = []
        self._best_title = 0.0

    # ------------------------------------------------------------ the cache
    def _maker(self) -> str:
        return f"{_code_digest()}:{TRAINING_PAIRS}:{self._size}"

    def _read_cache(self) -> tuple[Model, set[tuple[int, int]], list[int], list[str]] | None:
        """(the weights, the candidate pairs, the canonical order, the normalised titles
        in that order) kept for this version of the file, or None."""
        from ..store import cache

        assert self._digest is not None
        data = cache.read_derived("weights", self._digest, self._maker())
        if data is None:
            return None
        try:
            model = Model.from_data(data["model"])
            first, second, order = array("I"), array("I"), array("I")
            first.frombytes(data["first"])
            second.frombytes(data["second"])
            order.frombytes(data["order"])
            titles = data["titles"]
        except (KeyError, TypeError, ValueError):
            return None
        n = len(self.records)
        if len(first) != len(second) or any(j >= n for j in second) \
                or sorted(order) != list(range(n)) or not isinstance(titles, list) \
                or len(titles) != n or not all(isinstance(t, str) for t in titles):
            return None
        return model, set(zip(first, second)), list(order), titles

    def _to_cache(self) -> None:
        from ..store import cache

        if self._digest is None or self._model is None or self._pairs is None \
                or len(self.index.feats) != self._size:
            return  # (weights of the file's records only)
        pairs = sorted(self._pairs)
        cache.write_derived("weights", self._digest, self._maker(), {
            "model": self._model.to_data(),
            "first": array("I", [i for i, _ in pairs]).tobytes(),
            "second": array("I", [j for _, j in pairs]).tobytes(),
            "order": array("I", [self.position[n] for n in range(self._size)]).tobytes(),
            "titles": self.index.titles})

    # ------------------------------------------------------------ the weights
    def pairs(self, progress: Callable[[float], None] | None = None) -> set[tuple[int, int]]:
        if self._pairs is None:
            self._pairs = block(self.index, progress=None if progress is None else
                                (lambda d, t: progress(d / max(t, 1))))
        return self._pairs

    @property
    def model(self) -> Model:
        if self._model is None:
            self._model = self._estimate()
            self._to_cache()
        return self._model

    @property
    def title_works(self) -> dict[str, int]:
        if self._works is None:
            self._works = _title_works(self.index)
        return self._works

    def _common(self, s: Features) -> bool:
        return s.title in _GENERIC or self.title_works.get(s.title, 1) > 1

    def _estimate(self) -> Model:
        pairs = sorted(self.pairs())  # canonical numbers: the sample depends on content only
        if len(pairs) > TRAINING_PAIRS:
            step = -(-len(pairs) // TRAINING_PAIRS)
            pairs = pairs[::step]
        # a pair a veto decides is never weighed: the weights describe the others
        rows = [c.levels for c in (self.comparison(i, j) for i, j in pairs) if not c.vetoes]
        return estimate(rows, title_works=self.title_works, generic_titles=_GENERIC)

    def _need(self, threshold: float) -> tuple[float, float]:
        """(the bits a pair needs beyond the prior to reach ``threshold`` percent, the
        most authors and venue can add): what :meth:`_ruled_out` weighs against."""
        model = self.model
        p = min(max(threshold / 100.0, 1e-9), 1 - 1e-9)
        prior_bits = math.log2(model.prior / (1 - model.prior))
        need = math.log2(p / (1 - p)) - prior_bits - 1e-9
        bound = sum(max(0.0, max(model.weight(f, k) for k in range(len(LEVELS[f]))))
                    for f in (Field.AUTHORS, Field.VENUE))
        self._best_title = max(0.0, max(model.weight(Field.TITLE, k)
                                        for k in range(len(LEVELS[Field.TITLE]))))
        return need, bound

    def _ruled_out(self, i: int, j: int, need: float, bound: float) -> bool:
        """Can the pair not reach ``need`` bits even if authors and venue agree fully?
        (Compares the cheap fields only.)"""
        return self._cannot_reach(self.index.feats[i], self.index.feats[j], need, bound,
                                  (i, j))

    def _cannot_reach(self, a: Features, b: Features, need: float, bound: float,
                      pair: tuple[int, int] | None = None) -> bool:
        model = self.model
        cheap = cheap_levels(a, b)
        total = bound
        for f, level in zip(CHEAP_FIELDS, cheap):
            total += model.weight(f, level)
        if total + self._best_title < need:
            return True  # no title could make up for the rest
        title, alt, key = quick_title(a, b, series=self.index.series, common=self._common)
        self._quick_done[:] = (title if alt == MISSING else None, cheap[1:])
        self._quick_pair = pair
        words = min(len(a.content_tokens), len(b.content_tokens))
        t_weight = model.title_weight(title[0], key, words)[0]
        if alt != MISSING:
            t_weight = max(t_weight, model.title_weight(alt, key, words)[0])
        return total + t_weight < need

    # ------------------------------------------------------------ one pair
    def comparison(self, i: int, j: int) -> Comparison:
        key = (i, j) if i < j else (j, i)
        got = self._compared.get(key)
        if got is None:
            a, b = self.index.feats[key[0]], self.index.feats[key[1]]
            # the title and cheap fields of the pair _ruled_out just looked at
            done = self._quick_done if self._quick_pair == key else None
            got = self._compared[key] = compare(a, b, series=self.index.series,
                                                common=self._common, done=done)
        return got

    def judge(self, i: int, j: int, threshold: float | None = None) -> Verdict:
        cmp = self.comparison(i, j)
        a, b = self.index.feats[i], self.index.feats[j]
        words = min(len(a.content_tokens), len(b.content_tokens))
        th = self.threshold if threshold is None else threshold
        model = self.model
        return quick_verdict(model.total(cmp, words), lambda: model.score(cmp, words).contributions,
                             cmp.vetoes, th)

    def explain(self, a: Record, b: Record) -> Verdict:
        """The judgement on two records of (or new to) this library: the one
        :meth:`groups` makes, so a pair blocking never proposes is no duplicate
        ("never compared")."""
        n = len(self.index.feats)
        i, j = self._feature_of(a), self._feature_of(b)
        v = self.judge(i, j)
        if i < n and j < n and i != j and (min(i, j), max(i, j)) not in self.pairs():
            v.duplicate, v.compared = False, False
        return v

    def _feature_of(self, rec: Record) -> int:
        for n, f in enumerate(self.index.feats):
            if f.record is rec:
                return n
        self.add(rec)
        return len(self.index.feats) - 1

    # ------------------------------------------------------------ a candidate
    def add(self, rec: Record) -> None:
        """Index one more record (the weights are kept)."""
        self.index.add(rec)
        self._by_id = None
        self.records.append(rec)
        self.position[len(self.index.feats) - 1] = len(self.records) - 1

    def matches(self, candidate: Record, threshold: float | None = None) -> list[Match]:
        model = self.model
        s = Features(candidate, -1)
        out: list[tuple[float, int, Match]] = []
        th = self.threshold if threshold is None else threshold
        need, bound = self._need(th)
        for j in sorted(self.index.candidates(s)):
            other = self.index.feats[j]
            if other.record is candidate or self._cannot_reach(s, other, need, bound):
                continue
            cmp = compare(s, other, series=self.index.series, common=self._common)
            words = min(len(s.content_tokens), len(other.content_tokens))
            v = verdict(model.score(cmp, words), cmp.vetoes, th)
            if v.duplicate:
                out.append((-v.weight, self.position.get(j, j),
                            Match(other.record, v.score, v.evidence, v.rule, v)))
        out.sort(key=lambda t: (t[0], t[1]))
        return [m for _, _, m in out]

    # ------------------------------------------------------------ the library
    def groups(self, distinct: Iterable[tuple[str, str]] = (),
               progress: Callable[[int, int], None] | None = None) -> list[Group]:
        skip = {pair_key(a, b) for a, b in distinct}
        feats = self.index.feats

        def report(done: float, start: int, width: int) -> None:
            if progress is not None:
                progress(start + int(width * done), 1000)

        report(1, 0, 100)
        pairs = self.pairs(lambda d: report(d, 100, 400))
        model = self.model
        report(1, 0, 700)
        links: list[tuple[int, int, Verdict]] = []
        prior_bits = math.log2(model.prior / (1 - model.prior))
        need, bound = self._need(self.threshold)
        compared = self._compared
        for i, j in sorted(pairs):
            if skip and pair_key(feats[i].record.key, feats[j].record.key) in skip:
                continue
            if (i, j) not in compared and self._ruled_out(i, j, need, bound):
                continue
            cmp = self.comparison(i, j)
            if cmp.vetoes:
                continue
            words = min(len(feats[i].content_tokens), len(feats[j].content_tokens))
            if model.total(cmp, words) - prior_bits < need:
                continue
            v = self.judge(i, j)
            if v.duplicate:
                links.append((i, j, v))

        def separated(x: int, y: int) -> object | None:
            kx, ky = feats[x].record.key, feats[y].record.key
            if skip and pair_key(kx, ky) in skip:
                return Veto(VetoKind.MARKED, "marked as not duplicates")
            v = self.judge(x, y, min(self.threshold, DEFAULT_THRESHOLD))
            if v.vetoes:
                return v.vetoes[0]
            if v.score < CHAIN_FLOOR or (not v.duplicate and any(
                    c.weight <= AGAINST for c in v.contributions)):
                return v
            return None

        out = []
        for c in cluster(len(feats), links, lambda v: v.weight, separated):
            members = sorted(c.members, key=lambda n: self.position[n])
            recs = [feats[n].record for n in members]
            glinks = sorted(c.links, key=lambda t: (min(self.position[t[0]], self.position[t[1]]),
                                                    max(self.position[t[0]],
                                                        self.position[t[1]])))
            notes = []
            for i, j, x, y, why in c.apart:
                text = str(why)
                if isinstance(why, Verdict):
                    worst = min(why.contributions, key=lambda c: c.weight, default=None)
                    text = why.summary + (f"; {worst}" if worst is not None else "")
                notes.append(f"{feats[i].record.key} ~ {feats[j].record.key} left apart: "
                             f"{feats[x].record.key} / {feats[y].record.key}: {text}")
            out.append(Group(recs, [Link(feats[i].record, feats[j].record, v)
                                    for i, j, v in glinks],
                             list(dict.fromkeys(notes))))
        out.sort(key=lambda g: self._first_position(g))
        report(1, 0, 1000)
        return out

    def _first_position(self, g: Group) -> int:
        if self._by_id is None:
            self._by_id = {id(f.record): self.position[n] for n, f in enumerate(self.index.feats)}
        return self._by_id.get(id(g.records[0]), 0)


# ---------------------------------------------------------------- the stable API
_MATCHER_CACHE: list = []  # [(records, ids of its records, digest, among, Matcher)]


def _matcher_for(records: Sequence[Record], digest: str | None = None,
                 among: Sequence[Record] | None = None) -> Matcher:
    """The matcher of ``records``, reused while the sequence holds the same record
    objects (records appended since are added; any other change rebuilds it). The
    matcher keeps the records alive, so their ids cannot be reused meanwhile."""
    if _MATCHER_CACHE:
        seq, ids, known, whole, matcher = _MATCHER_CACHE[0]
        n = len(ids)
        if seq is records and known == digest and whole is among and len(records) >= n \
                and list(map(id, records[:n])) == ids:
            for rec in records[n:]:
                matcher.add(rec)
            ids.extend(map(id, records[n:]))
            return matcher
    if among is None:
        matcher = Matcher(records, digest=digest)
    else:
        # judged as dedupe will judge the library these records make: its weights,
        # and how common its titles are
        whole_matcher = Matcher(among, digest=digest)
        matcher = Matcher(records, model=whole_matcher.model)
        matcher._works = whole_matcher.title_works
    _MATCHER_CACHE[:] = [(records, list(map(id, records)), digest, among, matcher)]
    return matcher


def find_matches(candidate: Record, records: Sequence[Record], *,
                 threshold: float | None = None, digest: str | None = None,
                 among: Sequence[Record] | None = None) -> list[Match]:
    """The records ``candidate`` duplicates, strongest first, judged with the
    weights of ``records``' library (``digest``: of the library file's bytes, whose
    records ``records`` are, for the weights cache). With ``among`` (the library
    ``records`` and the entries still to come will make: an import's), the weights
    and title frequencies are ``among``'s, as ``dedupe`` will see them afterwards;
    ``digest`` then names ``among``. ``threshold`` is the match probability in
    percent (default :data:`DEFAULT_THRESHOLD`). The matcher built over ``records``
    is kept for the next call with the same sequence (records appended since are
    indexed incrementally, the weights kept)."""
    with _no_gc():
        return _matcher_for(records, digest, among).matches(
            candidate, DEFAULT_THRESHOLD if threshold is None else float(threshold))


def find_groups(records: Sequence[Record], *, threshold: float | None = None,
                distinct: Iterable[tuple[str, str]] = (),
                progress: Callable[[int, int], None] | None = None,
                digest: str | None = None) -> list[Group]:
    """Groups of records that describe the same work, in input order.

    ``distinct`` holds key pairs a user judged "not duplicates": such a pair is
    never linked (see :mod:`pubcli.usecases.distinct`). ``progress(done, total)`` is
    called now and then during long runs. ``digest`` (of the library file's
    bytes, whose records ``records`` are) lets the weights come from the weights
    cache. The groups do not depend on the order of ``records`` or their keys.
    """
    with _no_gc():
        return Matcher(records, threshold=threshold, digest=digest).groups(distinct, progress)


def explain(a: Record, b: Record, threshold: float | None = None, *,
            records: Sequence[Record] | None = None, digest: str | None = None) -> Verdict:
    """The full judgement on two records: each field's contribution, the vetoes,
    the probability. With ``records`` (their library) the weights are that
    library's; without, the prior weights."""
    with _no_gc():
        m = Matcher(records if records is not None else [a, b], threshold=threshold,
                    model=None if records is not None else prior_model(),
                    digest=digest if records is not None else None)
        return m.explain(a, b)
