"""Finding entries that describe the same work, and merging them safely.

Evidence is weighed, Fellegi-Sunter style, per library:

:class:`Matcher` (:mod:`.matcher`) holds one library's matcher; this module is the
stable API around it.

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

The only package that imports rapidfuzz; none of
it prints. Its one file is the weights cache: given the digest of the library
file's bytes, a :class:`Matcher` keeps the estimated weights and the candidate
pairs there (:func:`pubcli.store.cache.write_derived`), so the next command on
the same file (``add``, ``import``, ``dedupe --explain``) does not work them out
again. A command judging new entries holds a :class:`Guard` (:mod:`.guard`): one
matcher for all its entries, no state kept in this module.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence

from pubcli.local import gcpause
from pubcli.schema.model import Record
from .evidence import Comparison
from .levels import FIELDS, LEVELS, MISSING, Field
from .explain import Verdict, model_summary, weight_lines
from .identifiers import normalise_doi, normalise_isbn, page_range
from .merge import Conflict, MergeResult, Planned, merge, plan_merges, suggest_keep
from .merge import apply as apply_merge
from .normalise import _unmatched_words, normalise, strip_annotations, title_score
from .groups import Group, Link, Match, pair_key
from .linking import DEFAULT_THRESHOLD
from .matcher import Matcher
from .guard import Guard
from .people import parse_authors, person_match, person_strings, shared_authors
from .venues import venue_relation
from .vetoes import Veto, VetoKind
from .weights import Model, prior_model

__all__ = [
    "DEFAULT_THRESHOLD", "Conflict", "Field", "Group", "Guard", "Link", "Match", "Matcher", "MergeResult",
    "Model", "Verdict", "Veto", "VetoKind", "explain", "find_groups", "find_matches", "merge",
    "normalise", "normalise_doi", "normalise_isbn", "page_range", "pair_key", "parse_authors",
    "person_match", "person_strings", "shared_authors", "strip_annotations", "suggest_keep",
    "title_score", "venue_relation", "weight_lines", "model_summary", "LEVELS", "FIELDS",
    "MISSING", "Comparison", "_unmatched_words", "Planned", "plan_merges", "apply_merge",
]


def _no_gc() -> contextlib.AbstractContextManager[None]:
    """Building many small objects: the GC policy's one home is pubcli.local.gcpause."""
    return gcpause.paused()


# ---------------------------------------------------------------- the stable API
def find_matches(candidate: Record, records: Sequence[Record], *,
                 threshold: float | None = None, digest: str | None = None,
                 among: Sequence[Record] | None = None) -> list[Match]:
    """The records ``candidate`` duplicates, strongest first, judged with the
    weights of ``records``' library (``digest``: of the library file's bytes, whose
    records ``records`` are, for the weights cache). With ``among`` (the library
    ``records`` and the entries still to come will make: an import's), the weights
    and title frequencies are ``among``'s, as ``dedupe`` will see them afterwards;
    ``digest`` then names ``among``. ``threshold`` is the match probability in
    percent (default :data:`DEFAULT_THRESHOLD`). One judgement: a command judging
    several entries holds a :class:`Guard` instead (built once, entries added)."""
    return Guard(records, digest=digest, among=among).matches(candidate, threshold)


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
