"""Research areas: vocabulary, matching, and the record edits behind tag/add."""

from __future__ import annotations

import pytest

from pubcli import areas as A
from pubcli.errors import ValidationError
from pubcli.model import Record

VOCAB = ["Artificial intelligence", "Systems and networking", "Computer vision"]


def rec(keywords: str | None = None, **extra: str) -> Record:
    fields = {"title": "T", **extra}
    if keywords is not None:
        fields["keywords"] = keywords
    return Record("k", "misc", fields)


@pytest.mark.parametrize("name", ["Vision, Graphics", "A; B"])
def test_separator_in_a_name_is_refused(name):
    with pytest.raises(ValidationError, match="separator"):
        A.clean(name)


def test_empty_name_is_refused():
    with pytest.raises(ValidationError, match="empty"):
        A.clean("   ")


def test_resolve_is_case_and_accent_insensitive_and_uses_the_vocabulary_spelling():
    assert A.resolve("SYSTEMS AND  networking", VOCAB).name == "Systems and networking"
    assert A.resolve("computer vísion", VOCAB).name == "Computer vision"


def test_near_miss_is_refused_with_a_suggestion():
    with pytest.raises(ValidationError, match="did you mean 'Systems and networking'"):
        A.resolve("Sytems and networking", VOCAB)


def test_unknown_far_name_is_refused_and_lists_the_vocabulary():
    with pytest.raises(ValidationError, match="unknown area 'Quantum chemistry'.*--new"):
        A.resolve("Quantum chemistry", VOCAB)


def test_new_area_is_accepted_with_allow_new_or_an_empty_vocabulary():
    got = A.resolve("Sytems and networking", VOCAB, allow_new=True)
    assert (got.name, got.is_new) == ("Sytems and networking", True)
    assert A.resolve("Anything", []).name == "Anything"


def test_vocabulary_falls_back_to_the_library():
    recs = [rec("Vision, systems"), rec("VISION; Databases"), rec()]
    assert A.vocabulary([], recs) == ["Vision", "systems", "Databases"]
    assert A.vocabulary(VOCAB, recs) == VOCAB


def test_edit_keeps_existing_spelling_and_order():
    r = rec("systems and networking, Computer vision")
    out = A.edit(r, add=["Artificial intelligence", "Computer Vision"],
                 remove=["Systems and networking"])
    assert out.fields["keywords"] == "Computer vision, Artificial intelligence"
    assert r.fields["keywords"] == "systems and networking, Computer vision"  # not mutated


def test_edit_returns_none_when_nothing_changes():
    r = rec("Computer vision")
    assert A.edit(r, add=["computer vision"]) is None
    assert A.edit(r, remove=["Artificial intelligence"]) is None


def test_removing_the_last_area_drops_the_field():
    out = A.edit(rec("Computer vision"), remove=["COMPUTER VISION"])
    assert "keywords" not in out.fields


def test_rename_in_place_and_merge():
    assert A.rename(rec("A, Old, B"), "old", "New").fields["keywords"] == "A, New, B"
    assert A.rename(rec("New, Old"), "Old", "New").fields["keywords"] == "New"
    assert A.rename(rec("Old, New"), "Old", "New").fields["keywords"] == "New"
    assert A.rename(rec("A"), "Old", "New") is None


def test_set_featured():
    on = A.set_featured(rec(), True)
    assert on.fields["featured"] == "true" and on.featured
    assert A.set_featured(on, True) is None
    off = A.set_featured(on, False)
    assert "featured" not in off.fields
    assert A.set_featured(rec(featured="false"), False).fields == {"title": "T"}


def test_counts_list_config_areas_first_then_others():
    recs = [rec("Computer vision, Zoology"), rec("computer VISION"), rec("Apples")]
    rows = [(c.name, c.count, c.configured) for c in A.counts(recs, VOCAB)]
    assert rows == [("Artificial intelligence", 0, True), ("Systems and networking", 0, True),
                    ("Computer vision", 2, True), ("Apples", 1, False), ("Zoology", 1, False)]
