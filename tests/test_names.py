"""pubcli.schema.names: author lists and BibTeX's name forms, as listings show them,
--author and --owner match them, and add/import write them."""

from __future__ import annotations

import pytest

from pubcli.schema.names import (Name, bibtex_name, display_name, family_name, is_person,
                                 known_names, parse_name, split_authors)

from .conftest import record


# ------------------------------------------------------------------ author lists
def test_an_author_list_splits_on_and_outside_braces_only():
    assert split_authors("Ada Lovelace and Babbage, Charles AND Mary Somerville") == [
        "Ada Lovelace", "Babbage, Charles", "Mary Somerville"]
    assert split_authors("{Barnes and Noble} and Anand, Ravi") == ["{Barnes and Noble}",
                                                                    "Anand, Ravi"]
    assert split_authors("Sandberg, Ann and others") == ["Sandberg, Ann", "others"]
    assert split_authors("Alexander Anderson") == ["Alexander Anderson"]  # "and" in a word
    assert split_authors("") == [] and split_authors(None) == []


# ------------------------------------------------------------------ the three forms
@pytest.mark.parametrize("raw, name", [
    ("Donald E. Knuth", Name("Donald E.", "", "Knuth", "")),
    ("Knuth, Donald E.", Name("Donald E.", "", "Knuth", "")),
    ("Ludwig van Beethoven", Name("Ludwig", "van", "Beethoven", "")),
    ("van Beethoven, Ludwig", Name("Ludwig", "van", "Beethoven", "")),
    ("Charles Louis Xavier Joseph de la Vall{\\'e}e Poussin",
     Name("Charles Louis Xavier Joseph", "de la", "Vallée Poussin", "")),
    ("King, Jr., Martin Luther", Name("Martin Luther", "", "King", "Jr.")),
    ("Aristotle", Name("", "", "Aristotle", "")),
    ("{Barnes and Noble}", Name("", "", "Barnes and Noble", "")),
    ("{Microsoft Research} Team", Name("Microsoft Research", "", "Team", "")),
    ("M{\\\"u}ller, J{\\\"o}rg", Name("Jörg", "", "Müller", "")),
])
def test_bibtex_name_forms_are_read_into_their_parts_in_unicode(raw, name):
    assert parse_name(raw) == name


def test_names_are_shown_first_name_first_and_others_as_et_al():
    assert display_name("van Beethoven, Ludwig") == "Ludwig van Beethoven"
    assert display_name("King, Jr., Martin Luther") == "Martin Luther King, Jr."
    assert display_name("M{\\\"u}ller, J{\\\"o}rg") == "Jörg Müller"
    assert display_name("others") == "et al."
    assert family_name("Ludwig van Beethoven") == "van Beethoven"
    assert family_name("others") == "et al."
    assert parse_name("Jean-Paul Sartre").initials == "J. P. Sartre"


# ------------------------------------------------------------------ the same person
@pytest.mark.parametrize("raw, hit", [
    ("Ruwase, Olatunji", True), ("Olatunji Ruwase", True), ("O. Ruwase", True),
    ("Ruwase, O.", True), ("Ruwase", True),          # no given name: the family name decides
    ("Ruwase, Kemi", False), ("Olatunji Rowase", False), ("Olatunji", False),
])
def test_the_owner_is_recognised_however_the_name_is_written(raw, hit):
    assert is_person(raw, "Olatunji Ruwase") is hit


def test_accents_do_not_hide_a_person():
    assert is_person("M{\\\"u}ller, J{\\\"o}rg", "Jörg Müller")
    assert is_person("Müller, J.", "Jorg Muller")


# ------------------------------------------------------------------ writing a name
@pytest.mark.parametrize("typed, written", [
    ("Ada Lovelace", "Lovelace, Ada"),
    ("Gustavo de Rosa", "de Rosa, Gustavo"),
    ("Charles de la Vallée Poussin", "de la Vallée Poussin, Charles"),
    ("Maria Da Silva", "Da Silva, Maria"),
    ("Jan van der Berg", "van der Berg, Jan"),
    ("Martin Luther King Jr.", "King, Jr., Martin Luther"),
    ("Martin Luther King, Jr.", "King, Jr., Martin Luther"),
    ("Lovelace, Ada", "Lovelace, Ada"),               # already BibTeX's form
    ("Aristotle", "Aristotle"),
    ("  Ada   Lovelace ", "Lovelace, Ada"),
    ("", ""),
])
def test_a_typed_name_is_written_in_bibtex_unambiguous_form(typed, written):
    assert bibtex_name(typed) == written


def test_written_names_read_back_as_the_same_person():
    for typed in ("Gustavo de Rosa", "Martin Luther King Jr.", "Maria Da Silva",
                  "Jörg Müller"):
        assert parse_name(bibtex_name(typed)).display.replace(", Jr.", " Jr.") == typed


def test_a_name_is_escaped_for_latex_unless_it_is_latex_already():
    assert bibtex_name("Ann & Co Smith") == "Smith, Ann \\& Co"
    assert bibtex_name("Ann M{\\\"u}ller", latex=True) == "M{\\\"u}ller, Ann"


def test_a_name_the_library_already_spells_takes_its_spelling():
    lib = [record("a", author="M{\\\"u}ller, J{\\\"o}rg and Lovelace, Ada"),
           record("b", author="Charles Babbage")]        # no comma: nothing to learn
    known = known_names(lib)
    assert bibtex_name("Jörg Müller", known) == "M{\\\"u}ller, J{\\\"o}rg"
    assert bibtex_name("jorg  MULLER", known) == "M{\\\"u}ller, J{\\\"o}rg"
    assert bibtex_name("Charles Babbage", known) == "Babbage, Charles"
