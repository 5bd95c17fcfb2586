"""Vetoes: what makes two records different works by definition (another part,
edition or volume, a notice about a work rather than the work)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .features import Features
from .identifiers import BOOKLIKE
from .normalise import _marker_difference


class VetoKind(str, Enum):
    """What makes two records different works by definition."""

    PART = "different parts"            # "Part 1" / "Part 2"
    NOTICE = "notice vs work"           # an erratum, reply or comment vs its article
    EDITION = "different editions"
    BOOK_VOLUME = "different volumes"   # of a book
    MARKED = "marked distinct"          # a user said so (pubcli.usecases.distinct)


@dataclass(frozen=True)
class Veto:
    kind: VetoKind
    text: str

    def __str__(self) -> str:
        return self.text


def vetoes_of(a: Features, b: Features, ed_a: str, ed_b: str, vol_a: str, vol_b: str
            ) -> tuple[Veto, ...]:
    out: list[Veto] = []
    if a.title and b.title and a.title != b.title:
        na, nb = a.nums, b.nums
        if na != nb:
            pa, pb = a.part_nums, b.part_nums
            only_a, only_b = set(na) - set(nb), set(nb) - set(na)
            if (only_a and only_b) or (pa != pb and (set(pa) ^ set(pb)) & (only_a | only_b)):
                out.append(Veto(VetoKind.PART, "different numbers in the titles ("
                                + (" ".join(na) or "none") + " / " + (" ".join(nb) or "none")
                                + ")"))
        marker = _marker_difference(a.tokens, b.tokens)
        if marker:
            out.append(Veto(VetoKind.NOTICE, f"'{marker}' in one title only"))
    if ed_a and ed_b and ed_a != ed_b:
        out.append(Veto(VetoKind.EDITION, f"different editions ({a.field('edition').strip()} / "
                                          f"{b.field('edition').strip()})"))
    elif bool(ed_a) != bool(ed_b) and (ed_a or ed_b).isdigit() and int(ed_a or ed_b) >= 2 \
            and a.year and b.year and a.year != b.year:
        out.append(Veto(VetoKind.EDITION, f"different editions ({ed_a or 'none'} / "
                                          f"{ed_b or 'none'}) and years"))
    if vol_a and vol_b and vol_a != vol_b and a.record.type in BOOKLIKE \
            and b.record.type in BOOKLIKE:
        out.append(Veto(VetoKind.BOOK_VOLUME, f"different volumes ({a.field('volume').strip()}"
                                              f" / {b.field('volume').strip()})"))
    return tuple(out)
