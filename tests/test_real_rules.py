"""The rules for reading real files, as BibTeX and biber read them (issue 9 item 4),
each found as a false alarm by running ``check``, ``import`` and ``add --from`` over
TeX Live's bibliographies: a rule here is general (one home in ``values``/``schema``),
and a real problem stays a finding."""

from __future__ import annotations

import pytest

from pubcli.usecases import checks, adding as entries, importing as importers, triage
from pubcli.schema import types as schema, values
from pubcli import store
from pubcli.errors import ValidationError

from .conftest import write


def codes(text: str) -> list[tuple[str, str | None, str | None]]:
    return [(f.code, f.key, f.field) for f in checks.check(store.loads(text))]


# ------------------------------------------------------------------ biblatex's required fields
# Shaped like biblatex-ext-examples.bib and biblatex-archaeologie's examples: biblatex's
# data model asks a @book for author, title and date; BibTeX's styles also want a publisher.
BIBLATEX_BOOK = """\
@book{appleby,
  author = {Humphrey Appleby},
  title = {On the Civil Service},
  date = {1980},
  location = {London},
}
"""
BIBTEX_BOOK = """\
@book{knuth,
  author = {Donald E. Knuth},
  title = {The {\\TeX}book},
  year = {1984},
}
"""


def test_a_book_written_for_biblatex_needs_no_publisher_a_bibtex_one_does():
    assert codes(BIBLATEX_BOOK) == []
    assert codes(BIBTEX_BOOK) == [("missing-field", "knuth", "publisher")]


def test_the_biblatex_relaxation_drops_only_what_biblatex_does_not_require():
    # still missing by biblatex's rules too: the date (biblatex's data model wants it)
    text = "@book{nodate,\n  author = {A. Author},\n  title = {T},\n  location = {Paris},\n}\n"
    assert codes(text) == [("missing-field", "nodate", "year")]
    # an unpublished work needs a note for BibTeX, not for biblatex
    unpub = "@unpublished{u, author = {A B}, title = {T}, date = {2005}}\n"
    assert codes(unpub) == []
    assert codes("@unpublished{u, author = {A B}, title = {T}, year = {2005}}\n") == [
        ("missing-field", "u", "note")]


def test_a_biblatex_file_holds_its_plain_looking_entries_to_biblatex_rules():
    # biblatex-shortfields.bib: most entries have a date; an edited volume without
    # any biblatex-only field is read by biber all the same
    plain = "@book{ccsg16,\n  editor = {E. Voordeckers},\n  title = {Refutationes},\n  year = {1981},\n}\n"
    biblatex_file = "".join(BIBLATEX_BOOK.replace("appleby", f"b{i}") for i in range(3)) + plain
    assert codes(biblatex_file) == []
    # Beebe's bibliographies: a stray date among many BibTeX entries changes nothing
    bibtex_file = "".join(BIBTEX_BOOK.replace("knuth", f"k{i}") for i in range(9)) + BIBLATEX_BOOK
    assert [c for c, _, f in codes(bibtex_file)] == ["missing-field"] * 9
    assert schema.biblatex_file(store.loads(biblatex_file).records)
    assert not schema.biblatex_file(store.loads(bibtex_file).records)


def test_a_report_may_name_its_institution_school_as_biber_maps_it():
    text = "@report{r, author = {A B}, title = {T}, school = {MIT}, date = {1999}}\n"
    assert codes(text) == []
    assert codes("@report{r, author = {A B}, title = {T}, date = {1999}}\n") == [
        ("missing-field", "r", "institution")]


def test_import_and_add_from_accept_a_biblatex_book_without_publisher(tmp_path, cli):
    def plan(text: str, strict: bool = False):
        return triage.plan(importers.read_source("in.bib", text)[0], [], strict=strict)

    assert [(o.record.key, o.status, o.shortfalls) for o in plan(BIBLATEX_BOOK)] == \
        [("appleby", "new", [])]
    (knuth,) = plan(BIBTEX_BOOK, strict=True)
    assert knuth.status == "invalid" and "publisher" in knuth.problem
    (knuth,) = plan(BIBTEX_BOOK)  # BibTeX only warns: imported, with the warning
    assert knuth.status == "new" and "publisher" in knuth.shortfalls[0]
    lib = write(tmp_path / "lib.bib", "")
    r = cli("add", "--from", write(tmp_path / "one.bib", BIBLATEX_BOOK), "-n", "-l", lib)
    assert r.exit_code == 0, r.stderr
    assert "@book{appleby" in r.stdout


# ------------------------------------------------------------------ empty fields
# tugboat.bib has 210 entries with ``URL = ""``; texbook3.bib has ``DOI = ""``.
EMPTY = """\
@article{e,
  author = {A B},
  title = {T},
  journal = {J},
  year = {1990},
  url = "",
  doi = {},
  urldate = {},
}
"""


def test_an_empty_field_is_absent_not_malformed():
    assert codes(EMPTY) == []
    entries.validate(store.loads(EMPTY).records[0])  # import and add accept it too
    # an empty required field is still missing
    assert codes(EMPTY.replace("{1990}", '""')) == [("missing-field", "e", "year")]
    assert values.is_blank(" { } ") and not values.is_blank("x")


