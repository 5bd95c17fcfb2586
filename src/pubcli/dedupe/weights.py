"""How much each comparison level weighs, estimated from the library itself.

The Fellegi-Sunter model: for every field and level, ``m`` is the share of
duplicate pairs with that level and ``u`` the share of non-duplicate pairs; a
level adds ``log2(m / u)`` bits to a pair's match weight (a missing value
adds nothing). ``m``, ``u`` and the share of duplicates among the candidate
pairs (``prior``) are estimated by expectation maximisation over the blocked
candidate pairs of one library (:func:`estimate`), starting from, and held
near, :data:`PRIOR` by pseudo-counts: a 20-entry library behaves like a
typical bibliography, a big one speaks for itself (a field that disagrees in
most likely duplicates, like a database's record number in ``number``, ends
near zero weight).

The title's exact level is adjusted by how common the title is
(term frequency): "Editorial" shared by many works of a library, or any title
of one or two content words, is weak evidence; a unique twelve-word title
strong.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Mapping, Sequence

from enum import IntEnum

from .evidence import Comparison
from .levels import (FIELDS, LEVEL_OF, LEVELS, MISSING, Agree, Authors, Field, Kind, Pages, Title,
                     Venue, Year)

#: Typical (m, u) per field and level among blocked candidate pairs (titles
#: already alike): where the estimation starts, and what a small library keeps.
#: Keyed by level (every level of every field has one: a test checks it).
PRIOR: dict[Field, dict[IntEnum, tuple[float, float]]] = {
    Field.TITLE: {Title.EXACT: (0.65, 0.02), Title.COMMON: (0.03, 0.03),
                  Title.SHORT: (0.02, 0.01), Title.P95: (0.16, 0.02), Title.P88: (0.06, 0.04),
                  Title.MAIN: (0.05, 0.03), Title.WORD: (0.004, 0.10),
                  Title.P70: (0.015, 0.10), Title.P70_WORDS: (0.006, 0.25),
                  Title.LOW: (0.005, 0.40)},
    Field.AUTHORS: {Authors.ALL_3: (0.46, 0.015), Authors.ALL: (0.34, 0.02),
                    Authors.REORDERED: (0.04, 0.02), Authors.MOST_3: (0.06, 0.01),
                    Authors.MOST: (0.03, 0.02), Authors.SOME: (0.045, 0.06),
                    Authors.NONE: (0.015, 0.755), Authors.NONE_OF_1: (0.01, 0.10)},
    Field.YEAR: {Year.SAME: (0.85, 0.10), Year.ONE_APART: (0.08, 0.12),
                 Year.ONE_APART_PREPRINT: (0.046, 0.02), Year.TWO_APART: (0.02, 0.14),
                 Year.FURTHER: (0.004, 0.62)},
    Field.VENUE: {Venue.SAME_VOLUME: (0.60, 0.04), Venue.SAME_VENUE: (0.26, 0.12),
                  Venue.UNCLEAR: (0.11, 0.20), Venue.OTHER_VOLUME: (0.017, 0.06),
                  Venue.OTHER_VENUE_AND_VOLUME: (0.003, 0.08), Venue.DIFFERENT: (0.01, 0.50)},
    Field.NUMBER: {Agree.SAME: (0.92, 0.25), Agree.DIFFERENT: (0.08, 0.75)},
    Field.PAGES: {Pages.SAME: (0.85, 0.005), Pages.FIRST: (0.09, 0.01),
                  Pages.DIFFERENT: (0.06, 0.985)},
    Field.DOI: {Agree.SAME: (0.997, 0.002), Agree.DIFFERENT: (0.003, 0.998)},
    Field.ARXIV: {Agree.SAME: (0.997, 0.002), Agree.DIFFERENT: (0.003, 0.998)},
    Field.ISBN: {Agree.SAME: (0.90, 0.005), Agree.DIFFERENT: (0.10, 0.995)},
    Field.TYPE: {Kind.SAME: (0.88, 0.70), Kind.COMPATIBLE: (0.09, 0.09),
                 Kind.DIFFERENT: (0.03, 0.21)},
    Field.PMID: {Agree.SAME: (0.997, 0.002), Agree.DIFFERENT: (0.003, 0.998)},
}
#: The prior as (m per level, u per level) in level order, as the estimation reads it.
PRIOR_MU: dict[Field, tuple[tuple[float, ...], tuple[float, ...]]] = {
    f: (tuple(PRIOR[f][level][0] for level in LEVEL_OF[f]),
        tuple(PRIOR[f][level][1] for level in LEVEL_OF[f])) for f in FIELDS}
PRIOR_SHARE = 0.25
#: Disagreements that are rare among duplicates by their nature: the estimate may
#: not make them look common (near-copies that differ only there are different works,
#: and would otherwise teach the model that duplicates disagree there).
M_CAP: dict[tuple[Field, IntEnum], float] = {
    (Field.YEAR, Year.FURTHER): 0.004, (Field.YEAR, Year.TWO_APART): 0.02,
    (Field.DOI, Agree.DIFFERENT): 0.01, (Field.ARXIV, Agree.DIFFERENT): 0.01,
    (Field.PMID, Agree.DIFFERENT): 0.01, (Field.VENUE, Venue.OTHER_VENUE_AND_VOLUME): 0.005,
    (Field.TITLE, Title.WORD): 0.05, (Field.TITLE, Title.LOW): 0.02,
    # other pages in the same place are another item (a preprint has none)
    (Field.PAGES, Pages.DIFFERENT): 0.1,
}
#: Levels the estimate may make weigh more against a match than the prior, never less:
#: a content word replaced by another (not a typo, an inflection, a compound or an
#: acronym), or titles that have little in common, say "another work", whatever a
#: library of near-copies (or of items printed on one page) teaches EM.
AT_MOST_PRIOR: frozenset[tuple[Field, IntEnum]] = frozenset({(Field.TITLE, Title.WORD),
                                                             (Field.TITLE, Title.LOW)})
_CAPS = {f: [M_CAP.get((f, level), 1.0) for level in LEVEL_OF[f]] for f in FIELDS}
#: Pseudo-pairs behind the prior, for duplicates and non-duplicates.
STRENGTH_M = 40.0
STRENGTH_U = 40.0
ITERATIONS = 30
#: At most this many candidate pairs feed the estimation (an even sample beyond).
MAX_TRAINING_PAIRS = 150_000
#: Weights are kept within +-CAP bits (no single level decides alone).
CAP = 10.0
#: Authors, year, venue, issue and type agreeing say "the same group, the same issue"
#: more than "the same work": together they count at most this many bits (they are far
#: from independent among different works: a group's papers in one issue share them all).
CONTEXT_CAP = 9.0
_CONTEXT = frozenset(FIELDS.index(f) for f in (Field.AUTHORS, Field.YEAR, Field.VENUE,
                                               Field.NUMBER, Field.TYPE))
#: The fields besides the title that name the work itself, not where it is printed.
_WORK = tuple(FIELDS.index(f) for f in (Field.AUTHORS, Field.DOI, Field.ARXIV, Field.ISBN,
                                         Field.PMID))
_PAGES = FIELDS.index(Field.PAGES)
#: Said once per pair when its context weights were scaled down (marked "*").
CONTEXT_NOTE = "* authors, year and venue count together at most " + f"{CONTEXT_CAP:g} bits"
#: Pairs of support at which a level's weight is half estimated, half prior.
SHRINK = 30.0
#: Title levels that differ from the exact title only by noise (a typo, debris around
#: it, a dropped subtitle). Noise strikes duplicates and different works alike, so
#: among different works with alike titles (exact or one of these) such a level is at
#: most NOISE_SLACK times as common as among duplicates with alike titles:
#: u(k) <= NOISE_SLACK * m(k) * u(alike) / m(alike).
#: (Without it, duplicates whose other fields are garbled, as in a scraped source, pass
#: for different works with alike titles, and make alike titles look weak.)
NOISE_SLACK = 3.0
#: Agreement levels (prior m > prior u) of these fields are estimated at most this many
#: times as common among different works as the prior says.
U_CAP_FACTOR = 10.0
_U_CAPPED = frozenset({Field.TITLE, Field.AUTHORS, Field.YEAR, Field.VENUE})
_NOISE_LEVELS = (Title.P95, Title.P88, Title.MAIN)

# How often a title of k content words is shared by chance, relative to a
# long one (term-frequency floor for titles the library has seen only once).
_SHORT_TITLE_FACTOR = {0: 400.0, 1: 100.0, 2: 16.0, 3: 4.0, 4: 1.5}
_GENERIC_FACTOR = 400.0
_TYPICAL_COMMON = 4.0


@dataclass
class Contribution:
    """One field's part in a pair's match weight."""

    field: Field
    level: int          # MISSING when a side lacks the value
    weight: float       # bits
    shown: str          # the values compared ("97", "3 of 4", "1443/1444")
    note: str = ""      # why it weighs what it weighs, when that is not obvious
    capped: bool = False  # scaled down with the other context fields (CONTEXT_NOTE)

    @property
    def level_name(self) -> str:
        return "missing" if self.level == MISSING else LEVELS[self.field][self.level]

    def __str__(self) -> str:
        what = self.shown or self.level_name
        text = f"{self.field.value} {what} ({self.weight:+.1f}{'*' if self.capped else ''}"
        return text + (f": {self.note})" if self.note else ")")


@dataclass
class Score:
    """A pair's total: the contributions, their sum and the match probability."""

    contributions: list[Contribution]
    weight: float       # bits, the prior included
    probability: float  # 0-1

    @property
    def percent(self) -> float:
        return 100.0 * self.probability


