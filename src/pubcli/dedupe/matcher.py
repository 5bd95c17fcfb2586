"""The matcher: one library's records indexed, weighed and judged, pair by pair and as groups.

A :class:`Matcher` numbers the records in a canonical (content) order, asks
:mod:`.blocking` for the candidate pairs, :mod:`.weights` for the weights
estimated on them, compares pairs (:mod:`.evidence`) and joins the matches
(:mod:`.clusters`). What depends only on the file's bytes (the weights, the
candidate pairs, the canonical order, the normalised titles, and the links a
threshold gives) is kept in the derived-data cache (:mod:`.matchcache`), keyed by the
digest of the file's bytes and the code, so the next command on an unchanged file
does not work it out again. What it hands back is in :mod:`.groups`; how many works
share a title, in :mod:`.titleworks`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from pubcli.local import cachedir, gcpause
from pubcli.schema.model import Record
from .blocking import Index, block
from . import entrycache, matchcache, paircache
from .evidence import CHEAP_FIELDS, Comparison, cheap_levels, compare, quick_title
from .features import Features, sorted_words
from .levels import LEVELS, MISSING, Field, Title
from .explain import Verdict, quick_verdict, verdict
from .groups import Group, Match
from . import linking
from .linking import DEFAULT_THRESHOLD
from .normalise import _GENERIC
from .titleworks import title_works
from .weights import Model, estimate

#: The weights are estimated on about this many candidate pairs at most (a sample drawn
#: pair by pair, :func:`.entrycache.sample`): on DBLP-Scholar (10,379 pairs) all pairs give
#: F1 .863, 8,000 .861, 6,000 .855, 4,000 .846 (bench/bench_dedupe.py devsets).
TRAINING_PAIRS = 6_000


_PAIR = "\x01".join


def content_text(rec: Record) -> str:
    """What a record says (type, then each field's name and value), as one string:
    "\\x00" between fields, "\\x01" between a name and its value. Strings compare as
    the (type, fields) tuples would (no BibTeX value holds those characters), in C
    and about six times faster than the tuples at 100,000 records."""
    return rec.type + "\x00" + "\x00".join(map(_PAIR, rec.fields.items()))


def _place_only(v: Verdict, model: Model, cmp: Comparison, words: int) -> Verdict:
    """No duplicate when only where the two are printed (year, venue, issue, a first
    page) speaks for it: the title, authors and identifiers together must not be
    against it (two site reports on one page, two writers of one column)."""
    if v.duplicate:
        work = model.work_weight(cmp, words)
        if work <= 0:
            v.duplicate, v.place_only = False, work
    return v


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
        if digest is not None and cachedir.disabled():
            digest = None  # (nothing is read or kept: what the caches need is not made)
        self._digest = digest
        self._size = len(self.records)  # the file's records (more may be added)
        self._model = model
        self._pairs: set[tuple[int, int]] | None = None
        cached = self._read_cache() if digest is not None else None
        titles: list[str] | None = None
        mains: list[str] | None = None
        sorted_titles: list[str] | None = None
        rows: list | None = None
        #: the records' content digests in canonical order, when comparisons are kept
        #: per pair of entry texts (:mod:`.paircache`)
        self._digests: list[bytes] | None = None
        self._names: tuple[str, ...] = ()  # where the rows and comparisons kept may be
        self._kept_pairs: dict[bytes, tuple] | None = None
        self._flags: dict[int, int] = {}  # canonical index -> _title_flags
        self._kept_count = 0  # pairs read from the pair cache
        #: pairs the cheap test ruled out, with what it read (for the pair cache)
        self._quick_rows: dict[tuple[int, int], tuple] = {}
        self._unkept: list[bytes] | None = None  # content digests, when rows go to the cache
        with gcpause.paused():
            if cached is not None:
                order, titles, mains, sorted_titles = cached[2:]
            else:
                texts = [content_text(r) for r in self.records]
                # the canonical order: what a record says, its key only between records
                # that say the same (renaming keys leaves the order and the groups)
                keys = [t + "\x00\x00" + r.key for t, r in zip(texts, self.records,
                                                                 strict=True)]
                order = sorted(range(len(self.records)), key=keys.__getitem__)
                if digest is not None and len(order) >= entrycache.MIN_RECORDS:
                    wanted = self._digests = entrycache.digests([texts[i] for i in order])
                    self._names = entrycache.kept_names(wanted)
                    rows = entrycache.read(wanted, self._names)
                    if None in rows:
                        self._unkept = wanted
            self.position = {}  # canonical index -> input position
            canonical = []
            for n, i in enumerate(order):
                self.position[n] = i
                canonical.append(self.records[i])
            self.index = Index(canonical, titles, mains, sorted_titles, rows)
        self._works: dict[str, int] | None = None
        if cached is not None:
            if self._model is None:
                self._model = cached[0]
                # (the weights were estimated with this library's title frequencies)
                self._works = dict(self._model.title_works)
            self._pairs = cached[1]
        self._compared: dict[tuple[int, int], Comparison] = {}
        self._fresh = 0  # pairs compared here (not read from the links cache)
        self._by_id: dict[int, int] | None = None
        self._quick_pair: tuple[int, int] | None = None
        self._quick_done: list = []
        self._best_title = 0.0
        self._cheap_tables: list[list[float]] = []

    # ------------------------------------------------------------ the cache
    def _maker(self) -> str:
        # (the code that made it is in every cache file's header: store.cache.code_version)
        return f"{TRAINING_PAIRS}:{self._size}"

    def _read_cache(self) -> matchcache.Kept | None:
        assert self._digest is not None
        return matchcache.read_weights(self._digest, self._maker(), len(self.records))

    def _to_cache(self) -> None:
        if self._digest is None or self._model is None or self._pairs is None \
                or len(self.index.feats) != self._size:
            return  # (weights of the file's records only)
        matchcache.write_weights(
            self._digest, self._maker(), self._model, self._pairs,
            [self.position[n] for n in range(self._size)], self.index.titles,
            [self.index.feats.main(n) for n in range(self._size)],
            [self.index.row(n)[2] if self.index.feats.rows[n] is not None else
             sorted_words(t) for n, t in enumerate(self.index.titles[:self._size])])

    # ------------------------------------------------------------ the weights
    def pairs(self, progress: Callable[[float], None] | None = None) -> set[tuple[int, int]]:
        if self._pairs is None:
            kept_as = (self._names, self._digests) \
                if self._digests is not None and self._names \
                and len(self.index.feats) == self._size else None
            self._pairs = block(self.index, progress=None if progress is None else
                                (lambda d, t: progress(d / max(t, 1))), kept_as=kept_as)
            if self._unkept is not None and len(self.index.feats) >= self._size:
                # the rows blocking made, for the next version of the file
                entrycache.write(self._unkept, [self.index.row(n) for n in range(self._size)])
                self._unkept = None
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
            self._works = title_works(self.index)
        return self._works

    def _common(self, s: Features) -> bool:
        return s.title in _GENERIC or self.title_works.get(s.title, 1) > 1

    def _estimate(self) -> Model:
        pairs = sorted(self.pairs())  # canonical numbers: the sample depends on content only
        if len(pairs) > TRAINING_PAIRS:
            pairs = self._sample(pairs, TRAINING_PAIRS / len(pairs))
        # a pair a veto decides is never weighed: the weights describe the others
        rows = [c.levels for c in (self.comparison(i, j) for i, j in pairs) if not c.vetoes]
        return estimate(rows, title_works=self.title_works, generic_titles=_GENERIC)

    def _sample(self, pairs: list[tuple[int, int]], share: float) -> list[tuple[int, int]]:
        records = self.index.feats.records
        return entrycache.sample(pairs, share, self._digests,
                                 lambda i: content_text(records[i]))

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
        # each cheap field's weight by level, MISSING (-1) last: weighs nothing
        self._cheap_tables = [[model.weight(f, k) for k in range(len(LEVELS[f]))] + [0.0]
                              for f in CHEAP_FIELDS]
        return need, bound

    def _ruled_out(self, i: int, j: int, need: float, bound: float) -> bool:
        """Can the pair not reach ``need`` bits even if authors and venue agree fully?
        (Compares the cheap fields only.)"""
        return self._cannot_reach(self.index.feats[i], self.index.feats[j], need, bound,
                                  (i, j))

    def _cannot_reach(self, a: Features, b: Features, need: float, bound: float,
                      pair: tuple[int, int] | None = None) -> bool:
        cheap = cheap_levels(a, b)
        total = self._cheap_total(cheap, bound)
        if self._short_of(cheap, None, need, bound, total):
            if pair is not None and self._digests is not None:
                self._quick_rows[pair] = ("q", tuple(map(int, cheap)), None, MISSING, "", 0)
            return True  # no title could make up for the rest
        title, alt, key = quick_title(a, b, series=self.index.series, common=self._common)
        self._quick_done[:] = (title, cheap, alt)
        self._quick_pair = pair
        words = min(len(a.content_tokens), len(b.content_tokens))
        out = bool(self._short_of(cheap, (title, alt, key, words), need, bound, total))
        if out and pair is not None and self._digests is not None:
            self._quick_rows[pair] = ("q", tuple(map(int, cheap)),
                                      (int(title[0]), float(title[1]), title[2]), int(alt),
                                      key, words)
        return out

    def _cheap_total(self, cheap: Sequence[int], bound: float) -> float:
        """``bound`` and the weights of the cheap fields' levels (``_need`` made the
        tables), added in the fields' order."""
        total = bound
        for table, level in zip(self._cheap_tables, cheap, strict=True):
            total += table[level]
        return total

    def _short_of(self, cheap: Sequence[int], title: tuple | None, need: float,
                  bound: float, total: float | None = None) -> bool | None:
        """Do the cheap fields' levels, with the title's (``title``: (level, score,
        shown), the other level it may have, the shared title, content words), fall
        short of ``need`` bits? Without the title: True when no title could make up for
        the rest, None when one could. ``total``: :meth:`_cheap_total`, when made."""
        model = self.model
        if total is None:
            total = self._cheap_total(cheap, bound)
        if total + self._best_title < need:
            return True
        if title is None:
            return None
        (level, _, _), alt, key, words = title
        t_weight = model.title_weight(level, key, words)[0]
        if alt != MISSING:
            t_weight = max(t_weight, model.title_weight(alt, key, words)[0])
        return total + t_weight < need

    def _kept_ruled_out(self, pair: tuple[int, int], row: tuple, need: float,
                        bound: float) -> bool:
        """Does the cheap test a past run kept for ``pair`` (``row``) rule it out under
        this run's weights? (False when it cannot tell: the pair is then tested anew.)"""
        got = paircache.quick(row, len(CHEAP_FIELDS))
        if got is None:
            return False
        cheap, title = got
        out = self._short_of(cheap, title, need, bound)
        if out:
            self._quick_rows[pair] = row
            return True
        return False

    # ------------------------------------------------------------ one pair
    def comparison(self, i: int, j: int) -> Comparison:
        key = (i, j) if i < j else (j, i)
        got = self._compared.get(key)
        if got is None:
            got = self._kept_comparison(key)
            if got is None:
                a, b = self.index.feats[key[0]], self.index.feats[key[1]]
                # the title and cheap fields of the pair _ruled_out just looked at
                done = self._quick_done if self._quick_pair == key else None
                got = compare(a, b, series=self.index.series, common=self._common,
                              done=done)
                self._fresh += 1
            self._compared[key] = got
        return got

    def _pair_key(self, i: int, j: int) -> bytes:
        """The key of pair (i, j) in the pair cache: both contents, and what this
        library says of each title (common here, a series' start)."""
        assert self._digests is not None
        flags = self._flags
        fi, fj = flags.get(i), flags.get(j)
        if fi is None:
            fi = flags[i] = self._title_flags(self.index.titles[i])
        if fj is None:
            fj = flags[j] = self._title_flags(self.index.titles[j])
        return self._digests[i] + self._digests[j] + bytes((fi, fj))

    def _title_flags(self, title: str) -> int:
        """What compare asks this library of a title: common here (1), a series' start (2)."""
        common = title in _GENERIC or self.title_works.get(title, 1) > 1
        return common + 2 * self.index.series_title(title)

    def _kept_row(self, key: tuple[int, int]) -> tuple | None:
        if self._digests is None or key[1] >= len(self._digests):
            return None
        if self._kept_pairs is None:
            self._kept_pairs = paircache.read(self._names)
            self._kept_count = len(self._kept_pairs)
        if not self._kept_pairs:
            return None  # (a first run: no pair's key to work out)
        return self._kept_pairs.get(self._pair_key(*key))

    def _kept_comparison(self, key: tuple[int, int]) -> Comparison | None:
        row = self._kept_row(key)
        return None if row is None or row[0] == "q" else paircache.comparison(row)

    def _keep_comparisons(self) -> None:
        """The comparisons made and the cheap tests that ruled pairs out, for the next
        version of the file (when any is new)."""
        if self._digests is None or len(self.index.feats) != self._size:
            return
        quick = {p: r for p, r in self._quick_rows.items() if p not in self._compared}
        if not self._fresh and len(quick) + len(self._compared) == self._kept_count:
            return  # (nothing new)
        keys = self._pair_keys(list(self._compared) + list(quick))
        rows = list(map(paircache.row, self._compared.values())) + list(quick.values())
        paircache.write(self._digests[:self._size], zip(keys, rows, strict=True))

    def _pair_keys(self, pairs: list[tuple[int, int]]) -> list[bytes]:
        """:meth:`_pair_key` of many pairs at once (each record's flags worked out once)."""
        assert self._digests is not None
        flags, titles, digests = self._flags, self.index.titles, self._digests
        works, series = self.title_works, self.index.series_title
        for i in {i for pair in pairs for i in pair}.difference(flags):
            t = titles[i]
            flags[i] = (t in _GENERIC or works.get(t, 1) > 1) + 2 * series(t)
        tail = {i: bytes((f,)) for i, f in flags.items()}
        return [digests[i] + digests[j] + tail[i] + tail[j] for i, j in pairs]

    def judge(self, i: int, j: int, threshold: float | None = None) -> Verdict:
        cmp = self.comparison(i, j)
        a, b = self.index.feats[i], self.index.feats[j]
        words = min(len(a.content_tokens), len(b.content_tokens))
        th = self.threshold if threshold is None else threshold
        model = self.model
        v = quick_verdict(model.total(cmp, words), lambda: model.score(cmp, words).contributions,
                          cmp.vetoes, th)
        return _place_only(v, model, cmp, words)

    def explain(self, a: Record, b: Record) -> Verdict:
        """The judgement on two records of (or new to) this library: the one
        :meth:`groups` makes, so a pair blocking never proposes is no duplicate
        ("never compared")."""
        n = len(self.index.feats)
        i, j = self._feature_of(a), self._feature_of(b)
        v = self.judge(i, j)
        if i < n and j < n and i != j and (min(i, j), max(i, j)) not in self.pairs():
            v.duplicate, v.compared = False, False
        self._say_where_the_title_recurs(i, j, v)
        return v

    def _say_where_the_title_recurs(self, i: int, j: int, v: Verdict) -> None:
        """A common title's note names the fact behind it: how many records of this
        venue carry the title ("Editor's comments" in every issue is a heading)."""
        a, b = self.index.feats[i], self.index.feats[j]
        if a.title != b.title or not a.venue or a.venue != b.venue:
            return
        for c in v.contributions:
            if c.field is Field.TITLE and c.level == Title.COMMON:
                feats = self.index.feats
                carried = sum(1 for k in self.index.by_title.get(a.title, ())
                              if feats[k].venue == a.venue)
                if carried >= 2:
                    same = c.note.startswith(f"{carried} different works")
                    c.note = f"this title is carried by {carried} records in this venue" \
                        + (f"; {c.note}" if c.note and not same else "")

    def _feature_of(self, rec: Record) -> int:
        for n, r in enumerate(self.index.feats.records):
            if r is rec:
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
            v = _place_only(verdict(model.score(cmp, words), cmp.vetoes, th), model, cmp, words)
            if v.duplicate:
                out.append((-v.weight, self.position.get(j, j),
                            Match(other.record, v.score, v.evidence, v.rule, v)))
        out.sort(key=lambda t: (t[0], t[1]))
        return [m for _, _, m in out]

    # ------------------------------------------------------------ the library
    def groups(self, distinct: Iterable[tuple[str, str]] = (),
               progress: Callable[[int, int], None] | None = None) -> list[Group]:
        """The groups of duplicates among the records (:func:`.linking.groups`)."""
        return linking.groups(self, distinct, progress)

    def _pairs_compared(self) -> int:
        """How many pairs were compared field by field (not read from the links cache)."""
        return self._fresh
