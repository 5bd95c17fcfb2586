"""Building and validating new entries from `pubcli add` options."""

from __future__ import annotations

import pytest

from pubcli.local import config
from pubcli.usecases import adding as entries
from pubcli.usecases import newentry
from pubcli import store
from pubcli.usecases.newentry import EntryOptions
from pubcli.errors import DuplicateError, ParseError, ValidationError
from pubcli.schema.model import Record

from .conftest import SHIPPED


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
    rec = newentry.build(opts(type=entry_type, venue="  The   Venue "))
    assert rec.fields[field] == "The Venue"


def test_default_type_depends_on_venue():
    assert newentry.build(opts(venue="ICLR 2024")).type == "inproceedings"
    assert newentry.build(opts()).type == "misc"


def test_authors_repeatable_or_joined_with_and():
    rec = newentry.build(opts(authors=["Ada Lovelace and Charles  Babbage", "Ruwase, Olatunji"]))
    assert rec.fields["author"] == "Ada Lovelace and Charles Babbage and Ruwase, Olatunji"


@pytest.mark.parametrize("value,expected", [("may", "May"), ("5", "May"), ("05", "May"),
                                            ("December", "December")])
def test_month_normalised(value, expected):
    assert newentry.build(opts(month=value)).fields["month"] == expected


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
        newentry.build(opts(**kw))


def test_unknown_type_accepted_with_force():
    assert newentry.build(opts(type="Podcast"), force=True).type == "podcast"


def test_doi_url_forms_are_stored_bare():
    assert newentry.build(opts(doi="https://doi.org/10.1145/3297858.3304011")).fields["doi"] \
        == "10.1145/3297858.3304011"


def test_fields_written_in_conventional_order():
    rec = newentry.build(opts(type="inproceedings", venue="V", month="may", doi="10.1000/x",
                             fields=["note=n"], areas=["AI"], featured=True))
    assert list(rec.fields) == ["author", "title", "booktitle", "year", "month", "doi", "note",
                                "keywords", "featured"]
    assert rec.fields["featured"] == "true"


def test_missing_fields_follow_the_standard_and_always_include_title():
    assert newentry.missing_fields("article", {"title": "x"}) == [
        "author", "journal|journaltitle", "year|date"]
    assert newentry.missing_fields("misc", {}) == ["title"]
    assert newentry.missing_fields("book", {"editor": "E", "title": "T", "publisher": "P",
                                           "date": "2001"}) == []


def test_validate_names_what_is_missing():
    rec = newentry.build(opts(type="article"))
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
    rec = newentry.build(opts(title="Deep Things"))
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


# ------------------------------------------------------------------ planning `pubcli add`
@pytest.fixture(scope="module")
def shipped():
    return store.load(SHIPPED).records, config.load_config(SHIPPED)


def test_missing_required_names_the_fields_to_ask_for():
    assert newentry.missing_required(EntryOptions(type="article", title="T")) == [
        "author", "journal", "year"]
    assert newentry.missing_required(EntryOptions()) == ["title"]
    assert newentry.missing_required(opts(type="inproceedings", venue="V")) == []
    with pytest.raises(ValidationError, match="4-digit year"):
        newentry.missing_required(opts(year="99"))


def test_with_answers_puts_each_answer_where_build_reads_it():
    got = newentry.with_answers(EntryOptions(type="article", fields=["note=n"]),
                               {"title": "T", "author": "A B and C D", "year": "2020",
                                "journal": "J"})
    rec = newentry.build(got)
    assert rec.fields == {"author": "A B and C D", "title": "T", "journal": "J",
                          "year": "2020", "note": "n"}
    assert newentry.missing_required(got) == []


def test_plan_add_resolves_areas_and_generates_a_unique_key(shipped):
    records, cfg = shipped
    plan = entries.plan_add(records, opts(title="ZeRO++: Something Else Entirely",
                                          authors=["Wang, Guanhua"],
                                          areas=["SYSTEMS and networking", "Quantum"]),
                            cfg, allow_new=True)
    [rec] = plan.records
    assert rec.key == "wang2024zeroa"
    assert rec.areas == ["Systems and networking", "Quantum"]
    assert plan.warnings and "'Quantum' is not in the 'areas'" in plan.warnings[0]
    assert len(records) == 20  # nothing added to the input


