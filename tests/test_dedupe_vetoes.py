"""Vetoes that generalise: what makes two records two items whatever their weights
say (another issue of a volume, other pages of one issue, another version or part)."""

from __future__ import annotations

import json

from pubcli import dedupe, store
from pubcli.dedupe.evidence import compare
from pubcli.dedupe.features import Features
from pubcli.dedupe.vetoes import VetoKind
from pubcli.schema.model import Record

from .conftest import record, write


def rec(key: str, type_: str = "article", **fields: str) -> Record:
    return record(key, type_, **fields)


def kinds(a: Record, b: Record) -> list[VetoKind]:
    return [v.kind for v in compare(Features(a, 0), Features(b, 1)).vetoes]


def _newsletter(key: str, title: str, number: str, pages: str, author: str = "Reyes, Ana",
                **more: str) -> Record:
    return rec(key, title=title, author=author, journal="Typesetting Quarterly", year="1984",
               volume="5", number=number, pages=pages, **more)


def test_one_volume_two_issues_are_two_items_even_on_the_same_pages():
    # pagination restarting each issue: pages 5--6 of issue 1 and of issue 2
    a = _newsletter("a", "Report of the spring committee meeting", "1", "5--6")
    b = _newsletter("b", "Proposal for a members' archive", "2", "5--6")
    assert kinds(a, b) == [VetoKind.ISSUE]
    # a notice repeated in the next issue, or a double issue ("3/4") against another
    c = _newsletter("c", "Annual meeting announcement", "2", "101--101")
    d = _newsletter("d", "Annual meeting announcement", "3/4", "240--240")
    assert kinds(c, d) == [VetoKind.ISSUE]
    assert dedupe.find_groups([a, b, c, d]) == []


def test_a_heading_on_the_same_page_of_every_issue_is_not_one_item():
    a = _newsletter("a", "Addresses", "1", "3--4", author="Anonymous")
    b = _newsletter("b", "Addresses", "2", "3--4", author="Anonymous")
    assert kinds(a, b) == [VetoKind.ISSUE]


def test_a_cover_page_is_one_page_however_it_is_written():
    a = _newsletter("a", "Membership offer", "1", "Cover 3", author="Anonymous")
    b = _newsletter("b", "Membership offer", "1", "c3--c3", author="Anonymous")
    assert Features(a, 0).biblio[2] == Features(b, 1).biblio[2] == ("c3", "c3")


def test_an_issue_number_mis_keyed_with_title_and_pages_agreeing_is_no_veto():
    a = _newsletter("a", "Memory rehabilitation after stroke", "2", "139--140")
    b = _newsletter("b", "Memory rehabilitation after stroke", "3", "139--140")
    assert kinds(a, b) == []
    # nor a double issue holding the other's number, nor a shared DOI
    c = _newsletter("c", "Font caching on small machines", "3", "12--20")
    d = _newsletter("d", "Font caching on small machines", "3/4", "12--20")
    assert kinds(c, d) == []
    e = _newsletter("e", "Font caching on small machines", "1", "12--20", doi="10.1000/x1")
    f = _newsletter("f", "Font caching on small machines", "2", "30--38", doi="10.1000/x1")
    assert kinds(e, f) == []


def test_pages_of_one_issue_that_do_not_meet_are_two_items():
    a = _newsletter("a", "Annual meeting, call for papers", "3", "448--448")
    b = _newsletter("b", "Annual meeting, call for papers", "3", "570--570")
    assert kinds(a, b) == [VetoKind.ISSUE]
    c = _newsletter("c", "Annual meeting, call for papers", "3", "448--450")
    d = _newsletter("d", "Annual meeting, call for papers", "3", "449--452")
    assert kinds(c, d) == []


def test_report_numbers_and_other_journals_are_not_issues():
    a = rec("a", "techreport", title="A font cache", author="Reyes, Ana", year="1984",
            number="STAN-CS-84-1", institution="Stanford")
    b = rec("b", "techreport", title="A font cache", author="Reyes, Ana", year="1984",
            number="STAN-CS-84-2", institution="Stanford")
    assert VetoKind.ISSUE not in kinds(a, b)
    c = rec("c", title="A font cache", author="Reyes, Ana", year="1984", journal="Software Letters",
            volume="5", number="1", pages="1--9")
    d = rec("d", title="A font cache", author="Reyes, Ana", year="1984",
            journal="Journal of Graphics Hardware", volume="5", number="2", pages="1--9")
    assert VetoKind.ISSUE not in kinds(c, d)


