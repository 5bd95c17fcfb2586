"""Research areas: vocabulary, matching, and the record edits behind tag/add."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubcli.usecases import areas as A
from pubcli.local.config import Config
from pubcli.errors import NotFound, ValidationError
from pubcli.usecases.grouping import Filters
from pubcli.schema.model import Record

from .conftest import record

VOCAB = ["Artificial intelligence", "Systems and networking", "Computer vision"]


def rec(keywords: str | None = None, **extra: str) -> Record:
    return record(title="T", **extra, keywords=keywords)


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


# ------------------------------------------------------------------ planning `pubcli tag`
CONFIG = Config(areas=VOCAB, path=Path("pubcli.toml"))


def lib_records() -> list[Record]:
    return [record("zero2020", title="ZeRO", year="2020", keywords="Systems and networking"),
            record("vision2021", "article", title="Seeing Things", year="2021",
                   keywords="Computer vision, Zoology"),
            record("plain2022", title="Plain Zero Things", year="2022")]


def test_unique_keeps_the_first_spelling():
    assert A.unique(["AI", "ai", "Café", "cafe", "B"]) == ["AI", "Café", "B"]


def test_choose_resolves_dedupes_and_warns_about_unconfigured_new_areas():
    names, warnings = A.choose(["computer VISION", "Computer vision", "Quantum"], [], CONFIG,
                               allow_new=True)
    assert names == ["Computer vision", "Quantum"]
    assert warnings == ["area 'Quantum' is not in the 'areas' of pubcli.toml; add it there "
                        "to give it a place in lists and pages"]
    assert A.choose([], [], CONFIG) == ([], [])
    # without config areas the library is the vocabulary and nothing is "unconfigured"
    assert A.choose(["zoology"], lib_records(), Config()) == (["Zoology"], [])


def test_plan_tag_by_keys_adds_removes_and_sets_featured():
    recs = lib_records()
    plan = A.plan_tag(recs, CONFIG, keys=["VISION2021", "zero2020", "vision2021"],
                      add=["artificial intelligence"], remove=["zoology"], featured=True)
    assert [(old.key, new.areas, new.featured) for old, new in plan.changes] == [
        ("vision2021", ["Computer vision", "Artificial intelligence"], True),
        ("zero2020", ["Systems and networking", "Artificial intelligence"], True)]
    assert plan.changes[0][0] is recs[1]           # the old record, to replace by key
    assert recs[1].areas == ["Computer vision", "Zoology"]  # records are not mutated
    assert plan.warnings == []


def test_plan_tag_leaves_out_entries_already_as_asked():
    plan = A.plan_tag(lib_records(), CONFIG, keys=["zero2020"], add=["Systems and networking"])
    assert plan.changes == []


def test_plan_tag_with_filters_needs_confirmation_unless_previewing():
    recs = lib_records()
    filters = Filters(search="zero")
    with pytest.raises(ValidationError, match="the filters select 2 entries; add --all"):
        A.plan_tag(recs, CONFIG, filters=filters, add=["Computer vision"])
    for kw in (dict(confirm_all=True), dict(preview=True)):
        plan = A.plan_tag(recs, CONFIG, filters=filters, add=["Computer vision"], **kw)
        assert [old.key for old, _ in plan.changes] == ["zero2020", "plain2022"]
    every = A.plan_tag(recs, CONFIG, confirm_all=True, featured=True)
    assert len(every.changes) == 3


@pytest.mark.parametrize("kw,message", [
    (dict(keys=["zero2020"]), "nothing to do"),
    (dict(add=["Computer vision"]), "name the entries by KEY"),
    (dict(keys=["zero2020"], confirm_all=True, add=["Computer vision"]), "not both"),
    (dict(keys=["zero2020"], filters=Filters(search="x"), add=["Computer vision"]),
     "not both"),
    (dict(keys=["zero2020"], add=["Computer vision"], remove=["COMPUTER VISION"]),
     "both added and removed"),
    (dict(keys=["zero2020"], add=["Sytems and networking"]), "did you mean"),
    (dict(keys=["zero2020"], add=["A, B"], allow_new=True), "separator"),
    (dict(keys=["zero2020"], rename=("Zoology", "Animals")), "give it alone"),
])
def test_plan_tag_refusals(kw, message):
    with pytest.raises(ValidationError, match=message):
        A.plan_tag(lib_records(), CONFIG, **kw)


def test_unknown_key_is_not_found_with_a_suggestion():
    with pytest.raises(NotFound, match="no entry with key 'zeor2020'; did you mean 'zero2020'"):
        A.plan_tag(lib_records(), CONFIG, keys=["zeor2020"], featured=True)


def test_plan_rename_renames_everywhere_and_in_the_config():
    recs = lib_records()
    plan = A.plan_rename(recs, CONFIG, "computer VISION", "Vision")
    assert [(old.key, new.areas) for old, new in plan.changes] == \
        [("vision2021", ["Vision", "Zoology"])]
    assert plan.config_rename == ("Computer vision", "Vision")
    quiet = A.plan_rename(recs, CONFIG, "Zoology", "Animals")  # not a configured area
    assert quiet.config_rename is None and len(quiet.changes) == 1


def test_plan_rename_refusals():
    with pytest.raises(ValidationError, match="no entry has the area 'Zoolgy'; did you mean "
                                              "'Zoology'"):
        A.plan_rename(lib_records(), CONFIG, "Zoolgy", "Animals")
    with pytest.raises(ValidationError, match="close to the existing area "
                                              "'Systems and networking'"):
        A.plan_rename(lib_records(), CONFIG, "Zoology", "Sytems and networking")
    assert A.plan_rename(lib_records(), CONFIG, "Zoology", "Sytems and networking",
                         allow_new=True).changes
