"""Keys repeat in real files: every edit lands on the entry it was meant for.

Found in a real test file of another tool: `tag` on the second of two entries sharing a
key replaced the first entry's author, title, journal and year with the second's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pubcli import store
from pubcli.errors import AmbiguousKey, NotFound
from pubcli.schema.model import Record

TWINS = (
    "@article{smith2020,\n  author = {Ann Smith},\n  title = {First paper},\n"
    "  journal = {J. One},\n  year = {2020},\n}\n\n"
    "@article{smith2020,\n  author = {Bob Jones},\n  title = {Second paper},\n"
    "  journal = {J. Two},\n  year = {2021},\n}\n"
)
FIRST = TWINS[:TWINS.index("\n\n") + 2]


@pytest.fixture
def twins(tmp_path) -> Path:
    p = tmp_path / "lib.bib"
    p.write_text(TWINS, encoding="utf-8")
    return p


def test_tag_by_filter_changes_the_selected_twin_only(cli, twins):
    result = cli("tag", "--year", "2021", "--add", "Late", "--new", "--all", "-l", twins)
    assert result.exit_code == 0, result.output
    text = twins.read_text(encoding="utf-8")
    assert text.startswith(FIRST)  # the first entry's bytes are untouched
    lib = store.load(twins)
    first, second = lib.records
    assert (first.fields["author"], first.fields["title"], first.year) == \
        ("Ann Smith", "First paper", 2020)
    assert "keywords" not in first.fields
    assert (second.fields["author"], second.fields["title"]) == ("Bob Jones", "Second paper")
    assert second.areas == ["Late"]


def test_tag_all_changes_both_twins(cli, twins):
    result = cli("tag", "--add", "Late", "--new", "--all", "-l", twins)
    assert result.exit_code == 0, result.output
    lib = store.load(twins)
    assert [(r.fields["title"], r.areas) for r in lib.records] == \
        [("First paper", ["Late"]), ("Second paper", ["Late"])]


def test_tag_rename_keeps_each_twin_its_own(cli, twins):
    assert cli("tag", "--add", "Old", "--new", "--all", "-l", twins).exit_code == 0
    result = cli("tag", "--rename", "Old", "New", "--new", "-l", twins)
    assert result.exit_code == 0, result.output
    lib = store.load(twins)
    assert [(r.fields["author"], r.areas) for r in lib.records] == \
        [("Ann Smith", ["New"]), ("Bob Jones", ["New"])]


def test_tag_by_a_key_two_entries_use_is_refused_naming_both_lines(cli, twins, capsys):
    result = cli("tag", "smith2020", "--add", "Late", "--new", "-l", twins)
    assert result.exit_code == 2
    err = result.stderr
    assert f"{twins}:1:" in err
    assert "lines 1 and 8" in err
    assert [ln.split(":")[0] for ln in err.splitlines()] == ["warning", "error"]  # one error
    assert twins.read_text(encoding="utf-8") == TWINS


def test_library_replace_and_remove_work_by_identity():
    lib = store.loads(TWINS)
    first, second = lib.records
    lib.replace(second, second.copy(fields={**second.fields, "note": "two"}))
    out = store.render(lib)
    assert out.startswith(FIRST)
    again = store.loads(out)
    assert [r.fields.get("note") for r in again.records] == [None, "two"]

    lib = store.loads(TWINS)
    lib.remove(lib.records[1])
    assert store.render(lib) == FIRST
    lib = store.loads(TWINS)
    lib.remove(lib.records[0])
    assert store.render(lib) == TWINS[len(FIRST):]


def test_a_key_used_twice_is_ambiguous_where_an_edit_needs_one():
    lib = store.loads(TWINS)
    with pytest.raises(AmbiguousKey) as exc:
        lib.replace("smith2020", Record("smith2020", "misc", {}))
    assert "lines 1 and 8" in str(exc.value)
    with pytest.raises(AmbiguousKey):
        lib.remove("smith2020")
    with pytest.raises(AmbiguousKey):
        lib["smith2020"]
    assert [r.fields["title"] for r in lib.find("smith2020")] == ["First paper", "Second paper"]
    assert not lib.changed


def test_an_edit_to_a_record_not_in_the_library_is_refused():
    lib = store.loads(TWINS)
    stranger = Record("smith2020", "article", dict(lib.records[0].fields))
    with pytest.raises(NotFound):
        lib.replace(stranger, stranger.copy(fields={}))


def test_after_removing_one_twin_the_key_finds_the_other():
    lib = store.loads(TWINS)
    lib.remove(lib.records[0])
    assert lib["smith2020"].fields["title"] == "Second paper"
    lib.replace("smith2020", lib["smith2020"].copy(key="jones2021"))
    assert lib.find("smith2020") == []
    assert lib["jones2021"].fields["author"] == "Bob Jones"


def test_locate_finds_the_same_twin_in_a_fresh_load():
    before = store.loads(TWINS)
    after = store.loads(TWINS)
    assert after.locate(before.records[1]) is after.records[1]
    assert after.locate(before.records[0]) is after.records[0]
    changed = store.loads(TWINS.replace("Second paper", "Second paper, revised"))
    assert changed.locate(before.records[1]) is None
