"""Saves that start from the bytes a transaction loaded: entries appended one after
another (``pubcli add``, add after add) or edited, in big files the parse cache holds,
write exactly the bytes a whole re-encoding would, keep the cache warm for the next
command (its records read lazily) and leave undo able to restore every version."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from pubcli import bibtex, store
from pubcli.store import cache

from .conftest import record


def big_library(path: Path, *, accent: bool = False, bom: bool = False,
                newline: str = "\n") -> Path:
    """A file over the parse cache's size threshold."""
    entries: list[str] = []
    n = size = 0
    while size < cache.MIN_BYTES + 1000:
        title = f"Stable Things Number {n}" + (" \u00e9t\u00e9" if accent and n == 7 else "")
        entries.append(newline.join([f"@article{{e{n},", f"  title = {{{title}}},",
                                     "  author = {Ada Lovelace and Bob Byron},",
                                     "  journal = {J. Things},", f"  year = {{{2000 + n % 20}}}",
                                     "}"]))
        size += len(entries[-1])
        n += 1
    text = (newline * 2).join(entries) + newline
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


def reread(path: Path) -> list[tuple[str, str, dict[str, str], int]]:
    """Every entry of the file as a fresh parse reads it (key, type, fields, line)."""
    _, text, _ = store.read_text(path)
    return [(r.key, r.type, r.fields, r.line) for r in bibtex.parse(text).records]


def cached_view(path: Path) -> list[tuple[str, str, dict[str, str], int]]:
    lib = store.load(path)
    assert lib.document.cached, "the parse cache holds the file as last written"
    return [(r.key, r.type, r.fields, r.line) for r in lib.records]


FILES = {"ascii": {}, "accented": {"accent": True}, "bom": {"bom": True},
         "crlf": {"newline": "\r\n"}, "accented-bom": {"accent": True, "bom": True}}


@pytest.mark.parametrize("kind", FILES)
def test_adds_one_after_another_write_what_a_whole_encoding_writes(tmp_path, kind):
    path = big_library(tmp_path / "lib.bib", **FILES[kind])
    store.load(path)  # the parse cache is made
    versions = [path.read_bytes()]
    for i in range(3):
        with store.transaction(path) as lib:
            lib.add(record(f"new{i}", "misc", title=f"Appended {i}", year="2024"))
        data = path.read_bytes()
        assert data[:len(versions[-1])] == versions[-1]  # only appended to
        full = store.load(path, use_cache=False)
        expected = (b"\xef\xbb\xbf" if full.bom else b"") + full.text.encode("utf-8")
        assert data == expected
        # the next command finds the cache warm, and it says what a parse says
        assert cached_view(path) == reread(path)
        new = store.load(path)[f"new{i}"]
        assert new.line == reread(path)[-1][3]
        versions.append(data)
    for before in reversed(versions[:-1]):  # every add undone, to the exact bytes
        store.undo(path)
        assert path.read_bytes() == before


@pytest.mark.parametrize("kind", FILES)
def test_an_edit_and_a_removal_after_adds_rewrite_only_their_entries(tmp_path, kind):
    path = big_library(tmp_path / "lib.bib", **FILES[kind])
    store.load(path)
    with store.transaction(path) as lib:
        lib.add(record("added", "misc", title="Appended", year="2024"))
    before = path.read_bytes()
    with store.transaction(path) as lib:
        old = lib["e9"]
        lib.replace(old, old.copy(fields={**old.fields, "note": "changed \u00fcber"}))
        lib.remove("e3")
    after = path.read_bytes()
    full = store.load(path, use_cache=False)
    assert after == (b"\xef\xbb\xbf" if full.bom else b"") + full.text.encode("utf-8")
    assert full["e9"].fields["note"] == "changed \u00fcber" and "e3" not in full
    assert cached_view(path) == reread(path)
    store.undo(path)
    assert path.read_bytes() == before


