"""What the matcher needs from one record, parsed once and lazily.

:class:`Features` holds a record's normalised title at once and the rest (words,
numbers, authors, venue, identifiers, volume and pages) on the first comparison.
Comparing two of them is :mod:`.evidence`'s job.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pubcli.schema.identifiers import _MENTIONS as _ARXIV_FIELDS
from pubcli.schema.model import Record
from .identifiers import (BOOKLIKE, arxiv_id, edition_value, issue_value, normalise_doi,
                          normalise_isbn, page_range, pmid, volume_value)
from .normalise import (_MARKERS, _MAYBE_NUMBER_RE, _PART_WORDS, _ROMAN, _NUMBER_WORDS, _STOP,
                        _has_separator, _main_title, _normalise, normalise, part_letters,
                        strip_annotations)
from .people import CUT_LIST_RE, Person, _author_index, _parse_authors
from .venues import CUT

_SENTENCE_RE = re.compile(r"\s*\.\s+")
_CUT_RE = re.compile(r"\u2026|&\s*hellip\s*;|\.\.\.\s*[,;]?\s*$")


class Features:
    """What the matcher needs from one record: the title at once, the rest on the
    first comparison."""

    __slots__ = ("record", "index", "title", "year", "_raw", "_sorted", "_main", "_authors", "_ids",
                 "_tokens", "_content", "_nums", "_parts", "_letters", "_venue", "_aindex", "_biblio",
                 "_segments", "cheap_row")

    def __init__(self, record: Record, index: int = 0, title: str | None = None,
                 main: str | None = None) -> None:
        self.record = record
        self.index = index
        #: ``title`` and ``main``: the normalised title and main title, when known already
        #: the title without database notes (None until asked for, when ``title`` is given)
        self._raw: str | None = None
        if title is None:
            self._raw = strip_annotations(record.fields.get("title", ""))
            title = _normalise(self._raw)
        self.title = title
        #: the year (read once: blocking's page keys and every comparison ask it)
        self.year: int | None = record.year
        self._sorted: str | None = None
        self._main: str | None = main
        self._authors: tuple | None = None
        self._ids: tuple | None = None
        self._tokens: list[str] | None = None
        self._aindex: dict[str, list[int]] | None = None
        self._venue: str | None = None
        self._biblio: tuple | None = None
        self._segments: tuple[str, ...] | None = None
        #: what :mod:`.evidence` compares of the cheap fields, made there on the first
        #: comparison (:func:`.evidence.cheap_row`)
        self.cheap_row: tuple | None = None

    def known(self, sorted_title: str, ids: tuple[str, ...]) -> None:
        """What is known already (the per-entry cache): the title in sorted word order
        and (DOI, arXiv id, ISBN)."""
        self._sorted = sorted_title
        self._ids = ids

    # titles
    def _detail(self) -> None:
        toks = self.title.split()
        self._tokens = toks
        self._content = [t for t in toks if t not in _STOP and len(t) > 1]
        if _MAYBE_NUMBER_RE.search(self.title):
            self._nums, self._parts = _title_numbers(toks)
        else:
            self._nums, self._parts = (), ()
        self._letters = part_letters(toks)

    @property
    def tokens(self) -> list[str]:
        if self._tokens is None:
            self._detail()
        return self._tokens  # type: ignore[return-value]

    @property
    def content_tokens(self) -> list[str]:
        if self._tokens is None:
            self._detail()
        return self._content

    @property
    def nums(self) -> tuple[str, ...]:
        if self._tokens is None:
            self._detail()
        return self._nums

    @property
    def part_nums(self) -> tuple[str, ...]:
        """Numbers that name a part ("Part 2", "Phase III", "II")."""
        if self._tokens is None:
            self._detail()
        return self._parts

    @property
    def part_letters(self) -> tuple[str, ...]:
        """The letters naming a part ("Part A"), sorted (:func:`.normalise.part_letters`)."""
        if self._tokens is None:
            self._detail()
        return self._letters

    @property
    def end_markers(self) -> bool:
        """Does a word like "erratum" or "reply" start or end the title (in its first or
        last three words: what :func:`.normalise._marker_difference` reads)?"""
        toks = self.tokens
        return not (_MARKERS.isdisjoint(toks[:3]) and _MARKERS.isdisjoint(toks[-3:]))

    @property
    def sorted_title(self) -> str:
        if self._sorted is None:
            self._sorted = sorted_words(self.title)
        return self._sorted

    @property
    def raw_title(self) -> str:
        """The title as written, without the notes databases add (:func:`strip_annotations`)."""
        if self._raw is None:
            self._raw = strip_annotations(self.record.fields.get("title", ""))
        return self._raw

    @property
    def main(self) -> str:
        """The normalised title before its subtitle, "" when it has none."""
        if self._main is None:
            raw = self.raw_title
            main = _main_title(raw) if raw and _has_separator(raw) else ""
            self._main = "" if main == self.title else main
        return self._main

    @property
    def segments(self) -> tuple[str, ...]:
        """The normalised pieces of a title written with sentence periods, of two
        content words or more ("l. wong . comprehension syntax" -> "comprehension
        syntax"): what is left when citation debris is written around a title."""
        if self._segments is None:
            raw = self.raw_title
            out: list[str] = []
            if ". " in raw:
                for piece in _SENTENCE_RE.split(raw):
                    norm = _normalise(piece)
                    if norm != self.title and sum(
                            1 for t in norm.split() if t not in _STOP and len(t) > 1) >= 2:
                        out.append(norm)
            self._segments = tuple(out)
        return self._segments

    # the rest
    @property
    def venue(self) -> str:
        if self._venue is None:
            f = self.record.fields
            venue = ""
            for name in ("journal", "journaltitle", "booktitle", "series"):
                if f.get(name):
                    venue = normalise(f[name])
                    if _CUT_RE.search(f[name]):
                        venue += " " + CUT  # "Proc. of the 25th Intl. Conf. on Very ..."
                    break
            self._venue = venue
        return self._venue

    @property
    def authors(self) -> tuple[Person, ...]:
        if self._authors is None:
            f = self.record.fields
            self._authors = _parse_authors(f.get("author") or f.get("editor") or "")
        return self._authors

    @property
    def authors_cut(self) -> bool:
        """Does the author list end "et al." or with an ellipsis?"""
        f = self.record.fields
        return bool(CUT_LIST_RE.search(f.get("author") or f.get("editor") or ""))

    @property
    def author_index(self) -> dict[str, list[int]]:
        if self._aindex is None:
            self._aindex = _author_index(self.authors)
        return self._aindex

    def _identifiers(self) -> tuple[str, str, str]:
        if self._ids is None:
            f = self.record.fields
            v = f.get("doi")
            doi = normalise_doi(v) if v else ""
            if not doi:
                for name in ("url", "note"):
                    v = f.get(name)
                    if v and ("10." in v):
                        doi = normalise_doi(v)
                        if doi:
                            break
            arxiv = ""
            if "eprint" in f or "arxiv" in f:
                arxiv = arxiv_id(f)
            else:  # (only the fields arxiv_of reads: not the abstract, joined or not)
                for name in _ARXIV_FIELDS:
                    v = f.get(name)
                    if v and ("rxiv" in v or "rXiv" in v or "RXIV" in v):
                        arxiv = arxiv_id(f)
                        break
            if doi.startswith("10.48550/arxiv."):
                arxiv = arxiv or doi.split("arxiv.", 1)[1]
            isbn = normalise_isbn(f.get("isbn")) if self.record.type in BOOKLIKE else ""
            self._ids = (doi, arxiv, isbn)
        return self._ids

    @property
    def doi(self) -> str:
        return self._identifiers()[0]

    @property
    def arxiv(self) -> str:
        return self._identifiers()[1]

    @property
    def isbn(self) -> str:
        return self._identifiers()[2]

    @property
    def pmid(self) -> str:
        """The PubMed id ("pmid" field), "" when none."""
        return pmid(self.record.fields) if "pmid" in self.record.fields else ""

    @property
    def biblio(self) -> tuple[str, str, tuple[str, str] | None, str]:
        """(volume, issue, page range, edition), each "" / None when absent or junk."""
        if self._biblio is None:
            f = self.record.fields
            self._biblio = (volume_value(f.get("volume")), issue_value(f.get("number")),
                            page_range(f.get("pages")), edition_value(f.get("edition")))
        return self._biblio

    def field(self, name: str) -> str:
        return self.record.fields.get(name, "")


def sorted_words(title: str) -> str:
    """A title's words in sorted order (a block key: reordered words meet)."""
    return " ".join(sorted(title.split())) if " " in title else title


def _title_numbers(tokens: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(all numbers of a title, the numbers naming a part), each sorted."""
    out: list[str] = []
    parts: list[str] = []
    prev = ""
    for tok in tokens:
        n = ""
        if tok.isdigit():
            n = tok.lstrip("0") or "0"
            if prev in _PART_WORDS:
                parts.append(n)
        elif prev in _PART_WORDS and (tok in _ROMAN or tok in _NUMBER_WORDS):
            n = _ROMAN.get(tok) or _NUMBER_WORDS[tok]
            parts.append(n)
        elif tok in _ROMAN and tok not in ("i", "v", "x"):
            n = _ROMAN[tok]
            parts.append(n)
        if n:
            out.append(n)
        prev = tok
    return tuple(sorted(out)), tuple(sorted(parts))