@dataclass
class Model:
    """m and u per field and level, the share of duplicates among candidates, and
    what the title weight needs to know about how common each title is."""

    m: dict[Field, list[float]]
    u: dict[Field, list[float]]
    prior: float = PRIOR_SHARE
    pairs: int = 0          # candidate pairs it was estimated on
    iterations: int = 0
    #: How many different works share each normalised title (titles shared by one
    #: work are left out).
    title_works: Mapping[str, int] = field(default_factory=dict)
    generic_titles: frozenset[str] = frozenset()
    #: How many candidate pairs showed each level (the estimate's support).
    support: dict[Field, list[float]] = field(default_factory=dict)
    _weights: dict[Field, list[float]] | None = field(default=None, repr=False, compare=False)

    def weight(self, f: Field, level: int) -> float:
        if level == MISSING:
            return 0.0
        table = self._weights
        if table is None:
            table = self._weights = {g: [self._weight(g, k) for k in range(len(LEVELS[g]))]
                                     for g in FIELDS}
        return table[f][level]

    def _weight(self, f: Field, level: int) -> float:
        w = math.log2(self.m[f][level] / self.u[f][level])
        if self.support:
            # a level seen in few pairs of this library keeps mostly the prior weight
            n = self.support[f][level]
            pm, pu = PRIOR_MU[f]
            w = (n * w + SHRINK * math.log2(pm[level] / pu[level])) / (n + SHRINK)
        if (f, level) in AT_MOST_PRIOR:
            pm, pu = PRIOR_MU[f]
            w = min(w, math.log2(pm[level] / pu[level]))
        return max(-CAP, min(CAP, w))

    def title_weight(self, level: int, title_key: str, content_words: int) -> tuple[float, str]:
        """The title's weight; a common exact title ("Editorial", a two-word title, one
        several works of this library share) weighs less the more common it is."""
        w = self.weight(Field.TITLE, level)
        if level == Title.SHORT:
            if content_words < 2:  # relative to the typical short title, of two words
                return max(-CAP, w - math.log2(_SHORT_TITLE_FACTOR[content_words] / 16.0)), \
                    f"a short title ({content_words} content words)"
            return w, f"a short title ({content_words} content words)"
        if level != Title.COMMON:
            return w, ""
        works = self.title_works.get(title_key, 1)
        chance = max(float(works), _SHORT_TITLE_FACTOR.get(content_words, 1.0),
                     _GENERIC_FACTOR if title_key in self.generic_titles else 1.0)
        # Splink's term-frequency adjustment, relative to a typical common title
        adjusted = max(-CAP, w - max(0.0, math.log2(chance / _TYPICAL_COMMON)))
        if works > 1:
            note = f"{works} different works have this title here"
        elif title_key in self.generic_titles:
            note = "a generic title"
        else:
            note = f"a short title ({content_words} content words)"
        return adjusted, note

    def difference_note(self, f: Field, level: int) -> str:
        """For a disagreement: how often likely duplicates of this library show it."""
        if level <= 0 or f in (Field.TITLE, Field.AUTHORS) or not self.pairs:
            return ""
        share = self.m[f][level]
        if share >= 0.2:
            return f"{'differs' if level == len(LEVELS[f]) - 1 else LEVELS[f][level]} " \
                   f"in {share:.0%} of likely pairs in this library"
        return ""

    def total(self, cmp: Comparison, content_words: int) -> float:
        """The pair's match weight in bits, the prior included (no explanation built)."""
        levels = cmp.levels
        total = math.log2(self.prior / (1.0 - self.prior)) + \
            self.title_weight(levels[0], cmp.title_key, content_words)[0]
        context = 0.0
        for i in range(1, len(FIELDS)):
            if levels[i] != MISSING:
                w = self.weight(FIELDS[i], levels[i])
                if w > 0 and i in _CONTEXT:
                    context += w
                else:
                    total += w
        return total + min(context, CONTEXT_CAP)

    def work_weight(self, cmp: Comparison, content_words: int) -> float:
        """What the fields naming the work itself (title, authors, identifiers, a page
        range both give in full) weigh together, without where it is printed (year,
        venue, issue, a first page or a single page, type): items printed in one place
        share all of that."""
        levels = cmp.levels
        total = self.title_weight(levels[0], cmp.title_key, content_words)[0]
        for i in _WORK:
            total += self.weight(FIELDS[i], levels[i])
        if levels[_PAGES] == 0:  # the same page range (not one page): this item's place
            total += self.weight(Field.PAGES, 0)
        return total

    def score(self, cmp: Comparison, content_words: int) -> Score:
        out: list[Contribution] = []
        total = math.log2(self.prior / (1.0 - self.prior))
        weights: list[tuple[float, str]] = []
        for i, f in enumerate(FIELDS):
            level = cmp.levels[i]
            if f is Field.TITLE:
                weights.append(self.title_weight(level, cmp.title_key, content_words))
            else:
                weights.append((self.weight(f, level), self.difference_note(f, level)))
        context = sum(w for i, (w, _) in enumerate(weights)
                      if i in _CONTEXT and w > 0 and cmp.levels[i] != MISSING)
        scale = CONTEXT_CAP / context if context > CONTEXT_CAP else 1.0
        for i, f in enumerate(FIELDS):
            level = cmp.levels[i]
            w, note = weights[i]
            capped = scale < 1.0 and i in _CONTEXT and w > 0
            if capped:
                w *= scale
            total += w
            if level != MISSING:
                out.append(Contribution(f, level, w, cmp.shown[i], note, capped))
        p = 1.0 / (1.0 + 2.0 ** (-total)) if total > -60 else 0.0
        return Score(out, total, p)

    def to_data(self) -> dict:
        """The model as plain values (for the weights cache)."""
        return {"m": {f.value: list(v) for f, v in self.m.items()},
                "u": {f.value: list(v) for f, v in self.u.items()},
                "prior": self.prior, "pairs": self.pairs, "iterations": self.iterations,
                "title_works": dict(self.title_works),
                "generic_titles": sorted(self.generic_titles),
                "support": {f.value: list(v) for f, v in self.support.items()}}

    @classmethod
    def from_data(cls, data: dict) -> Model:
        """The model :meth:`to_data` gave (KeyError, TypeError or ValueError when
        ``data`` is not one)."""
        def per_field(d: dict) -> dict[Field, list[float]]:
            out = {Field(k): [float(x) for x in v] for k, v in d.items()}
            for f, v in out.items():
                if len(v) != len(LEVELS[f]):
                    raise ValueError(f"{f.value}: {len(v)} levels")
            return out

        m, u = per_field(data["m"]), per_field(data["u"])
        if set(m) != set(FIELDS) or set(u) != set(FIELDS):
            raise ValueError("fields")
        support = per_field(data["support"]) if data["support"] else {}
        return cls(m, u, float(data["prior"]), int(data["pairs"]), int(data["iterations"]),
                   {str(k): int(v) for k, v in data["title_works"].items()},
                   frozenset(data["generic_titles"]), support)

    def table(self) -> list[tuple[Field, str, float, float, float, float]]:
        """(field, level, m, u, weight, pairs) for every level: what ``--weights``
        prints. The weight is log2(m/u) moved toward the prior's where few candidate
        pairs (``pairs``) showed the level."""
        return [(f, name, self.m[f][k], self.u[f][k], self.weight(f, k),
                 self.support[f][k] if self.support else 0.0)
                for f in FIELDS for k, name in enumerate(LEVELS[f])]


