"""Building and validating new entries from `pubcli add` options."""

from __future__ import annotations

import pytest

from pubcli import entries
from pubcli.entries import EntryOptions
from pubcli.errors import ValidationError
from pubcli.model import Record


def opts(**kw) -> EntryOptions:
    base = dict(title="A Title", authors=["Ada Lovelace"], year="2024")
    base.update(kw)
    return EntryOptions(**base)


@pytest.mark.parametrize("entry_type,field", [
    ("inproceedings", "booktitle"), ("article", "journal"), ("techreport", "institution"),
    ("phdthesis", "school"), ("mastersthesis", "school"), ("misc", "howpublished"),
    ("book", "publisher"), ("unpublished", "howpublished"),
])
def test_venue_goes_to_the_field_of_the_type(entry_type, field):
    rec = entries.build(opts(type=entry_type, venue="  The   Venue "))
    assert rec.fields[field] == "The Venue"


def test_default_type_depends_on_venue():
    assert entries.build(opts(venue="ICLR 2024")).type == "inproceedings"
    assert entries.build(opts()).type == "misc"


def test_authors_repeatable_or_joined_with_and():
    rec = entries.build(opts(authors=["Ada Lovelace and Charles  Babbage", "Ruwase, Olatunji"]))
    assert rec.fields["author"] == "Ada Lovelace and Charles Babbage and Ruwase, Olatunji"


@pytest.mark.parametrize("value,expected", [("may", "May"), ("5", "May"), ("05", "May"),
                                            ("December", "December")])
def test_month_normalised(value, expected):
    assert entries.build(opts(month=value)).fields["month"] == expected


@pytest.mark.parametrize("kw,message", [
    (dict(year="24"), "4-digit year"),
    (dict(year="2024a"), "4-digit year"),
    (dict(month="Smarch"), "month name"),
    (dict(type="journal"), "unknown entry type 'journal'"),
    (dict(type="in proceedings"), "not a valid entry type"),
    (dict(doi="not-a-doi"), "is not a DOI"),
    (dict(url="ftp://x"), "not an http"),
    (dict(fields=["novalue"]), "name=value"),
    (dict(fields=["bad name=1"]), "not a valid BibTeX field name"),
    (dict(fields=["title=Other"]), "given twice"),
    (dict(fields=["keywords=x"]), "--area"),
])
def test_bad_options_are_refused(kw, message):
    with pytest.raises(ValidationError, match=message):
        entries.build(opts(**kw))


def test_unknown_type_accepted_with_force():
    assert entries.build(opts(type="Podcast"), force=True).type == "podcast"


def test_doi_url_forms_are_stored_bare():
    assert entries.build(opts(doi="https://doi.org/10.1145/3297858.3304011")).fields["doi"] \
        == "10.1145/3297858.3304011"


def test_fields_written_in_conventional_order():
    rec = entries.build(opts(type="inproceedings", venue="V", month="may", doi="10.1000/x",
                             fields=["note=n"], areas=["AI"], featured=True))
    assert list(rec.fields) == ["author", "title", "booktitle", "year", "month", "doi", "note",
                                "keywords", "featured"]
    assert rec.fields["featured"] == "true"


def test_missing_fields_follow_the_standard_and_always_include_title():
    assert entries.missing_fields("article", {"title": "x"}) == [
        "author", "journal|journaltitle", "year|date"]
    assert entries.missing_fields("misc", {}) == ["title"]
    assert entries.missing_fields("book", {"editor": "E", "title": "T", "publisher": "P",
                                           "date": "2001"}) == []


def test_validate_names_what_is_missing():
    rec = entries.build(opts(type="article"))
    with pytest.raises(ValidationError, match=r"@article needs journal \(or journaltitle\)"):
        entries.validate(rec)


def test_validate_checks_year_and_braces():
    with pytest.raises(ValidationError, match="4-digit year"):
        entries.validate(Record("k", "misc", {"title": "T", "year": "99"}))
    with pytest.raises(ValidationError, match="unbalanced braces"):
        entries.validate(Record("k", "misc", {"title": "T {oops"}))
    with pytest.raises(ValidationError, match="not a valid BibTeX key"):
        entries.validate(Record("bad key", "misc", {"title": "T"}))


def test_assign_key_generates_or_checks_the_explicit_key():
    rec = entries.build(opts(title="Deep Things"))
    taken = {"lovelace2024deep"}
    got = entries.assign_key(rec, taken)
    assert got.key == "lovelace2024deepa" and "lovelace2024deepa" in taken
    with pytest.raises(ValidationError, match="already in the library"):
        entries.assign_key(rec, taken, "Lovelace2024Deep")
    with pytest.raises(ValidationError, match="not a valid BibTeX key"):
        entries.assign_key(rec, taken, "a,b")
    assert entries.assign_key(rec, taken, "mine").key == "mine"


def test_keep_or_renew_key_for_file_entries():
    taken = {"x2020a"}
    r, old = entries.keep_or_renew_key(Record("free", "misc", {"title": "T"}), taken)
    assert (r.key, old) == ("free", None)
    r, old = entries.keep_or_renew_key(Record("X2020A", "misc", {"title": "T"}), taken)
    assert (r.key, old) == ("X2020Aa", "X2020A")
