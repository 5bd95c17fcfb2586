"""pubcli.text.view: a record as a reader sees it in a listing or on the page
(Unicode text, the date, the details line, the links, the shortened author list)."""

from __future__ import annotations

from pubcli.text.view import owner_flags, short_authors, view

from .conftest import record


def test_title_authors_and_venue_read_as_unicode_text():
    v = view(record("k", "article", title="On {GPU}s and M{\\\"u}ller's \\emph{Law}",
                    author="M{\\\"u}ller, J{\\\"o}rg and Ada Lovelace",
                    journal="J. of {B}ad {T}ypes --- Series~A", year="2019"))
    assert v.title == "On GPUs and Müller's Law"
    assert list(v.authors) == ["Jörg Müller", "Ada Lovelace"]
    assert v.venue == "J. of Bad Types — Series A"
    assert v.year == 2019


def test_editors_stand_in_for_missing_authors():
    v = view(record("k", "book", title="Selected Papers", editor="Knuth, Donald E."))
    assert list(v.authors) == ["Donald E. Knuth"]


def test_the_date_is_month_and_year_or_the_year_or_nothing():
    assert view(record(year="2024", month="may")).date == "May 2024"
    assert view(record(date="2021-03-04")).date == "March 2021"
    assert view(record(year="2024")).date == "2024"
    assert view(record(title="Undated")).date == ""


def test_details_name_the_publisher_and_the_isbn_once():
    report = view(record("r", "techreport", title="T", institution="Microsoft",
                         number="MSR-TR-2024-12", publisher="Microsoft Research"))
    assert report.venue == "MSR-TR-2024-12"  # the number is the venue: not said again
    assert report.details == [("Published by", "Microsoft Research")]
    paper = view(record("p", "inproceedings", title="P", booktitle="SC'16", publisher="IEEE",
                        isbn="978-1-4673-8815-3"))
    assert paper.details == [("Published by", "IEEE"), ("ISBN", "978-1-4673-8815-3")]
    # a publisher that is already the venue (a book's) is not said twice
    book = view(record("b", "book", title="B", publisher="Addison-Wesley",
                       isbn="978-0-201-13448-3"))
    assert book.venue == "Addison-Wesley" and book.details == [("ISBN", "978-0-201-13448-3")]


def test_links_are_doi_url_and_arxiv_and_only_safe_ones():
    v = view(record(title="T", doi="doi:10.1145/3190508.3190517",
                    url="https://example.org/paper", eprint="2101.00001v2",
                    archiveprefix="arXiv"))
    assert v.links == [("DOI", "https://doi.org/10.1145/3190508.3190517"),
                       ("URL", "https://example.org/paper"),
                       ("arXiv", "https://arxiv.org/abs/2101.00001v2")]
    hostile = view(record(title="T", doi='10.1000/"><svg onload=alert(1)>',
                          url="javascript:alert(1)"))
    assert hostile.links == []
    assert view(record(title="T", url="ftp://example.org/file")).links == []


def test_the_owner_is_found_however_the_name_is_written():
    names = ["Ruwase, Olatunji", "O. Ruwase", "Rajbhandari, Samyam", "Ruwase, Kemi"]
    assert owner_flags(names, "Olatunji Ruwase") == [True, True, False, False]
    assert owner_flags(names, None) == [False] * 4


def text(segments):
    return "".join(s for s, _ in segments)


def test_a_short_author_list_is_shown_whole():
    assert text(short_authors(["A", "B", "C", "D"], set())) == "A, B, C, D"
    assert short_authors(["A", "Owner"], {1}) == [("A", False), (", ", False), ("Owner", True)]
    assert short_authors([], set()) == []


def test_a_long_author_list_is_cut_but_keeps_the_owner_and_the_count():
    names = [f"P{i}" for i in range(84)]
    assert text(short_authors(names, set())) == "P0, P1, P2, … (84 authors)"
    segs = short_authors(names, {40})
    assert text(segs) == "P0, P1, P2, …, P40, … (84 authors)"
    assert [s for s, owner in segs if owner] == ["P40"]
    # the owner just after the cut follows without a gap mark
    assert text(short_authors(names, {3})) == "P0, P1, P2, P3, … (84 authors)"
    # the owner among the first ones is marked there
    assert [s for s, owner in short_authors(names, {1}) if owner] == ["P1"]