def test_records_read_from_the_cache_get_their_fields_when_asked(tmp_path):
    path = big_library(tmp_path / "lib.bib")
    first = store.load(path)
    again = store.load(path)
    assert again.document.cached
    rec = again["e5"]
    assert isinstance(rec, cache.Shelved)
    assert rec.fields == first["e5"].fields and rec == first["e5"]
    assert rec.title == "Stable Things Number 5"
    # an edit of one record and a save: the others' fields are written back unread
    with store.transaction(path) as lib:
        old = lib["e5"]
        lib.replace(old, old.copy(fields={**old.fields, "year": "1999"}))
    assert store.load(path, use_cache=False)["e5"].fields["year"] == "1999"
    assert cached_view(path) == reread(path)


def test_a_file_changed_by_another_program_before_the_save_is_journaled_as_it_was(tmp_path):
    path = big_library(tmp_path / "lib.bib")
    store.load(path)
    with store.transaction(path) as lib:
        lib.add(record("mine", "misc", title="Mine", year="2024"))
        # another program writes the file while the command works (outside the lock)
        other = path.read_bytes().replace(b"Number 2}", b"Number two}")
        path.write_bytes(other)
    written = path.read_bytes()
    assert b"Number two}" not in written and b"mine," in written
    store.undo(path)
    assert path.read_bytes() == other


@pytest.mark.parametrize("with_areas", [False, True])
def test_the_key_index_for_tab_follows_adds_as_a_full_refresh_would(tmp_path, with_areas):
    from pubcli.local import keyindex

    path = big_library(tmp_path / "lib.bib")
    store.load(path)
    keyindex.index_of(path, areas=with_areas)  # a TAB made the index
    for i in range(2):
        with store.transaction(path) as lib:
            lib.add(record(f"new{i}", "misc", title=f"Appended {i}", year="2024",
                           keywords=f"Area {i}"))
        kept = keyindex.read_index(path, keyindex.stamp(path))
        assert kept is not None
        full = store.load(path, use_cache=False)
        assert kept.lines == keyindex.Index.of([(r.key, r.line, r.type) for r in full],
                                               None).lines
        assert kept.lines == keyindex.scan(path.read_bytes()).lines
        assert kept.areas == ([f"Area {n}" for n in range(i + 1)] if with_areas else None)
    with store.transaction(path) as lib:  # not an append: refreshed from every record
        lib.remove("e2")
    kept = keyindex.read_index(path, keyindex.stamp(path))
    assert kept is not None and kept.lines == keyindex.scan(path.read_bytes()).lines
    assert "\te2\t" not in kept.lines and kept.areas == ["Area 0", "Area 1"]


@pytest.mark.parametrize("kind", FILES)
def test_undo_of_edits_spread_over_the_file_keeps_only_the_places_they_changed(tmp_path, kind):
    from pubcli.store import journal

    path = big_library(tmp_path / "lib.bib", **FILES[kind])
    store.load(path)
    before = path.read_bytes()
    with store.transaction(path) as lib:
        keys = [r.key for r in lib.records]
        for key in (keys[0], keys[len(keys) // 2], keys[-1]):  # first, middle and last
            old = lib[key]
            lib.replace(old, old.copy(fields={**old.fields, "note": "tagged \u00e0 la fin"}))
        lib.remove(keys[5])
        lib.add(record("added", "misc", title="Appended", year="2024"))
    after = path.read_bytes()
    full = store.load(path, use_cache=False)
    assert after == (b"\xef\xbb\xbf" if full.bom else b"") + full.text.encode("utf-8")
    last = journal.steps(path)[-1]  # the places kept, not the file between them
    assert len(last.spans) == 5 and len(zlib.decompress(last.middle)) < 2000
    store.undo(path)
    assert path.read_bytes() == before


def test_spans_that_do_not_say_where_the_bytes_differ_are_not_trusted():
    from pubcli.store import journal

    old = b"aaaa-OLD1-bbbb-OLD2-cccc"
    new = b"aaaa-new one-bbbb-NEW2-cccc"
    right = [(5, 7, 5, 4), (18, 4, 15, 4)]
    got = journal.step_of_spans(old, new, right, "x")
    assert got is not None and journal.undo_bytes(got, new) == old
    for wrong in ([(5, 7, 5, 4)], [(5, 7, 5, 4), (19, 3, 16, 3)], [(4, 7, 5, 4)]):
        assert journal.step_of_spans(old, new, wrong, "x") is None
