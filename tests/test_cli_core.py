"""The core behind the new commands and the render helpers, called directly."""

from __future__ import annotations

import pytest

from pubcli.local import config
from pubcli.usecases import editing
from pubcli import store
from pubcli.errors import ErrorGroup, ExitCode, LibraryNotFound, ValidationError
from pubcli.schema.names import matches_person, person_query
from pubcli.usecases.refs import split_ref
from pubcli.render import entry, table

from .conftest import write

LIB = ("@misc{a,\n  title = {A},\n  author = {M{\\\"u}ller, Hans and Ada Lovelace},\n}\n\n"
       "@misc{b,\n  title = {B},\n  ids = {old1, old2},\n}\n")


@pytest.mark.parametrize("query,raw,hit", [
    ("Bubeck, S.", "Bubeck, S{\\'e}bastien", True),
    ("S. Bubeck", "Bubeck, Samuel", True),
    ("Sébastien Bubeck", "Bubeck, Samuel", False),
    ("J. R. R. Tolkien", "John Ronald Reuel Tolkien", True),
    ("J. R. Tolkien", "John Ronald Reuel Tolkien", True),
    ("J. Q. Tolkien", "John Ronald Reuel Tolkien", False),
    ("van Beethoven, L.", "Ludwig van Beethoven", True),
    ("Ludwig Beethoven", "Ludwig van Beethoven", True),
    ("Muller", "M{\\\"u}ller, Hans", True),      # one word: a substring, accents folded
    ("hans mueller", "M{\\\"u}ller, Hans", False),
    ("Smith", "Smithson, Ann", True),           # one word: contains
    ("A. Smith", "Smithson, Ann", False),       # a person: the family name must be equal
])
def test_person_matching(query, raw, hit):
    assert matches_person(raw, person_query(query)) is hit


def test_split_ref():
    assert split_ref("smith2020@42") == ("smith2020", 42)
    assert split_ref("smith2020") == ("smith2020", None)
    assert split_ref("a@b") == ("a@b", None)


def test_a_key_that_ends_in_at_digits_is_still_a_key():
    lib = store.loads("@misc{odd@12, title = {T}}\n", "x.bib")
    assert editing.resolve(lib, "odd@12").key == "odd@12"


def test_set_fields_and_rename_core():
    lib = store.loads(LIB, "x.bib")
    ch = editing.set_fields(lib, editing.resolve(lib, "a"), ["note=N"], ["author"])
    assert ch.new.fields == {"title": "A", "note": "N"}
    assert editing.set_fields(lib, ch.new, ["note=N"]) is None  # nothing changes
    ch = editing.rename(lib, "b", "c")
    assert ch.new.fields["ids"] == "old1, old2, b"
    text = store.render(lib)
    assert "@misc{c," in text and "ids = {old1, old2, b}" in text and "note = {N}" in text


def test_rename_back_to_an_id_takes_it_out_of_ids():
    lib = store.loads(LIB, "x.bib")
    assert editing.rename(lib, "b", "old1").new.fields["ids"] == "old2, b"


def test_edit_text_core_refuses_and_accepts():
    lib = store.loads(LIB, "x.bib")
    a = editing.resolve(lib, "a")
    with pytest.raises(ValidationError, match="holds 0 entries"):
        editing.edit_text(lib, a, "nothing here")
    with pytest.raises(ValidationError, match="the key 'B' is already used on line 6"):
        editing.edit_text(lib, a, "@misc{B, title = {A}}")
    same = editing.entry_text(lib, a)
    assert editing.edit_text(lib, a, same) is None
    ch = editing.edit_text(lib, a, same.replace("{A}", "{A, again}"))
    assert ch.new.fields["title"] == "A, again" and lib.find("a") == [ch.new]


def test_distinct_pairs_follow_a_rename(tmp_path):
    from pubcli.usecases import distinct

    lib = write(tmp_path / "l.bib", LIB)
    distinct.add(lib, [("b", "x"), ("y", "z")])
    assert editing.distinct_pairs_after_rename(lib, "B", "c") == [("c", "x")]


def test_rename_area_in_config_keeps_the_rest(tmp_path):
    cfg_file = write(tmp_path / "pubcli.toml", '# top\nowner = "Me"\n\nareas = ["A",  # the A\n'
                                               '  "B"]\n')
    cfg = config.load_config(tmp_path / "l.bib")
    assert config.rename_area(cfg, "a", "Alpha") is True
    assert cfg_file.read_text() == '# top\nowner = "Me"\n\nareas = ["Alpha",  # the A\n  "B"]\n'
    assert config.rename_area(cfg, "Zed", "Z") is False
    assert config.rename_area(config.Config(), "A", "B") is False  # no file


def test_field_text_and_entry_text():
    rec = store.loads(LIB, "x.bib").find("a")[0]
    assert entry.field_text("author", rec.fields["author"]) == "Hans Müller; Ada Lovelace"
    assert entry.field_text("url", " http://x  y ") == "http://x y"
    assert entry.entry_text(rec, "x.bib:1").splitlines()[0] == "a (@misc)  x.bib:1"


def test_table_helpers():
    rows = [["A\x1b[2J", "1"], ["B", ""]]
    assert table.piped(rows) == "A\u241b[2J\t1\nB\t\n"
    assert table.stacked(["Name", "N"], rows) == "Name: A\u241b[2J\nN:    1\n\nName: B\n"


def test_exit_codes_and_error_groups():
    assert [int(c) for c in ExitCode] == [0, 1, 2, 70, 130]
    group = ErrorGroup([LibraryNotFound("no such file", path="a.bib"),
                        ValidationError("bad", path="b.bib", line=3)])
    assert group.exit_code == ExitCode.USAGE and group.format() == "b.bib:3: bad"
    assert [e.format() for e in group.errors] == ["a.bib: no such file", "b.bib:3: bad"]