# ------------------------------------------------------------------ dates and years
@pytest.mark.parametrize("value", ["2023-02-29", "2024-04-31", "1900-02-29", "1988-06-31"])
def test_a_day_the_month_lacks_is_a_bad_date(value):
    assert values.parse_date(value) is None
    assert codes(f"@misc{{m, title = {{T}}, date = {{{value}}}}}\n") == [
        ("bad-date", "m", "date")]


@pytest.mark.parametrize("value", ["2024-02-29", "2000-02-29", "0000-02-29", "-0044-03-15",
                                   "1988-05-31/1988-06-30"])
def test_real_calendar_days_are_dates(value):
    assert values.parse_date(value) is not None


def test_every_biblatex_date_field_is_read_as_a_date():
    text = ("@online{w, title = {T}, url = {https://example.org}, urldate = {15/05/84},\n"
            "  origdate = {1850/1860}, eventdate = {1850-1860}}\n")
    assert codes(text) == [("bad-date", "w", "urldate"), ("bad-date", "w", "eventdate")]
    with pytest.raises(ValidationError, match="urldate '15/05/84'"):
        entries.validate(store.loads(text).records[0])


def test_a_negative_year_check_accepts_is_a_year_everywhere():
    assert values.year_problem("-44") is None
    assert values.parse_year("-44") == -44 and values.parse_year("{-44}") == -44
    assert values.parse_year("-0044") == -44


def test_a_doi_wrapped_in_url_is_a_doi():
    assert values.parse_doi(r"\url{https://doi.org/10.1000/xyz}") == "10.1000/xyz"
    assert codes("@misc{d, title = {T}, doi = {\\url{https://doi.org/10.1000/x}}}\n") == []


# ------------------------------------------------------------------ what stays a finding
@pytest.mark.parametrize("field, value, code", [
    ("year", "1965--1981", "bad-year"),      # biber: "not an integer"
    ("doi", "https://doi.org/10.1145.62523", "bad-doi"),  # no slash: not a DOI
    ("url", "www.example.org/x.pdf", "bad-url"),
    ("url", "http://a.org/x;\n  http://b.org/y", "bad-url"),  # two URLs in one field
])
def test_real_problems_stay_findings(field, value, code):
    text = f"@misc{{m, title = {{T}}, {field} = {{{value}}}}}\n"
    assert codes(text) == [(code, "m", field)]


def test_required_fields_in_a_biblatex_file_still_apply():
    # biblatex-examples.bib's jcg: a @periodical needs an editor in biblatex's model
    text = BIBLATEX_BOOK + "@periodical{jcg, title = {Computers and Graphics}, year = 2011}\n"
    assert codes(text) == [("missing-field", "jcg", "editor")]


def test_add_and_import_judge_a_file_as_check_will_judge_the_library_after(tmp_path, cli):
    # into a biblatex library, an edited volume with only BibTeX's fields is complete,
    # as `check` will say once it is in
    plain = "@book{vol, editor = {E. Editor}, title = {Volume}, year = {1981}}\n"
    lib = write(tmp_path / "lib.bib", "".join(BIBLATEX_BOOK.replace("appleby", f"b{i}")
                                              for i in range(3)))
    r = cli("add", "--from", write(tmp_path / "vol.bib", plain), "-l", lib)
    assert r.exit_code == 0, r.stderr
    assert checks.check(store.load(lib)) == []
    # into a BibTeX library it lacks a publisher, for add, import and check alike
    bib = write(tmp_path / "bib.bib", "".join(BIBTEX_BOOK.replace("knuth", f"k{i}").replace(
        "year = {1984}", "year = {1984},\n  publisher = {AW}") for i in range(3)))
    r = cli("add", "--from", tmp_path / "vol.bib", "--strict", "-l", bib)
    assert r.exit_code == 2 and "publisher" in r.stderr
    (vol,) = triage.plan(importers.read_source("vol.bib", plain)[0], store.load(bib).records,
                            strict=True)
    assert vol.status == "invalid" and "publisher" in vol.problem
    r = cli("add", "--from", tmp_path / "vol.bib", "-l", bib)
    assert r.exit_code == 0 and "entry 'vol': @book needs publisher" in r.stderr
    assert [f.code for f in checks.check(store.load(bib))] == ["missing-field"]


def test_a_name_written_as_a_macro_does_not_crash_import_or_dedupe(tmp_path, cli):
    # tugboat.bib: author = {\Thanh{} and Sebastian Rahtz}, in two entries of one work
    entry = ("@article{{{key},\n  author = {{\\Thanh{{}} and Sebastian Rahtz}},\n"
             "  title = {{Hyphenation Patterns}},\n  journal = {{TUGboat}},\n  year = {{1998}},\n}}\n")
    src = write(tmp_path / "in.bib", entry.format(key="a") + entry.format(key="b"))
    lib = write(tmp_path / "lib.bib", "")
    r = cli("import", src, "-n", "-l", lib)
    assert r.exit_code == 0, r.stderr
    first, second = r.stdout.splitlines()
    assert first.startswith("added\ta\t") and " a " in second  # the twin is matched to a
    r = cli("check", "--dedupe", "-l", src)  # a crash would raise here
    assert r.exit_code in (0, 1) and "duplicate-key" not in r.stdout
