"""Each item of an import judged against the library and the items before it: new, a
duplicate, a repeat, a near-duplicate to review, held or invalid; a person's verdicts on
near-duplicates kept and remembered (:mod:`pubcli.usecases.distinct`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from collections.abc import Mapping, Sequence

from pubcli.errors import ValidationError
from pubcli.schema.model import Record

if TYPE_CHECKING:
    from pubcli.dedupe import Match
    from pubcli.usecases.progress import Progress

from pubcli.usecases.listing import Item

# ------------------------------------------------------------------ matching
#: Match probability (percent, dedupe's scale) from which a match that
#: :data:`pubcli.dedupe.DEFAULT_THRESHOLD` does not reach is a near-duplicate
#: held back for review ("more likely the same work than not").
#: Duplicates are exactly what ``pubcli dedupe`` finds.
REVIEW_THRESHOLD = 50.0

NEW = "new"
DUPLICATE = "duplicate"    # already in the library
REPEAT = "repeat"          # an earlier item of the same input
NEAR = "near-duplicate"    # a match below certainty: for review
HELD = "held"              # a listing's block read without a date line: for review
INVALID = "invalid"


@dataclass
class Outcome:
    item: Item
    status: str
    record: Record                  # with its key when it is added
    added: bool = False
    match: Match | None = None
    problem: str = ""
    #: what BibTeX only warns about (a missing field...), shown as warnings with the
    #: item's line; ``pubcli check`` shows them again
    shortfalls: list[str] = field(default_factory=list)
    renamed_from: str | None = None  # the key as written, when the entry got another
    #: a near-duplicate's verdict: DIFFERENT (added; remember the pair as not
    #: duplicates), SAME (skipped; remember it as the same work), or "" (undecided)
    decision: str = ""
    remembered: bool = False  # the verdict comes from an earlier import's decision

    @property
    def own_key(self) -> str:
        """The key the item has in its input (empty for a listing's items)."""
        return self.item.record.key


DIFFERENT = "different"   # a near-duplicate judged another work: added
SAME = "same"             # a near-duplicate judged the work it matches: skipped


@dataclass(frozen=True)
class Decisions:
    """Verdicts given before (see :mod:`pubcli.usecases.distinct`): ``distinct``, pairs of keys
    judged not duplicates (case-folded, sorted: :func:`pubcli.usecases.distinct.load`);
    ``same``, an incoming entry's key (case-folded) -> the library key of the work it
    was judged to be (:func:`pubcli.usecases.distinct.load_same`)."""

    distinct: frozenset[tuple[str, str]] = frozenset()
    same: Mapping[str, str] = field(default_factory=dict)

    def judged_distinct(self, a: str, b: str) -> bool:
        from pubcli.usecases.distinct import pair

        return bool(a and b) and pair(a, b) in self.distinct


def decision_key(rec: Record) -> str:
    """What names an incoming entry in a remembered decision: its own key, else (a
    listing's item) the key scheme's key for it, which the same text gives again."""
    from pubcli.schema.keys import base_key

    return rec.key or base_key(rec)


def _same_entry(rec: Record, titleless: Mapping[str, Sequence[Record]]) -> Record | None:
    """A library entry without a title that says all ``rec`` (also without one) says:
    the same type, and every field of ``rec`` with the same value. The matcher judges
    works by their titles, so a crossref parent (``@proceedings`` with a booktitle)
    needs this to be known again on a re-import."""
    if rec.title.strip():
        return None
    mine = {k: " ".join(v.split()) for k, v in rec.fields.items() if v.strip()}
    if not mine:
        return None
    for other in titleless.get(rec.type.casefold(), ()):
        if all(" ".join(other.fields.get(k, "").split()) == v for k, v in mine.items()):
            return other
    return None


def plan(items: Sequence[Item], library: Sequence[Record], *, force: bool = False,
         add_near: bool = False, areas: Sequence[str] = (),
         review_threshold: float = REVIEW_THRESHOLD, strict: bool = False,
         digest: str | None = None, decisions: Decisions | None = None,
         progress: Progress | None = None) -> list[Outcome]:
    """Decide, item by item, what an import does.

    Each item is matched (by one :class:`pubcli.dedupe.Guard`) against the
    library and the items before it, skipped copies included (as ``dedupe`` links a
    record to any of a group's: a match with a copy is one with the work it copies,
    shown as the kept entry's when that matches too): a match at dedupe's
    default threshold makes it a duplicate (of the library) or a repeat (of an
    earlier item), skipped; failing that, a match at ``review_threshold`` makes
    it a near-duplicate, held back unless ``add_near``. Items that cannot be written
    (:func:`pubcli.usecases.adding.validate`) are invalid, skipped; what BibTeX only warns about
    (a missing required field, a 2-digit year, an unknown type) goes into the outcome's
    ``shortfalls``, unless ``strict`` makes it invalid too (``force`` still accepts an
    unknown type). ``areas`` (resolved names) are added to every item. Kept items get a
    key: their own, exactly as written, when it can be cited and is free; else a new
    one (suffixed when taken; the scheme's for a missing or uncitable key). Of two
    items of one work the fuller is kept (the other becomes its repeat); a fuller
    copy kept for a near-duplicate is judged by its own fields.
    Every item is judged with the weights and title frequencies of the library the
    import makes (the library and all items), as ``pubcli dedupe`` will judge it
    afterwards; ``digest`` names that content (the file's and the items' bytes) for
    the weights cache.

    ``decisions`` given before are kept: a match with an entry the item was judged
    not to duplicate does not count; an item judged the same work as a library entry
    is a duplicate of it. An item without a title is a duplicate of a library entry
    without one that says all it says (:func:`_same_entry`: a crossref parent).
    ``progress`` hears how many items are judged (:mod:`pubcli.usecases.progress`).
    """
    from pubcli.usecases import adding as entries
    from pubcli.dedupe import Guard
    from pubcli.usecases.progress import stepper
    from pubcli.schema.inherit import Inheritance
    from pubcli.schema.keys import taken_keys
    from pubcli.schema.types import biblatex_file

    tick = stepper(progress, "matching against the library", len(items))
    taken = taken_keys(library)
    parents = Inheritance([*(i.record for i in items), *library])  # crossref/xdata targets
    # the rules ``check`` will apply to the library with these entries in it
    biblatex = biblatex_file([*library, *(i.record for i in items)])
    # Each work of the input is a cell holding the outcome of the entry kept for it;
    # every entry of the work (the kept one and its repeats) is judged against later
    # items, as ``dedupe`` links each record to all the others:
    incoming: dict[int, list[Outcome]] = {}  # id(an item's record) -> its work's cell
    copies: dict[int, tuple[Record, int]] = {}  # id(an item skipped as a duplicate) ->
    #                                             (the library's entry, the item's line)
    held: list[Record] = []            # items held for review, to find their repeats
    in_library = {id(r) for r in library}
    # one guard for the whole import: the library and the items kept so far, judged
    # by the weights of the library the import makes
    guard = Guard(library, digest=digest, among=[*library, *(i.record for i in items)],
                  progress=progress)
    held_guard = guard.over(held)
    decided = decisions or Decisions()
    by_key = {r.key.casefold(): r for r in library if r.key} if decided.same else {}
    titleless: dict[str, list[Record]] = {}
    for r in library:
        if not r.title.strip():
            titleless.setdefault(r.type.casefold(), []).append(r)
    out: list[Outcome] = []

    def kept(rec: Record, found: list[Match]) -> list[Match]:
        """``found`` without the entries ``rec`` was judged not to duplicate."""
        if not decided.distinct or not found:
            return found
        name = decision_key(rec)
        return [m for m in found if not decided.judged_distinct(name, m.record.key)]

    for done, item in enumerate(items):
        tick(done)
        rec = entries.apply_extras(item.record, areas)
        earlier_verdict = by_key.get(decided.same.get(decision_key(rec).casefold(), "")
                                     .casefold()) if decided.same else None
        same = earlier_verdict or _same_entry(rec, titleless)
        if same is not None:
            why = "judged the same work before" if earlier_verdict else "the same entry"
            status = REPEAT if id(same) in incoming else DUPLICATE  # (titleless: kept)
            out.append(Outcome(item, status, rec, match=_said(same, why),
                               decision=SAME if earlier_verdict else "",
                               remembered=earlier_verdict is not None))
            continue
        try:
            shortfalls = entries.validate(rec.copy(key=""), force=force,
                                          inherited=parents.inherited(item.record),
                                          parent=parents.is_parent(item.record),
                                          in_biblatex_file=biblatex, strict=strict)
        except ValidationError as exc:
            out.append(Outcome(item, INVALID, rec, problem=exc.message))
            continue
        if rec.key:
            shortfalls = [f"entry '{rec.key}': {w}" for w in shortfalls]
        matches = kept(rec, guard.matches(rec))
        if matches:
            # an entry kept (the library's, or one its work keeps) before a skipped copy
            best = next((m for m in matches if id(m.record) not in copies and (
                id(m.record) not in incoming or incoming[id(m.record)][0].record is m.record)),
                matches[0])
            work = incoming.get(id(best.record))
            if work is not None and _fuller(rec, work[0].record):
                # the input holds the work twice: keep the fuller entry in the earlier
                # one's place, and say so
                out.append(_swap(work, item, rec, best, taken, shortfalls))
                rec = out[-1].record
                guard.add(rec)
                incoming[id(rec)] = work
                if work[0].status == NEAR:  # its own near match, not the earlier entry's
                    near = [m for m in kept(rec, guard.matches(rec, review_threshold))
                            if incoming.get(id(m.record)) is not work
                            and id(m.record) not in copies]
                    _near_again(work, near, guard.threshold, incoming, copies, taken)
                continue
            outcome = Outcome(item, REPEAT if work is not None else DUPLICATE, rec, match=best)
            if work is not None:
                outcome.problem = (f"line {work[0].item.line} says as much or more: that one "
                                   "is kept")
                incoming[id(rec)] = work
            else:
                there = copies.get(id(best.record))
                if there is not None:  # an earlier copy of a library entry
                    outcome.problem = f"like line {there[1]}, a duplicate of '{there[0].key}'"
                copies[id(rec)] = (there[0] if there else best.record, item.line)
            out.append(outcome)
            guard.add(rec)
            continue
        if item.held:  # for review, unless the work is there already
            match = (guard.matches(rec) or held_guard.matches(rec))[:1]
            if match:
                known = id(match[0].record) in in_library or id(match[0].record) in copies
                out.append(Outcome(item, DUPLICATE if known else REPEAT, rec, match=match[0]))
            else:
                out.append(Outcome(item, HELD, rec, problem=item.held))
                held.append(rec)
                held_guard.add(rec)
            continue
        found = [m for m in guard.matches(rec, threshold=review_threshold)
                 if id(m.record) not in copies]  # (its work's entry, or the library's)
        near = kept(rec, found)
        add = not near or add_near
        renamed = None
        if add:
            rec, renamed = entries.keep_or_renew_key(rec, taken)
        outcome = Outcome(item, NEAR if near else NEW, rec, added=add,
                          match=near[0] if near else None, shortfalls=shortfalls,
                          renamed_from=renamed,
                          decision=DIFFERENT if near and add_near else "",
                          remembered=len(found) > len(near) and not near)
        out.append(outcome)
        guard.add(rec)
        incoming[id(rec)] = [outcome]
        if add and not rec.title.strip():  # a later copy of it is a repeat
            titleless.setdefault(rec.type.casefold(), []).append(rec)
    tick(len(items))
    return out


def _said(rec: Record, why: str) -> Match:
    """A match not the matcher's: an earlier verdict, or an identical entry."""
    from pubcli.dedupe import Match

    return Match(rec, 100.0, [why], why)


def decide(outcomes: Sequence[Outcome], outcome: Outcome, verdict: str,
           library: Sequence[Record]) -> None:
    """Give a held-back near-duplicate its verdict: DIFFERENT adds it (its key kept,
    or a new one when taken), SAME makes it a duplicate of the work it matches
    (skipped). The verdict is to be remembered (:func:`verdicts`)."""
    from pubcli.schema.keys import taken_keys
    from pubcli.usecases import adding as entries

    if outcome.status != NEAR or outcome.added:
        raise ValueError("only a held-back near-duplicate takes a verdict")
    outcome.decision = verdict
    if verdict == SAME:
        outcome.status = DUPLICATE
    elif verdict == DIFFERENT:
        taken = taken_keys([*library, *(o.record for o in outcomes if o.added)])
        outcome.record, outcome.renamed_from = entries.keep_or_renew_key(outcome.record,
                                                                          taken)
        outcome.added = True


def verdicts(outcomes: Sequence[Outcome], library: Sequence[Record]) -> \
        tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The new verdicts to remember: (pairs judged not duplicates, for
    :func:`pubcli.usecases.distinct.add`; (incoming key, library key) judged the same work, for
    :func:`pubcli.usecases.distinct.add_same`). A near match with an earlier item of the input
    is remembered only when that item was added (it has a key in the library then)."""
    from pubcli.schema.keys import taken_keys

    there = taken_keys([*library, *(o.record for o in outcomes if o.added)])
    distinct, same = [], []
    for o in outcomes:
        if o.remembered or o.match is None or o.match.record.key.casefold() not in there:
            continue
        if o.decision == DIFFERENT and o.added:
            distinct.append((o.record.key, o.match.record.key))
        elif o.decision == SAME:
            same.append((decision_key(o.record), o.match.record.key))
    return distinct, same


def _filled(rec: Record) -> int:
    return sum(1 for v in rec.fields.values() if v.strip())


def _fuller(new: Record, old: Record) -> bool:
    """Whether ``new`` says more than ``old`` (more filled fields, then more text)."""
    return (_filled(new), sum(map(len, new.fields.values()))) > \
        (_filled(old), sum(map(len, old.fields.values())))


def _swap(work: list[Outcome], item: Item, rec: Record, match: Match, taken: set[str],
          shortfalls: list[str] | None = None) -> Outcome:
    """``rec`` (from ``item``) takes the place of the earlier, thinner entry kept for
    the same work (``work``'s): the earlier one becomes the repeat; the kept one keeps
    the earlier status."""
    from pubcli.usecases import adding as entries

    earlier = work[0]
    old = earlier.record
    renamed = None
    if earlier.added:
        taken.discard(old.key.casefold())
        rec, renamed = entries.keep_or_renew_key(rec, taken)
    kept = Outcome(item, earlier.status, rec, added=earlier.added, match=earlier.match,
                   shortfalls=list(shortfalls or []), renamed_from=renamed,
                   decision=earlier.decision)
    work[0] = kept
    earlier.status, earlier.added = REPEAT, False
    earlier.shortfalls, earlier.renamed_from, earlier.decision = [], None, ""
    earlier.match = type(match)(rec, match.score, match.evidence, match.rule,
                                match.verdict if match.record is old else None)
    earlier.problem = f"line {item.line} says more: that one is kept"
    return kept


def _near_again(work: list[Outcome], near: list[Match], threshold: float,
                incoming: dict[int, list[Outcome]], copies: dict[int, tuple[Record, int]],
                taken: set[str]) -> None:
    """The near-duplicate kept for ``work`` was swapped for a fuller entry: its status
    follows that entry's own matches ``near`` (at the review threshold, strongest
    first; none of its own work): still a near-duplicate, of its own best match; the
    same work as that match when it reaches ``threshold`` (the work joins that one's);
    or new (added) when nothing is near."""
    from pubcli.usecases import adding as entries

    kept = work[0]
    if not near:
        kept.status, kept.match, kept.decision = NEW, None, ""
        if not kept.added:
            kept.record, kept.renamed_from = entries.keep_or_renew_key(kept.record, taken)
            kept.added = True
        return
    best = near[0]
    kept.match = best
    if best.score < threshold:
        return
    other = incoming.get(id(best.record))
    if kept.added:
        taken.discard(kept.record.key.casefold())
    kept.added, kept.decision, kept.shortfalls, kept.renamed_from = False, "", [], None
    kept.status = REPEAT if other is not None else DUPLICATE
    if other is not None:
        kept.problem = f"line {other[0].item.line} says as much or more: that one is kept"
    for k, w in list(incoming.items()):  # the work's entries are now the other's
        if w is work:
            if other is not None:
                incoming[k] = other
            else:
                del incoming[k]
                copies[k] = (best.record, kept.item.line)


def summary(outcomes: Sequence[Outcome], unread: int = 0) -> list[tuple[str, int]]:
    """(label, count) rows for the import summary; ``unread``: the blocks of a listing
    not understood (each a warning with its line)."""
    count = {s: 0 for s in (NEW, DUPLICATE, REPEAT, NEAR, HELD, INVALID)}
    for o in outcomes:
        count[o.status] += 1
    near_added = sum(1 for o in outcomes if o.status == NEAR and o.added)
    return [
        ("added", sum(1 for o in outcomes if o.added)),
        ("  of them with warnings (see 'pubcli check')",
         sum(1 for o in outcomes if o.added and o.shortfalls)),
        ("  of them under a new key", sum(1 for o in outcomes if o.added and o.renamed_from)),
        ("skipped: already in the library", count[DUPLICATE]),
        ("skipped: repeated in the input", count[REPEAT]),
        ("near-duplicates to review" + (" (added)" if near_added else " (not added)"),
         count[NEAR]),
        ("held for review: no date line (not added)", count[HELD]),
        ("skipped: invalid", count[INVALID]),
        ("skipped: not understood (see the warnings)", unread),
    ]
