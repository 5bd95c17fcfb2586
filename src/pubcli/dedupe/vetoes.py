"""Vetoes: what makes two records different works by definition (another part,
edition or volume, a notice about a work rather than the work, another issue of a
journal's volume, other pages of one issue or another volume of the journal, a
journal's article against a book)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .features import Features
from .identifiers import BOOKLIKE, issue_numbers
from .normalise import _marker_difference
from .venues import venue_relation


class VetoKind(str, Enum):
    """What makes two records different works by definition."""

    PART = "different parts"            # "Part 1" / "Part 2"
    NOTICE = "notice vs work"           # an erratum, reply or comment vs its article
    EDITION = "different editions"
    BOOK_VOLUME = "different volumes"   # of a book
    ISSUE = "different issues"          # of one journal volume, or pages of one issue
    JOURNAL_VOLUME = "different journal volumes"  # of one journal
    FORM = "article vs book"            # a journal's article and a book (its review...)
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
        letters_a, letters_b = a.part_letters, b.part_letters
        if letters_a and letters_b and letters_a != letters_b:
            out.append(Veto(VetoKind.PART, "different parts in the titles ("
                            + " ".join(letters_a) + " / " + " ".join(letters_b) + ")"))
        if a.end_markers or b.end_markers:
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
    elif bool(ed_a) != bool(ed_b) and (ed_a or ed_b) != "1" and a.isbn and b.isbn \
            and a.isbn != b.isbn:
        # a later ("Revised", "2") edition on one side, and each its own ISBN
        named = (a if ed_a else b).field("edition").strip()
        out.append(Veto(VetoKind.EDITION, f"an edition ({named}) on one side, and "
                                          "different ISBNs"))
    if vol_a and vol_b and vol_a != vol_b and a.record.type in BOOKLIKE \
            and b.record.type in BOOKLIKE:
        out.append(Veto(VetoKind.BOOK_VOLUME, f"different volumes ({a.field('volume').strip()}"
                                              f" / {b.field('volume').strip()})"))
    form = _article_and_book(a, b) or _article_and_book(b, a)
    if form:
        out.append(Veto(VetoKind.FORM, form))
    if vol_a and vol_a == vol_b:
        issue = _issue_veto(a, b)
        if issue is not None:
            out.append(issue)
    elif vol_a and vol_b and a.title == b.title and _other_volume(a, b):
        out.append(Veto(VetoKind.JOURNAL_VOLUME, f"volumes {a.field('volume').strip()} / "
                                                 f"{b.field('volume').strip()} of one journal"))
    return tuple(out)


def _other_volume(a: Features, b: Features) -> bool:
    """One title in two volumes of one journal (the same name: "same", not only alike)
    is two items (a column, a notice repeated year after year), unless everything else
    agrees (a specific title, its first page and the year: a volume mis-keyed by one
    database) or a DOI or PubMed id is shared."""
    if not (_in_journal(a) and _in_journal(b)) or venue_relation(a.venue, b.venue) != "same":
        return False
    if (a.doi and a.doi == b.doi) or (a.pmid and a.pmid == b.pmid):
        return False
    pages_a, pages_b = a.biblio[2], b.biblio[2]
    return not (pages_a and pages_b and pages_a[0] == pages_b[0] and a.title == b.title
                and len(a.content_tokens) >= _SPECIFIC and a.year == b.year)


#: Content words a title needs to be one article's rather than a heading an issue
#: carries on the same page each time ("Addresses", "Letter from the President").
_SPECIFIC = 4


def _in_journal(f: Features) -> bool:
    fields = f.record.fields
    return bool(fields.get("journal") or fields.get("journaltitle"))


def _article_and_book(a: Features, b: Features) -> str:
    """An article of a journal and a book, manual or proceedings (no journal of its
    own) are two publications: the book's review, a chapter, a special issue's
    editorial, a package's article beside its manual."""
    if a.record.type == "article" and _in_journal(a) and b.record.type in BOOKLIKE \
            and not _in_journal(b):
        return f"an article in {a.field('journal').strip() or 'a journal'} / a {b.record.type}"
    return ""


def _issue_veto(a: Features, b: Features) -> Veto | None:
    """Two items of one journal volume (same venue, same volume): an article is printed
    in one issue, on its own pages. Different issues ("1" / "2", "2" / "3/4") are two
    items, even with the same pages (pagination restarting each issue) or the same
    title (a notice repeated, a column's heading), unless the title is specific (not a
    heading: :data:`_SPECIFIC` content words or more) and it and its first page both
    agree (an issue number mis-keyed by one database); so are two page ranges of one issue
    that do not meet. A DOI or PubMed id in common says one item whatever the numbers."""
    if not (_in_journal(a) and _in_journal(b)) or venue_relation(a.venue, b.venue) == "different":
        return None
    if (a.doi and a.doi == b.doi) or (a.pmid and a.pmid == b.pmid):
        return None
    _, iss_a, pages_a, _ = a.biblio
    _, iss_b, pages_b, _ = b.biblio
    nums_a, nums_b = issue_numbers(iss_a), issue_numbers(iss_b)
    if nums_a and nums_b and not nums_a & nums_b:
        if pages_a and pages_b and pages_a[0] == pages_b[0] and a.title == b.title \
                and len(a.content_tokens) >= _SPECIFIC:
            return None
        return Veto(VetoKind.ISSUE, f"different issues ({a.field('number').strip()} / "
                                    f"{b.field('number').strip()}) of volume "
                                    f"{a.field('volume').strip()}")
    if iss_a and iss_a == iss_b and pages_a and pages_b and _apart(pages_a, pages_b):
        return Veto(VetoKind.ISSUE, f"pages {a.field('pages').strip()} / "
                                    f"{b.field('pages').strip()} of one issue")
    return None


def _apart(x: tuple[str, str], y: tuple[str, str]) -> bool:
    """Two page ranges of plain numbers that do not meet."""
    if not all(p.isdigit() for p in x + y):
        return False
    (x0, x1), (y0, y1) = (int(x[0]), int(x[1])), (int(y[0]), int(y[1]))
    return x0 <= x1 and y0 <= y1 and (x1 < y0 or y1 < x0)
