"""pubcli.text.similar: the one "did you mean ...?" every command says for a mistyped
area, entry type, key or option value."""

from __future__ import annotations

from pubcli.text.fold import fold
from pubcli.text.similar import closest, did_you_mean, known_list

TYPES = ["article", "book", "inproceedings", "incollection", "misc", "phdthesis"]


def test_a_near_miss_gets_the_known_spelling():
    assert closest("inproceeding", TYPES) == "inproceedings"
    assert closest("artcle", TYPES) == "article"
    assert closest("wagn2024zero", ["wang2024zero", "rajbhandari2020zero"]) == "wang2024zero"


def test_a_far_name_gets_no_suggestion():
    assert closest("podcast", TYPES) is None
    assert closest("anything", []) is None


def test_folding_lets_case_and_accents_not_count_and_the_known_spelling_is_said():
    areas = ["Computer vision", "Systems and networking"]
    assert closest("COMPUTER VISON", areas) is None              # case counts without a fold
    assert closest("COMPUTER VISON", areas, fold=fold) == "Computer vision"
    assert closest("cömputer vísion", areas, fold=fold) == "Computer vision"


def test_the_suggestion_and_the_known_list_have_one_wording():
    assert did_you_mean("article") == "; did you mean 'article'?"
    assert did_you_mean(None) == ""
    assert known_list(["A", "B"]) == "; known: 'A', 'B'"
    assert known_list([str(i) for i in range(10)], shown=3) == "; known: '0', '1', '2' and 7 more"
    assert known_list([]) == ""