def test_plan_add_says_how_to_give_missing_fields(shipped):
    records, cfg = shipped
    with pytest.raises(ValidationError, match=r"@article needs journal \(or journaltitle\) "
                                              r"\(give them as options, or run on a terminal"):
        entries.plan_add(records, opts(type="article"), cfg)
    with pytest.raises(ValidationError, match=r"needs journal \(or journaltitle\); nothing"):
        entries.plan_add(records, opts(type="article"), cfg, prompted=True)


ZERO_PP = "ZeRO++: Extremely Efficient Collective Communication for Giant Model Training"


def test_plan_add_refuses_a_duplicate_with_the_matches_attached(shipped):
    records, cfg = shipped
    dup = opts(title=ZERO_PP, authors=["Guanhua Wang"])
    with pytest.raises(entries.DuplicateEntry, match="looks like a duplicate of "
                                                     "'wang2024zero'") as caught:
        entries.plan_add(records, dup, cfg)
    assert isinstance(caught.value, DuplicateError)
    assert caught.value.matches[0].record.key == "wang2024zero"
    # one decision, one line: the match, its line, what carried it, how likely
    assert str(caught.value).startswith(f"'{ZERO_PP}' looks like a duplicate of "
                                        "'wang2024zero' (line 5; title + ")
    assert caught.value.details == []  # (only further matches get a line each)
    assert caught.value.matches[0].verdict.contributions  # the full evidence, for --explain
    forced = entries.plan_add(records, dup, cfg, force=True)
    assert forced.records[0].key == "wang2024zeroa"
    assert forced.warnings == [f"adding '{ZERO_PP}' anyway (--force): it looks like a "
                               f"duplicate of {entries.match_ref(caught.value.matches[0])}"]
    assert [(label, [m.record.key for m in ms]) for label, ms in forced.judged] == \
        [(f"'{ZERO_PP}'", ["wang2024zero"])]


def test_check_duplicates_returns_matches_when_forced(shipped):
    records, _ = shipped
    rec = newentry.build(opts(title=ZERO_PP, authors=["Guanhua Wang"]))
    assert [m.record.key for m in entries.check_duplicates(rec, records, force=True)] == \
        ["wang2024zero"]
    other = newentry.build(opts(title="Nothing Like Anything in the Library"))
    assert entries.check_duplicates(other, records) == []


BIB = """@misc{ruwase2004practical, title = {A Totally Different Paper}, author = {Doe, Jane},
  year = {2004}}
@misc{doe2001x, title = {Another One}, year = {2001}}
"""


def test_plan_add_bibtex_keeps_free_keys_and_renames_taken_ones(shipped):
    records, cfg = shipped
    plan = entries.plan_add_bibtex(BIB, records, cfg, source="new.bib",
                                   areas=["computer vision"], featured=True)
    assert [r.key for r in plan.records] == ["ruwase2004practicala", "doe2001x"]
    assert all(r.areas == ["Computer vision"] and r.featured for r in plan.records)
    assert plan.notes == ["new.bib:1: the key 'ruwase2004practical' is taken; the entry is "
                          "added as 'ruwase2004practicala'"]


def test_plan_add_bibtex_is_all_or_nothing(shipped):
    records, cfg = shipped
    with pytest.raises(ValidationError, match=r"^<stdin>:2: entry 'y': @article needs author"):
        entries.plan_add_bibtex("@misc{x, title = {Fine}}\n@article{y, title = {T}}\n",
                                records, cfg, strict=True)
    with pytest.raises(ParseError, match=r"^in.bib:2: could not read"):
        entries.plan_add_bibtex("@misc{x, title = {Fine}}\n@misc{y,\n title = {Open\n",
                                records, cfg, source="in.bib")
    twice = "@misc{a, title = {Same Work Here}, author = {Doe, Jane}, year = {2001}}\n" \
            "@misc{b, title = {Same Work Here}, author = {Doe, Jane}, year = {2001}}\n"
    with pytest.raises(entries.DuplicateEntry, match="'b' looks like a duplicate of 'a'"):
        entries.plan_add_bibtex(twice, records, cfg)
    with pytest.raises(ValidationError, match="no BibTeX entries"):
        entries.plan_add_bibtex("% nothing\n", records, cfg)