def _release(key: str, edition: str, year: str = "1987", **more: str) -> Record:
    return rec(key, "misc", title="Glyphsmith outline font editor", author="Ostrova, Mila",
               year=year, publisher="Kernwerk", edition=edition, **more)


def test_two_releases_of_a_program_are_two_editions():
    assert kinds(_release("a", "Version 2.7."), _release("b", "Version 2.7.1.", "1988")) \
        == [VetoKind.EDITION]
    assert kinds(_release("a", "Version 3"), _release("b", "V[ersion] 3.1")) == [VetoKind.EDITION]
    # the same release written two ways is one edition
    assert kinds(_release("a", "Release 3.0"), _release("b", "Release 3")) == []


def test_a_later_edition_with_its_own_isbn_is_another_edition():
    a = rec("a", "book", title="The outline font handbook", author="Ostrova, Mila", year="1992",
            publisher="Kernwerk", isbn="0-201-56893-2")
    b = rec("b", "book", title="The outline font handbook", author="Ostrova, Mila", year="1992",
            publisher="Kernwerk", isbn="0-201-57044-2", edition="Revised")
    assert kinds(a, b) == [VetoKind.EDITION]
    c = rec("c", "book", title="The outline font handbook", author="Ostrova, Mila", year="1992",
            publisher="Kernwerk", isbn="0-201-56893-2", edition="Revised")
    assert kinds(a, c) == []  # the same ISBN: one edition, the field written on one side only


def test_lettered_parts_are_different_parts():
    a = rec("a", "book", title="Typesetting made easy: Part A: Workbook", author="Ostrova, Mila",
            year="1993", isbn="3-7983-1546-4")
    b = rec("b", "book", title="Typesetting made easy: Part B: Manual", author="Ostrova, Mila",
            year="1993", isbn="3-7983-1546-4")
    assert VetoKind.PART in kinds(a, b)
    c = rec("c", title="Influenza Typ A im Winter: Teil A", author="Ostrova, Mila", year="1993",
            journal="Med Wochenschr")
    d = rec("d", title="Influenza Typ A im Winter: Teil B", author="Ostrova, Mila", year="1993",
            journal="Med Wochenschr")
    assert VetoKind.PART in kinds(c, d)


# ---------------------------------------------------------------- venues and people
def test_an_ordinal_written_out_or_split_names_the_same_venue():
    assert dedupe.venue_relation("twenty first annual acm symposium on theory of computing",
                                 "proc 21 st acm symposium on theory of computing") == "same"
    assert dedupe.venue_relation("twenty first annual acm symposium on theory of computing",
                                 "third acm symposium on discrete algorithms") == "different"


def test_full_names_between_commas_before_an_and_are_people():
    got = dedupe.person_strings("Mira Olsen, Tomas Berg and Ines Vidal")
    assert got == ["Mira Olsen", "Tomas Berg", "Ines Vidal"]
    assert dedupe.person_strings("Olsen MK, Berg T and Vidal I") == ["Olsen MK", "Berg T", "Vidal I"]
    # "Last, First" people are still one person each
    assert dedupe.person_strings("Garcia Lopez, Maria Jose and Berg, Tomas") == \
        ["Garcia Lopez, Maria Jose", "Berg, Tomas"]


def test_an_article_of_a_journal_and_a_book_are_two_publications():
    review = rec("r", title="Blackletter: type and national identity, a catalog of the exhibition",
                 author="Ostrova, Mila and Berg, Tomas", year="1999", journal="Printing History",
                 volume="19")
    book = rec("b", "book", title="Blackletter: type and national identity",
               author="Ostrova, Mila and Berg, Tomas", year="1998", publisher="Kernwerk")
    assert kinds(review, book) == [VetoKind.FORM] and kinds(book, review) == [VetoKind.FORM]
    paper = rec("p", "inproceedings", title="Blackletter: type and national identity",
                author="Ostrova, Mila and Berg, Tomas", year="1998", booktitle="Proc. Type")
    assert VetoKind.FORM not in kinds(paper, book)