def prior_model() -> Model:
    return Model({f: list(PRIOR_MU[f][0]) for f in FIELDS},
                 {f: list(PRIOR_MU[f][1]) for f in FIELDS})


def estimate(rows: Sequence[Sequence[int]], *, title_works: Mapping[str, int] | None = None,
             generic_titles: frozenset[str] = frozenset(),
             iterations: int = ITERATIONS) -> Model:
    """m, u and the prior share by EM over candidate pairs' levels (one row per pair,
    one column per field, :data:`MISSING` allowed), held near :data:`PRIOR`."""
    model = prior_model()
    model.title_works = dict(title_works or {})
    model.generic_titles = generic_titles
    n = len(rows)
    model.pairs = n
    if n == 0:
        return model
    from collections import Counter

    if n > MAX_TRAINING_PAIRS:
        step = -(-n // MAX_TRAINING_PAIRS)
        rows = rows[::step]
    # EM over the distinct rows, each with its count: a few hundred patterns stand for
    # thousands of pairs, so plain Python beats numpy (and its import) here
    patterns = Counter(map(tuple, rows))
    rows_of = list(patterns)
    counts = [float(patterns[r]) for r in rows_of]
    total_rows = float(sum(counts))
    nf = len(FIELDS)
    # per field and level: the patterns showing it (missing levels show none)
    members: list[list[list[int]]] = []
    for j, f in enumerate(FIELDS):
        per: list[list[int]] = [[] for _ in LEVELS[f]]
        for r, row in enumerate(rows_of):
            if row[j] >= 0:
                per[row[j]].append(r)
        members.append(per)
    lam = PRIOR_SHARE
    m = {f: list(PRIOR_MU[f][0]) for f in FIELDS}
    u = {f: list(PRIOR_MU[f][1]) for f in FIELDS}
    prior_m = {f: [x * STRENGTH_M for x in PRIOR_MU[f][0]] for f in FIELDS}
    prior_u = {f: [x * STRENGTH_U for x in PRIOR_MU[f][1]] for f in FIELDS}
    log, exp = math.log, math.exp
    it = 0
    for it in range(1, iterations + 1):  # noqa: B007 - read after the loop
        logit = [log(lam / (1 - lam))] * len(rows_of)
        for j, f in enumerate(FIELDS):
            lr = [log(a / b) for a, b in zip(m[f], u[f], strict=True)]
            for k, rs in enumerate(members[j]):
                w = lr[k]
                for r in rs:
                    logit[r] += w
        post = [1.0 / (1.0 + exp(-min(50.0, max(-50.0, x)))) for x in logit]
        weighted = [p * c for p, c in zip(post, counts, strict=True)]
        new_lam = (sum(weighted) + PRIOR_SHARE * 20) / (total_rows + 20)
        delta = abs(new_lam - lam)
        lam = float(min(0.95, max(0.001, new_lam)))
        for j, f in enumerate(FIELDS):
            cm = [sum(weighted[r] for r in rs) + pm
                  for rs, pm in zip(members[j], prior_m[f], strict=True)]
            cu = [sum(counts[r] - weighted[r] for r in rs) + pu
                  for rs, pu in zip(members[j], prior_u[f], strict=True)]
            sm, su = sum(cm), sum(cu)
            new_m, new_u = [x / sm for x in cm], [x / su for x in cu]
            if f in _U_CAPPED:
                # agreement is never much more common among different works than the
                # prior says: few different works to learn from when nearly all
                # candidates are duplicates (the rest mostly hard negatives other
                # fields or vetoes tell apart)
                pu = PRIOR_MU[f][1]
                for k in range(len(new_u)):
                    if PRIOR_MU[f][0][k] > pu[k]:
                        new_u[k] = min(new_u[k], U_CAP_FACTOR * pu[k])
                su = sum(new_u)
                new_u = [x / su for x in new_u]
            if f is Field.TITLE:
                for k in _NOISE_LEVELS:
                    new_u[k] = min(new_u[k], NOISE_SLACK * new_u[Title.EXACT] * new_m[k]
                                   / new_m[Title.EXACT])
                su = sum(new_u)
                new_u = [x / su for x in new_u]
            caps = _CAPS[f]
            capped = [k for k in range(len(new_m)) if new_m[k] > caps[k]]
            if capped:
                for k in capped:
                    new_m[k] = caps[k]
                free = [k for k in range(len(new_m)) if k not in capped]
                rest = 1.0 - sum(new_m[k] for k in capped)
                total = sum(new_m[k] for k in free)
                for k in free:
                    new_m[k] *= rest / total
            delta = max(delta, max(abs(a - b) for a, b in zip(new_m, m[f], strict=True)))
            m[f], u[f] = new_m, new_u
        if delta < 1e-4:
            break
    _ = nf
    model.support = {f: [sum(counts[r] for r in rs) for rs in members[j]]
                     for j, f in enumerate(FIELDS)}
    model._weights = None
    model.m = {f: [float(x) for x in m[f]] for f in FIELDS}
    model.u = {f: [float(x) for x in u[f]] for f in FIELDS}
    model.prior = lam
    model.iterations = it
    return model
