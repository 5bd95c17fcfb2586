"""What the matcher hands back: a candidate's matches, and groups of duplicates joined by links."""

from __future__ import annotations

from dataclasses import dataclass, field

from pubcli.schema.model import Record
from .explain import Verdict


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
