"""pubcli.schema.values: the one reading of a year, a month, a date, a DOI, a URL and
an ISBN that check, add, import, the listings and the page all ask."""

from __future__ import annotations

import pytest

from pubcli.schema import values
from pubcli.schema.values import Date


# ------------------------------------------------------------------ years and months
@pytest.mark.parametrize("raw, year", [
    ("2024", 2024), ("{2024}", 2024), (" 2024 ", 2024),
    ("{\\noopsort{1973c}}1981", 1981),      # what BibTeX prints, not the sort key
    ("2024-05-01", 2024),                   # a date in the year field
    ("-0044", -44), ("-44", -44),          # BCE, as biblatex and a year field write it
    ("", None), (None, None), ("n.d.", None), ("forthcoming", None), ("12345", None),
])
def test_the_year_a_field_gives(raw, year):
    assert values.parse_year(raw) == year


@pytest.mark.parametrize("raw", ["2024", "{2024}", "-44", "{\\noopsort{a}}1999", "", "{}", " "])
def test_a_year_or_an_empty_field_is_no_problem(raw):
    assert values.year_problem(raw) is None


@pytest.mark.parametrize("raw", ["20x4", "24", "2024a", "2020/2021", "May 2024"])
def test_anything_else_in_year_is_named_in_the_problem(raw):
    assert values.year_problem(raw) == f"year {raw!r} is not a four-digit year"


@pytest.mark.parametrize("raw, month", [
    ("may", 5), ("May", 5), ("MAY", 5), ("{May}", 5), ("5", 5), ("05", 5), ("12", 12),
    ("September", 9), ("sep", 9), ("sept", 9),
    ("13", None), ("0", None), ("Smarch", None), ("", None), (None, None),
])
def test_the_month_a_field_gives(raw, month):
    assert values.parse_month(raw) == month


# ------------------------------------------------------------------ biblatex dates
@pytest.mark.parametrize("raw, date", [
    ("2024", Date(2024)),
    ("2024-05", Date(2024, 5)),
    ("{2024-05-31}", Date(2024, 5, 31)),
    ("2024-02-29", Date(2024, 2, 29)),                  # a leap day
    ("2024-05/2024-07", Date(2024, 5, end_year=2024, end_month=7)),
    ("1988/", Date(1988, open_end=True)),
    ("1988/..", Date(1988, open_end=True)),
    ("../1990", Date(1990, open_start=True)),
    ("-0044-03-15", Date(-44, 3, 15)),
])
def test_biblatex_dates_and_ranges(raw, date):
    assert values.parse_date(raw) == date


@pytest.mark.parametrize("raw", ["2023-02-29", "2024-04-31", "2024-13", "2024-00",
                                 "May 2024", "24", "2024/May", "", None])
def test_days_months_and_forms_that_do_not_exist_are_no_date(raw):
    assert values.parse_date(raw) is None


def test_a_bad_date_problem_names_the_field_and_the_value():
    assert values.date_problem("2024-13", "urldate") == (
        "urldate '2024-13' is not YYYY, YYYY-MM, YYYY-MM-DD or a range of those "
        "(biblatex's ISO 8601 dates)")
    assert values.date_problem("{}") is None


# ------------------------------------------------------------------ DOIs
@pytest.mark.parametrize("raw", [
    "10.1145/3394486.3406703",
    "https://doi.org/10.1145/3394486.3406703",
    "http://dx.doi.org/10.1145/3394486.3406703",
    "https://www.doi.org/10.1145/3394486.3406703",
    "http://doi.acm.org/10.1145/3394486.3406703",
    "doi:10.1145/3394486.3406703",
    "DOI: 10.1145/3394486.3406703",
    "doi: https://doi.org/10.1145/3394486.3406703",
    "https://doi.org/10.1145%2F3394486.3406703",
    "{10.1145/3394486.3406703}",
    "\\url{https://doi.org/10.1145/3394486.3406703}",
    "10.1145/3394486.3406703.",                     # the end of a sentence
])
def test_a_doi_written_any_usual_way_is_the_same_doi(raw):
    assert values.parse_doi(raw) == "10.1145/3394486.3406703"
    assert values.doi_url(raw) == "https://doi.org/10.1145/3394486.3406703"
    assert values.doi_problem(raw) is None