def test_anonymous_is_no_person_two_lists_could_share():
    for nobody in ("Anonymous", "[Anon.]", "N. N.", "Unknown", "No authors listed"):
        assert dedupe.parse_authors(nobody) == []
    assert [p.last for p in dedupe.parse_authors("Anonymous and Berg, Tomas")] == [("berg",)]


# ---------------------------------------------------------------- a newsletter's file
def _newsletter_file() -> str:
    """A newsletter's volumes: notices repeated issue after issue, a heading on the
    same pages of every issue, one writer's two reports on the same pages of two
    issues, and one item entered twice (its cover page written two ways)."""
    out = []
    n = 0

    def entry(title: str, author: str, volume: int, number: str, pages: str) -> None:
        nonlocal n
        n += 1
        out.append(f"@article{{item{n},\n  author = {{{author}}},\n  title = {{{title}}},\n"
                   f"  journal = {{Typesetting Quarterly}},\n  year = {{{1980 + volume}}},\n"
                   f"  volume = {{{volume}}},\n  number = {{{number}}},\n"
                   f"  pages = {{{pages}}},\n}}\n")

    for volume in (3, 4):
        for issue in ("1", "2", "3/4"):
            entry("Addresses", "Anonymous", volume, issue, "3--4")
            entry(f"Annual meeting {1981 + volume}, call for papers", "Anonymous", volume, issue,
                  f"{40 + 7 * len(out)}--{40 + 7 * len(out)}")
        entry("Report on the steering committee meeting", "Reyes, Ana", volume, "1", "5--6")
        entry("A proposal for institutional membership", "Reyes, Ana", volume, "2", "5--6")
    entry("Font foundry membership offer", "Anonymous", 4, "2", "Cover 3")
    entry("Font foundry membership offer", "Anonymous", 4, "2", "c3--c3")
    return "\n".join(out)


def test_a_newsletter_groups_only_an_item_entered_twice(cli, tmp_path):
    lib = write(tmp_path / "news.bib", _newsletter_file())
    groups = json.loads(cli("dedupe", "--format", "json", "-l", lib).stdout)
    assert [sorted(g["keys"]) for g in groups] == [["item17", "item18"]]


def test_importing_a_newsletter_adds_every_distinct_item(cli, tmp_path):
    incoming = write(tmp_path / "news.bib", _newsletter_file())
    lib = write(tmp_path / "library.bib", "")
    r = cli("import", incoming, "-l", lib)
    assert r.exit_code == 0
    keys = [rec.key for rec in store.load(lib).records]
    assert len(keys) == 17 and "item17" in keys and "item18" not in keys


def test_two_volumes_of_one_journal_hold_two_items():
    a = rec("a", title="Report on the steering committee meeting", author="Reyes, Ana",
            journal="Typesetting Quarterly", year="1983", volume="3", number="1", pages="5--6")
    b = rec("b", title="Report on the steering committee meeting", author="Reyes, Ana",
            journal="Typesetting Quarterly", year="1984", volume="4", number="1", pages="5--6")
    assert kinds(a, b) == [VetoKind.JOURNAL_VOLUME]
    # a volume mis-keyed, all else agreeing; or a DOI in common
    c = rec("c", title="Report on the steering committee meeting", author="Reyes, Ana",
            journal="Typesetting Quarterly", year="1984", volume="40", number="1", pages="5--6")
    assert kinds(b, c) == []
    d = rec("d", title="Report on the steering committee meeting", author="Reyes, Ana",
            journal="Typesetting Quarterly", year="1983", volume="13", pages="5--6",
            doi="10.1000/tq.3.5")
    e = rec("e", title="Report on the steering committee meeting", author="Reyes, Ana",
            journal="Typesetting Quarterly", year="1983", volume="3", pages="5--6",
            doi="10.1000/tq.3.5")
    assert kinds(d, e) == []
