"""Why two records do or don't match, as data a renderer can show.

A :class:`Verdict` carries the typed pieces (each field's
:class:`~.weights.Contribution`, the :class:`~.evidence.Veto` values); its
``evidence`` and ``rule`` are views of them, e.g. ``title 97 (+9.1)``,
``authors 3 of 4 (+4.2)``, ``number 1443/1444 (-0.1: differs in 96% of likely
pairs in this library)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable

from .levels import Field
from .vetoes import Veto
from .weights import CONTEXT_NOTE, Contribution, Model, Score

_RULE_NAMES = {Field.DOI: "same DOI", Field.ARXIV: "same arXiv id", Field.ISBN: "same ISBN",
               Field.PMID: "same PMID",
               Field.AUTHORS: "authors", Field.TITLE: "title", Field.YEAR: "year",
               Field.VENUE: "venue", Field.PAGES: "pages",
               Field.NUMBER: "number", Field.TYPE: "type"}
#: A contribution of at least this many bits is named in a link's rule.
RULE_BITS = 1.0


@dataclass
class Verdict:
    """The judgement on one pair: whether it is a duplicate, how likely, and why."""

    duplicate: bool
    score: float                      # match probability, percent
    weight: float                     # bits, the prior included
    #: Each field's part, or how to work them out when first asked (most links of a
    #: big library are never explained).
    parts: list[Contribution] | Callable[[], list[Contribution]] = \
        field(default_factory=list, repr=False)
    vetoes: list[Veto] = field(default_factory=list)
    threshold: float = 0.0
    #: False when blocking never proposed the pair: ``dedupe`` never compares it, so
    #: it is no duplicate whatever its fields say.
    compared: bool = True
    #: Bits the fields naming the work (title, authors, identifiers, a full page range)
    #: weigh, when only where the two are printed speaks for a match (then no duplicate:
    #: items printed in one place share all of that).
    place_only: float | None = None

    @property
    def contributions(self) -> list[Contribution]:
        if callable(self.parts):
            self.parts = self.parts()
        return self.parts

    @property
    def evidence(self) -> list[str]:
        """Each compared field with its weight, strongest first, and the notes that
        concern several of them (said once)."""
        return [str(c) for c in sorted(self.contributions, key=lambda c: -abs(c.weight))] \
            + self.notes

    @property
    def notes(self) -> list[str]:
        """What concerns several contributions ("* authors, year and venue count
        together at most 9 bits"), once."""
        return [CONTEXT_NOTE] if any(c.capped for c in self.contributions) else []

    @property
    def rule(self) -> str:
        """The fields that carried the match ("same DOI + title", "title + authors +
        year"); "" when it is no match."""
        if not self.duplicate:
            return ""
        strong = sorted((c for c in self.contributions if c.weight >= RULE_BITS),
                        key=lambda c: -c.weight)
        return " + ".join(_RULE_NAMES[c.field] for c in strong) or "weak evidence"

    @property
    def summary(self) -> str:
        """One line: match or not, the probability, and the deciding reason."""
        if self.vetoes:
            return f"different works: {self.vetoes[0]}"
        if not self.compared:
            return (f"never compared: no shared block (the fields alone weigh "
                    f"{self.weight:+.1f} bits, match probability {self.score:.1f}%)")
        if self.place_only is not None:
            return (f"not duplicates: only where they are printed agrees (title, authors "
                    f"and identifiers weigh {self.place_only:+.1f} bits; all fields "
                    f"{self.weight:+.1f} bits, match probability {self.score:.1f}%)")
        verb = "duplicates" if self.duplicate else "not duplicates"
        return (f"{verb}: match probability {self.score:.1f}% "
                f"({self.weight:+.1f} bits; the threshold is {self.threshold:g}%)")


def verdict(score: Score, vetoes: tuple[Veto, ...], threshold: float) -> Verdict:
    ok = not vetoes and score.percent >= threshold
    return Verdict(ok, round(score.percent, 2), score.weight, score.contributions,
                   list(vetoes), threshold)


def quick_verdict(weight: float, explain: Callable[[], list[Contribution]],
                  vetoes: tuple[Veto, ...], threshold: float) -> Verdict:
    """A verdict from the total weight alone, the contributions worked out when asked."""
    p = 1.0 / (1.0 + 2.0 ** (-weight)) if weight > -60 else 0.0
    ok = not vetoes and 100.0 * p >= threshold
    return Verdict(ok, round(100.0 * p, 2), weight, explain, list(vetoes), threshold)


def weight_lines(model: Model) -> list[tuple[str, str, str, str, str, str]]:
    """Rows (field, level, m, u, weight, pairs) of the estimated model, for ``--weights``."""
    return [(f.value, level, f"{m:.3f}", f"{u:.3f}", f"{w:+.1f}", f"{n:.0f}")
            for f, level, m, u, w, n in model.table()]


def model_summary(model: Model) -> str:
    how = (f"estimated on {model.pairs} candidate pairs in {model.iterations} iterations"
           if model.pairs else "the prior (no candidate pairs to learn from)")
    return f"weights {how}; share of duplicates among candidates {model.prior:.1%}"
