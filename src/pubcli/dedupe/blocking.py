"""Blocking: which pairs of a library are worth comparing at all.

Candidate pairs come from exact keys (identifiers, identical titles, identical
word sets, a title equal to another's main title) and from a sorted
neighbourhood over the distinct titles in three orders (as written, words
sorted, reversed), scored in C by rapidfuzz, and from titles sharing two of their
three rarest words (:mod:`.rare`: debris around a title moves it in every sort
order). Only those pairs are compared in full. Everything is ordered by
record index, and the matcher numbers records in a canonical (content) order,
so the pairs do not depend on the order of the file.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import overload
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence

from pubcli.schema.model import Record
from .features import Features, sorted_words
from .identifiers import BOOKLIKE
from .normalise import normalise, title_score
from .extrakeys import contained_pairs
from .rare import rare_word_pairs
from .textblob import Blob
from . import blockcache, windows

#: Sorted-neighbourhood window (neighbours compared per record and pass).
WINDOW = 6
#: Title similarity (rapidfuzz ``ratio``, 0-100) a neighbour needs to be a candidate.
BLOCK_CUT = 72.0
_BIG_BLOCK = 60  # beyond this many entries with one key, pairs are taken more selectively
_ID_TEXT_FIELDS = frozenset({"doi", "url", "eprint", "arxiv", "journal", "journaltitle", "note",
                             "howpublished"})


#: What blocking reads of one record, a function of its content alone (kept per entry
#: text by :mod:`.entrycache`): (normalised title, main title, title in sorted word
#: order, DOI, arXiv id, ISBN, PubMed id, :func:`page_keys` each joined by "\\x1f",
#: joined by "\\x1e").
Row = tuple[str, str, str, str, str, str, str, str]


class Feats(Sequence[Features]):
    """The records' features, in index order, each made when first asked for (a
    command on an unchanged file, whose normalised titles come from the weights
    cache, looks at few of them)."""

    def __init__(self) -> None:
        self.records: list[Record] = []
        self._titles: list[str] = []
        #: the main titles (before a subtitle, "" when none), None where not known yet
        self.mains: list[str | None] = []
        #: the records' blocking rows (:data:`Row`), None where not made yet
        self.rows: list[Row | None] = []
        self._made: list[Features | None] = []

    def __len__(self) -> int:
        return len(self._made)

    @overload
    def __getitem__(self, i: int) -> Features: ...

    @overload
    def __getitem__(self, i: slice) -> list[Features]: ...

    def __getitem__(self, i: int | slice) -> Features | list[Features]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self._made)))]
        f = self._made[i]
        if f is None:
            n = i if i >= 0 else len(self._made) + i
            f = self._made[n] = Features(self.records[n], n, self._titles[n], self.mains[n])
            row = self.rows[n]
            if row is not None:
                f.known(row[2], row[3:6])
        return f

    def main(self, i: int) -> str:
        """The main title of record ``i`` (made from its features when not known)."""
        main = self.mains[i]
        if main is None:
            main = self.mains[i] = self[i].main
        return main

    def __iter__(self) -> Iterator[Features]:
        for i in range(len(self._made)):
            yield self[i]

    def append(self, rec: Record, title: str, main: str | None, made: Features | None,
               row: Row | None = None) -> None:
        self.records.append(rec)
        self._titles.append(title)
        self.mains.append(main)
        self._made.append(made)
        self.rows.append(row)


class Index:
    """All records' features, with exact-title maps, for repeated look-ups."""

    def __init__(self, records: Sequence[Record], titles: Sequence[str] | None = None,
                 mains: Sequence[str] | None = None,
                 sorted_titles: Sequence[str] | None = None,
                 rows: Sequence[Row | None] | None = None) -> None:
        """``titles``, ``mains`` and ``sorted_titles``: the records' normalised titles,
        main titles and titles in sorted word order, when known (the weights cache);
        ``rows``: their blocking rows, where known (the per-entry cache)."""
        self.feats = Feats()
        self.titles: list[str] = []
        self.by_title: dict[str, list[int]] = {}
        self._blobs: dict[str, Blob] = {}
        self._sorted: list[str] = []
        self._series: dict[str, bool] = {}
        self._subtitled: dict[str, set[str]] | None = None  # main title -> full titles
        feats, by_title = self.feats, self.by_title
        # (Index.add's work, inline: at 100,000 records the calls cost a second)
        feats.records = list(records)
        n_records = len(feats.records)
        feats.rows = list(rows) if rows is not None else [None] * n_records
        made: list[Features | None] = [None] * n_records
        mains_known: list[str | None] = [None] * n_records
        all_titles: list[str] = []
        main: str | None
        for n, rec in enumerate(feats.records):
            row = feats.rows[n]
            if row is not None:
                title, main = row[0], row[1]
            elif titles is not None:
                title, main = titles[n], None if mains is None else mains[n]
            else:
                f = made[n] = Features(rec, n)
                title, main = f.title, None
            mains_known[n] = main
            all_titles.append(title)
            if title:
                got = by_title.get(title)
                if got is None:
                    by_title[title] = [n]
                else:
                    got.append(n)
        feats._titles, feats.mains, feats._made = all_titles, mains_known, made
        self.titles = list(all_titles)
        if sorted_titles is not None and len(sorted_titles) == len(self.titles):
            self._sorted = list(sorted_titles)

    def add(self, rec: Record, title: str | None = None, main: str | None = None,
            row: Row | None = None) -> None:
        i = len(self.feats)
        s = Features(rec, i) if title is None else None
        if s is not None:
            title = s.title
        assert title is not None
        self.feats.append(rec, title, main, s, row)
        self.titles.append(title)
        if title:
            self.by_title.setdefault(title, []).append(i)
        if self._subtitled is not None:
            main = self.feats.main(i)
            if main:
                self._subtitled.setdefault(main, set()).add(title)
                self._series.pop(main, None)

    def row(self, i: int) -> Row:
        """Record ``i``'s blocking row (:data:`Row`), made from its features when not
        known."""
        row = self.feats.rows[i]
        if row is None:
            f = self.feats[i]
            doi, arxiv, isbn = f._identifiers()
            row = self.feats.rows[i] = (f.title, f.main, f.sorted_title, doi, arxiv, isbn,
                                        f.pmid, "\x1e".join(map("\x1f".join, page_keys(f))))
        return row

    def series(self, s: Features) -> bool:
        """Do two or more different titles in the index read "<s's title>: ..."?"""
        return self.series_title(s.title)

    def series_title(self, title: str) -> bool:
        """:meth:`series` of a normalised title."""
        got = self._series.get(title)
        if got is None:
            if self._subtitled is None:
                self._subtitled = {}
                for i, full in enumerate(self.titles):
                    main = self.feats.main(i)
                    if main:
                        self._subtitled.setdefault(main, set()).add(full)
            got = self._series[title] = _is_series(self._subtitled.get(title, set()))
        return got

    def _blob(self, name: str) -> Blob:
        """All records' identifier-bearing text, or all titles, as one searchable string
        (built once per index; a search is then one C-speed ``str.find`` loop)."""
        blob = self._blobs.get(name)
        if blob is None or len(self.feats) - blob.size > max(256, blob.size // 8):
            blob = self._blobs[name] = Blob(self._blob_texts(name, 0))
        elif blob.size + len(blob.extra) != len(self.feats):
            # records added since (an import's, one by one): kept beside it
            blob.extra += self._blob_texts(name, blob.size + len(blob.extra))
        return blob

    def _blob_texts(self, name: str, start: int) -> list[str]:
        records = self.feats.records[start:]
        if name == "titles":
            return self.titles[start:]
        if name == "pages":
            return [r.fields.get("pages", "") for r in records]
        return ["\t".join(v.lower() for n, v in r.fields.items()
                          if n in _ID_TEXT_FIELDS) for r in records]

    def _id_candidates(self, s: Features) -> set[int]:
        out: set[int] = set()
        for needle, attr in ((s.doi, "doi"), (s.arxiv, "arxiv")):
            if needle:
                out.update(i for i in self._blob("ids").containing(needle)
                           if getattr(self.feats[i], attr) == needle)
        if s.isbn:
            out.update(i for i, r in enumerate(self.feats.records)
                       if r.type in BOOKLIKE and self.feats[i].isbn == s.isbn)
        return out

    def _page_candidates(self, s: Features) -> set[int]:
        """Records sharing a key of :func:`page_keys` with ``s`` (found by the first
        page's digits in all pages fields, then checked)."""
        mine = set(page_keys(s))
        if not mine:
            return set()
        first = s.biblio[2][0]  # type: ignore[index]
        return {i for i in self._blob("pages").containing(first, whole=True)
                if not mine.isdisjoint(page_keys(self.feats[i]))}

    def candidates(self, s: Features) -> set[int]:
        """Indexes of records that might match ``s`` (identifiers, titles)."""
        from rapidfuzz import fuzz, process

        out = self._id_candidates(s) if (s.doi or s.arxiv or s.isbn) else set()
        out |= self._page_candidates(s)
        if s.title:
            if len(self._sorted) != len(self.feats):  # words in order: ratio = token_sort_ratio
                self._sorted.extend(sorted_words(t) for t in self.titles[len(self._sorted):])
            for query, choices in ((s.title, self.titles), (s.sorted_title, self._sorted)):
                for _, _, j in process.extract(query, choices, scorer=fuzz.ratio,
                                               processor=None, score_cutoff=BLOCK_CUT,
                                               limit=None):
                    out.add(j)
            # a title without its subtitle: one title starts with the other
            out.update(self._blob("titles").starting(s.title + " "))
            if s.main:
                out.update(self.by_title.get(s.main, ()))
        return out


def page_keys(s: Features) -> list[tuple[str, ...]]:
    """Block keys that are not the title (a translated or bilingual title, one garbled
    beyond the sort orders): where the work is printed (volume, first page, year)
    and who wrote it when (first author's family name, first page, year)."""
    _, _, pages, _ = s.biblio
    if not (pages and pages[0] and s.year):
        return []
    volume = s.biblio[0]
    out: list[tuple[str, ...]] = []
    if volume:
        out.append(("volume-page", volume, pages[0], str(s.year)))
    f = s.record.fields
    family = first_family(f.get("author") or f.get("editor") or "")
    if family:
        out.append(("author-page", family, pages[0], str(s.year)))
    return out


_FIRST_PERSON_RE = re.compile(r"\s+and\s+|[,;]|\s&\s", re.I)


@lru_cache(maxsize=65536)
def first_family(authors: str) -> str:
    """The first author's family name, read cheaply (a block key, not a parse: the
    comparison reads every name): "Smith, J. and ..." / "John Smith and ..." /
    "Smith AB, Jones C" / "M. Kearns, Y. Mansour" -> "smith" / "kearns"."""
    m = _FIRST_PERSON_RE.search(authors)
    head = authors[:m.start()] if m else authors
    words = normalise(head).split()
    if not words:
        return ""
    comma_after = m is not None and m.group(0) == "," and " " not in head.strip()
    if comma_after or len(words) == 1:
        return words[0] if comma_after else words[-1]
    last = head.split()[-1]
    if len(last) <= 3 and last.replace(".", "").isupper():
        return words[-2]  # Vancouver "Smith AB"
    return words[-1]


def _is_series(titles: set[str]) -> bool:
    """Titles sharing a main title but clearly different after it ("X: part A",
    "X: part B"; not "X: a sub-title" and "X: a sub-tilte")."""
    ts = sorted(titles)[:12]
    return any(title_score(x, y) < 90 for i, x in enumerate(ts) for y in ts[i + 1:])


def _pairs_within(members: list[int], sigs: Sequence[Features], out: set[tuple[int, int]]
                  ) -> None:
    """All pairs of a block; a big block is split by first author (then year) first."""
    if len(members) <= _BIG_BLOCK:
        for x in range(len(members)):
            i = members[x]
            for j in members[x + 1:]:
                out.add((i, j) if i < j else (j, i))
        return
    sub: dict[tuple, list[int]] = {}
    for i in members:
        au = sigs[i].authors
        sub.setdefault((au[0][0][-1] if au else "", sigs[i].year), []).append(i)
    for part in sub.values():
        if len(part) <= 4 * _BIG_BLOCK:
            _pairs_within(part[:_BIG_BLOCK], sigs, out) if len(part) > _BIG_BLOCK else \
                _pairs_within(part, sigs, out)


def block(index: Index, *, window: int = WINDOW,
          progress: Callable[[int, int], None] | None = None,
          kept_as: tuple[Sequence[str], Sequence[bytes]] | None = None
          ) -> set[tuple[int, int]]:
    """Candidate pairs (i < j) worth judging: shared identifiers, identical titles
    or word sets, a title equal to another's main title, and titles (or main titles)
    near each other in one of three sort orders whose ``ratio`` passes a loose cut
    (scored in C by rapidfuzz). With ``kept_as`` (where the library's blocking may be
    kept, this version's name first: :func:`.entrycache.kept_names`, and the records'
    content digests in index order) what blocking found for
    the version before is read (:mod:`.blockcache`): the same pairs when the contents
    are the same, the sorted passes patched where they changed, and this version's
    kept."""
    sigs = index.feats
    before = None if kept_as is None else next(
        (b for b in map(blockcache.read, kept_as[0]) if b is not None), None)
    if before is not None and kept_as is not None and before.digests == list(kept_as[1]):
        if progress is not None:
            progress(1, 1)
        return before.pairs()
    pairs: set[tuple[int, int]] = set()
    rows = [index.row(i) for i in range(len(sigs))]
    # exact keys
    ids: dict[tuple[str, str] | str, list[int]] = {}
    by_sorted: dict[str, list[int]] = {}
    by_main: dict[str, list[int]] = {}
    for i, (title, main, sorted_title, doi, arxiv, isbn, pmid, pkeys) in enumerate(rows):
        if doi:
            ids.setdefault(("doi", doi), []).append(i)
        if arxiv:
            ids.setdefault(("arxiv", arxiv), []).append(i)
        if isbn:
            ids.setdefault(("isbn", isbn), []).append(i)
        if pmid:
            ids.setdefault(("pmid", pmid), []).append(i)
        if pkeys:
            for key in pkeys.split("\x1e"):
                ids.setdefault(key, []).append(i)
        if title:
            by_sorted.setdefault(sorted_title, []).append(i)
        if main:
            by_main.setdefault(main, []).append(i)
    for members in ids.values():
        if len(members) > 1:
            _pairs_within(members, sigs, pairs)
    for members in index.by_title.values():
        if len(members) > 1:
            _pairs_within(members, sigs, pairs)
    # sorted neighbourhood over distinct keys, in three orders
    cut = BLOCK_CUT
    for members in by_sorted.values():
        if len(members) > 1:
            _pairs_within(members, sigs, pairs)
    # titles and main titles (without the subtitle) share the first order, so that
    # "title" meets "title: subtitle" even with a typo
    by_title = index.by_title
    for main, shorter in by_main.items():
        same = by_title.get(main)
        if same and len(same) * len(shorter) <= _BIG_BLOCK * _BIG_BLOCK:
            for i in same:
                for j in shorter:
                    if i != j:
                        pairs.add((i, j) if i < j else (j, i))
    no_members: list[int] = []

    def title_or_main(key: str) -> list[int]:
        return by_title.get(key, no_members) + by_main.get(key, no_members)

    changed = _changed_titles(index, rows, before, kept_as)
    passes: list[tuple[str, Callable[[], Collection[str]], Callable[[str], bool],
                       Callable[[tuple[str, str, str]], Iterable[str]],
                       Callable[[str], list[int]]]] = [
        ("titles", lambda: set(by_title).union(by_main),
         lambda k: k in by_title or k in by_main, lambda r: (r[0], r[1]), title_or_main),
        ("sorted", lambda: by_sorted, by_sorted.__contains__, lambda r: (r[2],),
         by_sorted.__getitem__),
        ("reversed", lambda: [t[::-1] for t in by_title], lambda k: k[::-1] in by_title,
         lambda r: (r[0][::-1],), lambda r: by_title[r[::-1]])]
    new: dict[str, blockcache.Pass] = {}
    search = _neighbours(window, cut)
    total = len(by_title) * 2 + len(by_sorted) + len(by_main)
    done = 0
    for name, every, present, keys_of, members_of in passes:
        keys, found, kept, change = windows.run(
            every, present,
            None if changed is None else (k for r in changed for k in keys_of(r) if k),
            window, search,
            None if before is None else before.kept(name, (str,), window))
        new[name] = (kept, change)
        for p, q in found:
            gi, gj = members_of(keys[p]), members_of(keys[q])
            if len(gi) * len(gj) > _BIG_BLOCK * _BIG_BLOCK:
                continue
            for i in gi:
                for j in gj:
                    if i != j:
                        pairs.add((i, j) if i < j else (j, i))
        done += len(keys)
        if progress is not None:
            progress(min(done, total), total)
    rare_word_pairs(by_title, pairs, _BIG_BLOCK)
    contained_pairs(index, pairs, _BIG_BLOCK, changed, before, new)
    if before is not None:
        before.let_go()
    if kept_as is not None:
        blockcache.write(kept_as[0][0], kept_as[1], pairs, new, [r[:3] for r in rows], before)
    return pairs


def _changed_titles(index: Index, rows: Sequence[Row], before: blockcache.Before | None,
                    kept_as: tuple[Sequence[str], Sequence[bytes]] | None
                    ) -> list[tuple[str, str, str]] | None:
    """(title, main title, sorted title) of every record added since the version
    ``before`` or removed from it; None when not known."""
    if before is None or kept_as is None:
        return None
    added, gone = blockcache.changes(before, kept_as[1])
    if len(added) + len(gone) > windows.FRESH_SHARE * max(len(rows), 1):
        return None
    old = before.titles_of(gone)
    return None if old is None else [rows[i][:3] for i in added] + old


def _neighbours(window: int, cut: float) -> windows.Search:
    """``search(keys, p)``: the positions q, p < q <= p + window, of sorted ``keys``
    whose ``ratio`` with key p is at least ``cut``: one rapidfuzz ``extract`` call
    (measured faster than ``cpdist`` on all cores of a shared 2-core machine, and no
    numpy import; its functions bound once, not looked up per key)."""
    from rapidfuzz import fuzz, process

    extract, ratio = process.extract, fuzz.ratio

    def search(keys: list, p: int) -> list[int]:
        return [p + 1 + off for _, _, off in extract(
            keys[p], keys[p + 1:p + 1 + window], scorer=ratio, processor=None,
            score_cutoff=cut, limit=None)]
    return search