def test_a_doi_keeps_its_case_its_brackets_and_its_escaped_underscore():
    assert values.parse_doi("10.1016/S0140-6736(20)30183-5") == "10.1016/S0140-6736(20)30183-5"
    assert values.parse_doi("10.1002/(SICI)1097-4636(199606))") == \
        "10.1002/(SICI)1097-4636(199606)"                  # an unbalanced ")" is the sentence's
    assert values.parse_doi("10.1000/a\\_b") == "10.1000/a_b"
    assert values.doi_match_key("10.1000/ABC") == values.doi_match_key("10.1000/abc")


@pytest.mark.parametrize("raw", ["not a doi", "10.12/short-registrant", "https://example.org/x",
                                 "10.1000/../etc/passwd", "10.1000/.", "10.1000/a b", ""])
def test_what_is_not_a_doi_is_refused(raw):
    assert values.parse_doi(raw) is None
    assert values.doi_url(raw) is None


def test_the_doi_problem_quotes_the_value():
    assert values.doi_problem("doi.org/abc") == "DOI 'doi.org/abc' does not look like " \
                                                "10.NNNN/suffix"


def test_a_doi_is_found_inside_a_longer_text():
    assert values.find_doi("Available at https://example.org/view/10.1000/xyz123.") == \
        "10.1000/xyz123"
    assert values.find_doi("(see doi 10.1000/xyz)") == "10.1000/xyz"
    assert values.find_doi("https://doi.org/10.1000%2Fxyz") == "10.1000/xyz"
    assert values.find_doi("volume 10, pages 1--10") is None
    assert values.find_doi(None) is None


# ------------------------------------------------------------------ URLs
def test_a_url_is_http_https_or_ftp_without_spaces():
    assert values.parse_url("https://example.org/a?b=c") == "https://example.org/a?b=c"
    assert values.parse_url("ftp://ftp.example.org/x") == "ftp://ftp.example.org/x"
    assert values.parse_url("\\url{https://example.org}") == "https://example.org"
    for bad in ("www.example.com", "https://example.org/a b", "javascript:alert(1)",
                "mailto:a@b.org", "file:///etc/passwd"):
        assert values.parse_url(bad) is None, bad
        assert values.url_problem(bad) == (f"URL {bad!r} is not an http(s):// or ftp:// "
                                           "address without spaces")
    assert values.url_problem("") is None


def test_a_link_on_a_page_is_http_only_and_carries_nothing_that_breaks_out():
    assert values.web_link("https://example.org/page?a=1&b=(2)") == \
        "https://example.org/page?a=1&b=(2)"
    assert values.web_link("\\url{https://example.org/x}") == "https://example.org/x"
    assert values.web_link("https://example.org/Müller|x") == \
        "https://example.org/M%C3%BCller%7Cx"
    for bad in ("ftp://example.org/file", "javascript:alert(1)", "https://x.org/a\"onclick=1",
                "https://x.org/<script>", "https://x.org/a'b", "https://x.org/{a}", "", None):
        assert values.web_link(bad) is None, bad


# ------------------------------------------------------------------ ISBNs
@pytest.mark.parametrize("raw", ["0-306-40615-2", "0306406152", "978-0-306-40615-7",
                                 "9780306406157", "ISBN 978 0 306 40615 7",
                                 "0-306-40615-2 (paperback)"])
def test_isbn_10_and_13_of_one_book_are_one_isbn_13(raw):
    assert values.parse_isbn(raw) == "9780306406157"
    assert values.isbn_problem(raw) is None


def test_an_isbn_10_check_digit_may_be_x():
    assert values.parse_isbn("0-8044-2957-X") == "9780804429573"
    assert values.parse_isbn("0-8044-2957-x") == "9780804429573"


@pytest.mark.parametrize("raw", ["0-306-40615-3", "978-0-306-40615-8", "12345", "n/a"])
def test_a_wrong_check_digit_is_no_isbn(raw):
    assert values.parse_isbn(raw) is None
    assert values.isbn_problem(raw) == (f"ISBN {raw!r} is not a valid ISBN-10 or ISBN-13 "
                                        "(check digit)")


# ------------------------------------------------------------------ every rule at once
def test_field_problems_names_each_bad_value_in_a_fixed_order():
    fields = {"url": "www.example.com", "doi": "doi.org/abc", "urldate": "2024-13-01",
              "date": "2020", "year": "20x4", "title": "Anything {goes} here"}
    assert [(name, kind) for name, kind, _ in values.field_problems(fields)] == [
        ("year", "year"), ("urldate", "date"), ("doi", "doi"), ("url", "url")]
    assert values.field_problems({"year": "2020", "date": "2020-05", "doi": "10.1000/x",
                                  "url": "https://example.org", "isbn": "whatever"}) == []
    assert values.field_problems({"year": "", "doi": "{}", "url": " "}) == []
