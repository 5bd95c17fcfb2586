"""pubcli.schema.types: entry types, what each requires (BibTeX's btxdoc, or biblatex's
data model for an entry or file written for biblatex), display groups, venues."""

from __future__ import annotations

from pubcli.schema import types

from .conftest import record


def test_bibtex_types_require_what_btxdoc_says():
    assert types.required_fields("article") == ("author", "title", "journal|journaltitle",
                                                 "year|date")
    assert types.required_fields("INPROCEEDINGS") == ("author", "title", "booktitle",
                                                      "year|date")
    assert types.required_fields("book") == ("author|editor", "title", "publisher", "year|date")
    assert types.required_fields("misc") == ()
    assert types.required_fields("podcast") == ()            # unknown: nothing to ask


def test_an_entry_written_for_biblatex_is_not_asked_for_what_only_bibtex_needs():
    assert "publisher" in types.required_fields("book")
    assert "publisher" not in types.required_fields("book", biblatex=True)
    # a biblatex-only field (date, location, journaltitle...) makes the entry biblatex's
    bib = {"author": "A", "title": "T", "year": "2020"}
    blx = {"author": "A", "title": "T", "date": "2020", "location": "Berlin"}
    assert "publisher" in types.required_for("book", bib)
    assert "publisher" not in types.required_for("book", blx)
    # ...and so does a file where one entry in five is written for biblatex
    assert "publisher" not in types.required_for("book", bib, in_biblatex_file=True)
    # an empty biblatex field says nothing
    assert not types.written_for_biblatex("book", {"date": " "})
    assert types.written_for_biblatex("mvbook", {})


def test_a_file_is_biblatex_when_a_fifth_of_its_entries_are():
    bib = [record(f"b{i}", "book", title="T", year="2020") for i in range(4)]
    blx = record("x", "book", title="T", date="2020")
    assert types.biblatex_file(bib + [blx])                  # 1 in 5
    assert not types.biblatex_file(bib + bib + [blx])        # 1 in 9: a stray date
    assert not types.biblatex_file([])


def test_every_known_type_is_shown_in_a_readable_group():
    assert types.type_group("inproceedings") == "Conference papers"
    assert types.type_group("conference") == "Conference papers"
    assert types.type_group("phdthesis") == types.type_group("thesis") == "Theses"
    assert types.type_group("podcast") == "Podcast"          # unknown: its own name
    order = [name for name, _ in types.TYPE_GROUPS]
    assert sorted(order, key=types.type_group_order) == order
    assert types.type_group_order("Podcast") > types.type_group_order(order[-1])


def test_the_venue_is_read_from_the_field_of_the_type():
    assert record("a", "article", journal="J", booktitle="B").venue == "J"
    assert record("p", "inproceedings", booktitle="ICLR", journal="J").venue == "ICLR"
    # a report number that does not name its institution is shown with it
    assert record("t", "techreport", institution="MSR", number="TR-1").venue \
        == "MSR, Technical Report TR-1"
    assert record("t", "techreport", institution="Microsoft Research",
                  number="MSR-TR-2024-12").venue == "MSR-TR-2024-12"
    assert record("t", "techreport", institution="MSR").venue == "MSR, Technical Report"
    assert record("x", "podcast", publisher="P").venue == "P"  # unknown: the usual places


def test_aliases_are_known_types():
    for alias in ("conference", "electronic", "www", "webpage", "preprint"):
        assert alias in types.KNOWN_TYPES
    assert "journal" not in types.KNOWN_TYPES
