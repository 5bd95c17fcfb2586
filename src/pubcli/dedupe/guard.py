"""The duplicate guard: new entries judged against a library, one at a time.

A :class:`Guard` is the explicit object a command holds while it judges entries
(``add``, ``add --from``, ``import``, ``sync``): one :class:`~.matcher.Matcher` over
the library, with the entries kept since added to it (:meth:`Guard.add`), so its
index and weights are built once per command, never once per entry. A new entry is
compared only with the records that share a block key with it
(:meth:`pubcli.dedupe.blocking.Index.candidates`: an identifier, a first page, an
alike title), never by blocking the whole library.

The weights. Estimating them takes blocking and comparing the whole library (what
``pubcli dedupe`` does); they are kept in the derived-data cache for the file's bytes
(:mod:`.matchcache`). Every write of an entry changes those bytes, so the guard also
keeps, for the version it wrote (:meth:`Guard.carry`), the weights it judged by: the
next ``add`` on that version judges by the same weights instead of estimating them
again. These *carried* weights are the guard's only (``pubcli dedupe`` estimates its
own for every version of the file and never reads them); the guard prefers a
version's own estimate whenever there is one (after a ``dedupe``), and without either
it estimates. No size of library changes which weights are used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pubcli.local import gcpause
from pubcli.schema.model import Record
from . import matchcache
from .features import Features, sorted_words
from .groups import Match
from .linking import DEFAULT_THRESHOLD
from .matcher import Matcher

Progress = Callable[[str, int, int], None]  # (what, done, total): pubcli.usecases.progress


#: What ``progress`` is told while the evidence of an import's library is weighed.
WEIGHING = "weighing the evidence of the library"


class _GuardMatcher(Matcher):
    """A library's matcher that, lacking the version's own estimate, takes the weights
    a guard carried to this version (:func:`.matchcache.read_carried`). ``base`` is
    the version whose estimate they are (None until known)."""

    base: matchcache.Base | None = None

    def _read_cache(self) -> matchcache.Kept | None:
        assert self._digest is not None
        own = super()._read_cache()
        if own is not None:
            self.base = (self._digest, self._maker(), self._size)
            return own
        carried = matchcache.read_carried(self._digest, len(self.records))
        if carried is None:
            return None
        kept, self.base = carried
        return kept

    def _to_cache(self) -> None:
        super()._to_cache()  # estimated here: this version is the base
        if self._digest is not None:
            self.base = (self._digest, self._maker(), self._size)


class Guard:
    """Judges new entries against ``records`` (the library's records, in file order).

    ``digest`` (of the library file's bytes) lets the weights come from the cache.
    With ``among`` (the library that ``records`` and the entries still to come will
    make: an import's), the weights and title frequencies are ``among``'s, as
    ``pubcli dedupe`` will judge that library afterwards; ``digest`` then names
    ``among``. ``threshold``: the match probability in percent (default
    :data:`~.linking.DEFAULT_THRESHOLD`). ``progress`` hears how far the candidate
    pairs of ``among`` are found (the long part of weighing a library anew; see
    :mod:`pubcli.usecases.progress`)."""

    def __init__(self, records: Sequence[Record], *, digest: str | None = None,
                 among: Sequence[Record] | None = None,
                 threshold: float | None = None,
                 progress: Progress | None = None) -> None:
        self.threshold = DEFAULT_THRESHOLD if threshold is None else float(threshold)
        with gcpause.paused():
            if among is None:
                self.matcher: Matcher = (Matcher(records) if digest is None
                                         else _GuardMatcher(records, digest=digest))
            else:
                # judged as dedupe will judge the library these records make: its
                # weights, and how common its titles are
                whole = Matcher(among, digest=digest)
                if progress is not None:  # (the long part when nothing is cached)
                    whole.pairs(lambda done: progress(WEIGHING, int(1000 * done), 1000))
                self.matcher = _judged_by(whole, records)
        self._known: set[int] | None = None  # ids of the records judged against, when asked

    def over(self, records: Sequence[Record]) -> Guard:
        """A guard over other ``records`` (an import's entries held for review), judging
        by this guard's weights and title frequencies."""
        other = Guard.__new__(Guard)
        other.threshold = self.threshold
        with gcpause.paused():
            other.matcher = _judged_by(self.matcher, records)
        other._known = None
        return other

    @property
    def records(self) -> list[Record]:
        """The records judged against: the library's, then those added."""
        return self.matcher.records

    def matches(self, candidate: Record, threshold: float | None = None) -> list[Match]:
        """The records ``candidate`` duplicates, strongest first (the candidate itself,
        if added, is never its own match)."""
        with gcpause.paused():
            found = self.matcher.matches(candidate, self.threshold if threshold is None
                                         else float(threshold))
        if found:
            self._say_where_titles_recur(candidate, found)
        return found

    def closest(self, rec: Record, limit: int = 3, floor: float = 1.0) -> list[Match]:
        """The judgements on ``rec`` (an entry kept, or a candidate, which is then added)
        against the records it shares a block key with, duplicates or not, strongest
        first: at most ``limit`` whose match probability reaches ``floor`` percent
        (what ``--explain`` shows for an entry that is no duplicate)."""
        m = self.matcher
        self.add(rec)
        feats = m.index.feats
        i = next(n for n in range(len(feats) - 1, -1, -1) if feats.records[n] is rec)
        out = []
        with gcpause.paused():
            for j in sorted(m.index.candidates(feats[i])):
                if j == i:
                    continue
                v = m.judge(i, j)
                m._say_where_the_title_recurs(i, j, v)
                if v.score >= floor:
                    out.append((-v.weight, j, Match(feats[j].record, v.score, v.evidence,
                                                    v.rule, v)))
        out.sort(key=lambda t: (t[0], t[1]))
        return [match for _, _, match in out[:limit]]

    def _say_where_titles_recur(self, candidate: Record, found: list[Match]) -> None:
        """A common title's note names the fact behind it, as ``dedupe --explain``
        says it ("this title is carried by 6 records in this venue")."""
        s = Features(candidate, -1)
        wanted = {id(m.record) for m in found}
        index = {id(r): n for n, r in enumerate(self.matcher.index.feats.records)
                 if id(r) in wanted}
        for m in found:
            n = index.get(id(m.record))
            if n is None or m.verdict is None:
                continue
            other = self.matcher.index.feats[n]
            if other.title == s.title and other.venue == s.venue:
                # (the record stands for the candidate: same title, same venue)
                self.matcher._say_where_the_title_recurs(n, n, m.verdict)

    def add(self, rec: Record) -> None:
        """Judge later entries against ``rec`` too (an entry kept by this command)."""
        known = self._known
        if known is None:  # (built on the first add: one add's guard never needs it)
            known = self._known = {id(r) for r in self.matcher.records}
        if id(rec) not in known:
            known.add(id(rec))
            self.matcher.add(rec)

    def carry(self, digest: str, records: Sequence[Record]) -> bool:
        """Keep this guard's weights for the file version ``digest`` whose records are
        ``records``: the records judged against, then ``records``' others appended
        (what ``add`` writes: the library and its new entries, in file order). Nothing
        is kept when ``records`` is not that (another write came between), or when
        these are an import's weights (``among``). True when kept."""
        m = self.matcher
        if not isinstance(m, _GuardMatcher) or m._model is None or m.base is None:
            return False
        feats = m.index.feats
        if len(feats) > len(records) or any(
                records[n] is not feats.records[n] and records[n].fields != feats.records[n].fields
                for n in range(m._size, len(feats))):
            return False  # (what this guard was given, written after the library's)
        for rec in records[len(feats):]:
            m.add(rec)
        start = m.base[2]
        titles = m.index.titles[start:]
        matchcache.write_carried(digest, len(records), m.base, m.model, titles,
                                 [feats.main(n) for n in range(start, len(feats))],
                                 [sorted_words(t) for t in titles])
        return True


def _judged_by(judge: Matcher, records: Sequence[Record]) -> Matcher:
    """A matcher over ``records`` weighing evidence as ``judge`` does (its weights and
    its library's title frequencies)."""
    m = Matcher(records, model=judge.model)
    m._works = judge.title_works
    return m
