"""The store: byte-for-byte round trips, one-entry rewrites, verbatim broken
blocks, atomic saves, locking, the parse cache and clear errors."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pubcli import bibtex, store
from pubcli.errors import LibraryNotFound, LibraryReadError, ValidationError, WriteError
from pubcli.schema.model import Record

from .conftest import ROOT, SHIPPED, write

TRICKY = sorted((ROOT / "tests" / "data" / "tricky").glob("*.bib"))


def copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copy(src, dst)
    return dst


def diff_outside(old: bytes, new: bytes, start: int, end: int) -> None:
    """Assert ``new`` equals ``old`` except that old[start:end] was replaced."""
    assert new[:start] == old[:start]
    tail = len(old) - end
    assert new[len(new) - tail:] == old[end:]


# ------------------------------------------------------------------ round trip
@pytest.mark.parametrize("path", TRICKY + [SHIPPED], ids=lambda p: p.name)
def test_load_then_save_writes_the_same_bytes(path, tmp_path):
    lib_path = copy(path, tmp_path)
    before = lib_path.read_bytes()
    lib = store.load(lib_path)
    # a forced save, even with nothing changed
    store.save(lib, lib_path)
    assert lib_path.read_bytes() == before


def test_tricky_files_are_read_as_bibtex_means_them():
    lib = store.load(ROOT / "tests/data/tricky/macros_comments.bib")
    knuth = lib["Knuth1984"]
    assert knuth.fields["publisher"] == "ACM Press and IEEE"   # @string and # concatenation
    assert knuth.fields["month"] == "May"                      # month macro
    assert knuth.fields["year"] == "1984"
    assert knuth.fields["x-custom-field"] == "kept {nested {deeply}}"
    assert knuth.line == 6
    # a backslash escapes nothing in BibTeX: "Quoted \" ends the value, and the rest of
    # the entry is an error (the real bibtex says so); the entry is kept, unread
    assert "spaced" not in lib
    assert [(p.line, "expected ',' or '}', found 't'" in p.message) for p in lib.problems] == \
        [(17, True)]

    crlf = store.load(ROOT / "tests/data/tricky/crlf_no_final_newline.bib")
    assert crlf.newline == "\r\n"
    assert [r.key for r in crlf] == ["crlf1", "crlf2"]

    bom = store.load(ROOT / "tests/data/tricky/bom.bib")
    assert bom.bom and bom["bom1"].title == "Has a BOM"


def test_odd_spacing_duplicate_keys_and_fields_are_reported():
    lib = store.load(ROOT / "tests/data/tricky/odd_spacing.bib")
    assert [r.key for r in lib] == ["a", "b", "c", "paren", "dupfield", "a"]
    assert lib["paren"].title == "Parenthesised entry"
    messages = [(p.line, p.message) for p in lib.problems]
    assert any(line == 9 and "duplicate key 'a'" in m for line, m in messages)
    assert any(line == 8 and "duplicate field" in m for line, m in messages)


def test_broken_blocks_are_kept_verbatim_and_reported_with_their_line(tmp_path):
    path = copy(ROOT / "tests/data/tricky/broken_block.bib", tmp_path)
    before = path.read_bytes()
    lib = store.load(path)
    assert [r.key for r in lib] == ["good1", "good2", "good3"]
    assert [p.line for p in lib.problems] == [6, 13, 17]
    assert "entry 'broken': expected ',' or '}', found 't'" in lib.problems[0].message
    assert "'title' in entry 'unbalanced' is never closed" in lib.problems[1].message
    # BibTeX reads good3 as part of the unclosed title: shown, never written into
    assert "BibTeX does not read this entry" in lib.problems[2].message
    with pytest.raises(ValidationError, match="BibTeX does not read this entry"):
        lib.replace("good3", lib["good3"].copy(fields={**lib["good3"].fields, "year": "2004"}))
        store.save(lib)
    lib = store.load(path)
    # edit an entry between the broken blocks: the broken text survives untouched
    good2 = lib["good2"]
    lib.replace("good2", good2.copy(fields={**good2.fields, "year": "2004"}))
    store.save(lib)
    after = path.read_bytes()
    assert b"@article{broken title = {no comma after key}}" in after
    assert b"@book{unbalanced,\n  title = {Missing brace,\n  year = {2003}\n" in after
    assert after.replace(b"year = {2004}", b"year = {2002}") == before


# ------------------------------------------------------------------ editing
def test_changing_one_entry_rewrites_only_that_entry(library):
    before = library.read_bytes()
    lib = store.load(library)
    rec = lib["yan2016serf"]
    start, end = rec.source.start, rec.source.end
    new = rec.copy(fields={**rec.fields, "keywords": "Systems and networking, Hardware and devices",
                           "note": "Best paper"})
    del new.fields["isbn"]
    lib.replace(rec.key, new)
    store.save(lib)
    after = library.read_bytes()
    text = before.decode()
    diff_outside(before, after, len(text[:start].encode()), len(text[:end].encode()))
    entry = store.load(library)["yan2016serf"]
    assert entry.fields["note"] == "Best paper"
    assert "isbn" not in entry.fields
    assert entry.areas == ["Systems and networking", "Hardware and devices"]
    # the entry keeps its own layout: untouched fields keep their lines
    new_text = after.decode()[start:]
    assert "  booktitle = {SC'16},\n" in new_text.split("\n}\n")[0]
    assert "  note = {Best paper},\n}" in new_text


def test_patch_keeps_macros_and_spacing_of_untouched_fields(tmp_path):
    path = copy(ROOT / "tests/data/tricky/macros_comments.bib", tmp_path)
    lib = store.load(path)
    rec = lib["Knuth1984"]
    lib.replace(rec.key, rec.copy(fields={**rec.fields, "title": "Literate Programming, 2nd"}))
    store.save(lib)
    text = path.read_text()
    assert 'publisher = acm # " and " # ieee' in text
    assert '\tAuthor    =   "Donald E. Knuth",' in text
    assert "\tTitle = {Literate Programming, 2nd}," in text
    assert store.load(path)["Knuth1984"].fields["publisher"] == "ACM Press and IEEE"


def test_new_entries_are_appended_and_nothing_else_changes(library):
    before = library.read_bytes()
    lib = store.load(library)
    lib.add(Record("doe2025new", "misc", {"title": "A New {Thing}", "author": "Doe, Jane",
                                          "year": "2025"}))
    store.save(lib)
    after = library.read_bytes()
    assert after.startswith(before)
    assert after[len(before):] == (b"\n@misc{doe2025new,\n  title = {A New {Thing}},\n"
                                   b"  author = {Doe, Jane},\n  year = {2025},\n}\n")
    assert store.load(library)["doe2025new"].title == "A New {Thing}"


def test_append_to_crlf_file_without_final_newline_uses_crlf(tmp_path):
    path = copy(ROOT / "tests/data/tricky/crlf_no_final_newline.bib", tmp_path)
    before = path.read_bytes()
    lib = store.load(path)
    lib.add(Record("n1", "misc", {"title": "T"}))
    store.save(lib)
    after = path.read_bytes()
    assert after.startswith(before)
    assert after[len(before):] == b"\r\n\r\n@misc{n1,\r\n  title = {T},\r\n}\r\n"


def test_removing_an_entry_cuts_only_its_text(library):
    lib = store.load(library)
    before = library.read_text()
    rec = lib["dogar2008ditto"]
    entry_text = before[rec.source.start:rec.source.end]
    lib.remove("dogar2008ditto")
    store.save(lib)
    after = library.read_text()
    assert after == before.replace(entry_text + "\n\n", "")
    assert len(store.load(library)) == 19


def test_bom_is_kept_when_an_entry_changes(tmp_path):
    path = copy(ROOT / "tests/data/tricky/bom.bib", tmp_path)
    lib = store.load(path)
    rec = lib["bom1"]
    lib.replace("bom1", rec.copy(fields={**rec.fields, "year": "2020"}))
    store.save(lib)
    assert path.read_bytes() == b"\xef\xbb\xbf@misc{bom1,\n  title = {Has a BOM},\n  year = {2020}\n}\n"


def test_invalid_values_are_refused_before_anything_is_written(library):
    before = library.read_bytes()
    lib = store.load(library)
    rec = lib["wang2024zero"]
    lib.replace(rec.key, rec.copy(fields={**rec.fields, "title": "Unbalanced {brace"}))
    with pytest.raises(ValidationError, match="unbalanced braces"):
        store.save(lib)
    lib2 = store.load(library)
    with pytest.raises(ValidationError, match="not a valid BibTeX key"):
        lib2.add(Record("bad key", "misc", {"title": "x"}))
        store.save(lib2)
    assert library.read_bytes() == before


def test_entry_with_duplicate_field_is_not_patched_blindly(tmp_path):
    path = copy(ROOT / "tests/data/tricky/odd_spacing.bib", tmp_path)
    before = path.read_bytes()
    lib = store.load(path)
    rec = lib["dupfield"]
    lib.replace("dupfield", rec.copy(fields={**rec.fields, "year": "2001"}))
    with pytest.raises(ValidationError, match="duplicate field"):
        store.save(lib)
    assert path.read_bytes() == before


# ------------------------------------------------------------------ atomicity and locking
def test_a_save_interrupted_before_the_rename_leaves_the_old_file(library, monkeypatch):
    before = library.read_bytes()
    lib = store.load(library)
    lib.add(Record("x2025y", "misc", {"title": "Never written"}))

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(WriteError, match="No space left on device.*old file is unchanged"):
        store.save(lib)
    assert library.read_bytes() == before
    assert [p.name for p in library.parent.iterdir() if p.name.endswith(".pubcli-tmp")] == []


def test_save_keeps_permissions_and_symlinks(library, tmp_path):
    os.chmod(library, 0o640)
    link = tmp_path / "link.bib"
    link.symlink_to(library)
    lib = store.load(link)
    lib.add(Record("x2025y", "misc", {"title": "Through a link"}))
    store.save(lib)
    assert link.is_symlink()
    assert stat.S_IMODE(library.stat().st_mode) == 0o640
    assert "x2025y" in store.load(library)


WRITER = """
import sys
from pubcli import store
from pubcli.schema.model import Record
path, prefix, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    with store.transaction(path) as lib:
        lib.add(Record(f"{prefix}{i}", "misc", {"title": f"Entry {prefix} {i}", "year": "2020"}))
"""


def test_two_processes_adding_at_once_lose_nothing(library):
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(library), p, "25"])
             for p in ("left", "right")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    lib = store.load(library)
    assert lib.problems == []
    keys = set(lib.keys())
    assert {f"left{i}" for i in range(25)} <= keys
    assert {f"right{i}" for i in range(25)} <= keys
    assert len(lib) == 70


def test_transaction_discards_edits_when_the_block_fails(library):
    before = library.read_bytes()
    with pytest.raises(RuntimeError), store.transaction(library) as lib:
        lib.add(Record("x1", "misc", {"title": "x"}))
        raise RuntimeError("user code failed")
    assert library.read_bytes() == before


# ------------------------------------------------------------------ errors
def test_clear_errors_for_bad_paths(tmp_path):
    with pytest.raises(LibraryNotFound, match="no such file"):
        store.load(tmp_path / "missing.bib")
    with pytest.raises(LibraryReadError, match="is a folder"):
        store.load(tmp_path)
    latin1 = write(tmp_path / "latin1.bib", "@misc{a,\n title={Caf\xe9}}\n".encode("latin-1"))
    with pytest.raises(LibraryReadError) as e:
        store.load(latin1)
    assert str(e.value).startswith(f"{latin1}:2: not valid UTF-8 (byte 0xe9)")
    utf16 = write(tmp_path / "utf16.bib", "@misc{a, title={x}}".encode("utf-16"))
    with pytest.raises(LibraryReadError, match="UTF-16"):
        store.load(utf16)
    with pytest.raises(LibraryNotFound, match="empty"):
        store.load("")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path):
    p = write(tmp_path / "secret.bib", "@misc{a, title={x}}")
    os.chmod(p, 0)
    with pytest.raises(LibraryReadError, match="permission denied"):
        store.load(p)


# ------------------------------------------------------------------ cache
def big_library(tmp_path: Path, n: int = 800) -> Path:
    entries = [f"@article{{k{i},\n  title = {{Title number {i} about M{{\\\"u}}ller}},\n"
               f"  author = {{Doe, Jane and Roe, Richard}},\n  journal = jcs,\n"
               f"  year = {1990 + i % 30},\n  abstract = {{{'words ' * 40}}}\n}}\n"
               for i in range(n)]
    return write(tmp_path / "big.bib", '@string{jcs = "J. Comp. Sci."}\n' + "\n".join(entries))


def snapshot(lib):
    return [(r.key, r.type, r.fields, r.line, r.source.start, r.source.end) for r in lib]


def test_cache_never_changes_what_is_loaded(tmp_path, monkeypatch):
    path = big_library(tmp_path)
    cold = store.load(path)
    cache_files = list(store.cache_dir().glob("*.marshal"))
    assert len(cache_files) == 1
    warm = store.load(path)
    assert snapshot(warm) == snapshot(cold)
    assert warm["k1"].fields["journal"] == "J. Comp. Sci."
    # an edit of the file (same size, same mtime) invalidates the cache
    data = path.read_bytes().replace(b"Title number 7 ", b"Title NUMBER 7 ")
    st = path.stat()
    path.write_bytes(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert store.load(path)["k7"].title.startswith("Title NUMBER 7")


def test_cache_written_by_others_is_ignored(tmp_path):
    path = big_library(tmp_path)
    store.load(path)
    (cache,) = store.cache_dir().glob("*.marshal")
    os.chmod(cache, 0o666)  # anyone could have planted this
    assert store._cache_read(path, "x", 0) is None
    lib = store.load(path)
    assert len(lib) == 800


def test_save_refreshes_the_cache_so_the_next_load_is_warm(tmp_path):
    path = big_library(tmp_path)
    lib = store.load(path)
    lib.add(Record("new1", "misc", {"title": "Appended"}))
    store.save(lib)
    import hashlib
    data = path.read_bytes()
    cached = store._cache_read(path, hashlib.blake2b(data, digest_size=20).hexdigest(), len(data))
    assert cached is not None
    assert [r.key for r in cached.records][-1] == "new1"
    assert snapshot(store.load(path)) == snapshot(store.load(path, use_cache=False))


# ------------------------------------------------------------------ the fast parse path
def test_fast_path_agrees_with_the_general_reader_on_every_tricky_file():
    for path in TRICKY + [SHIPPED]:
        text = path.read_bytes().decode("utf-8-sig")
        fast, slow = bibtex.parse(text), bibtex.parse(text, fast=False)
        assert [(r.key, r.type, r.fields, r.line, r.source.start, r.source.end)
                for r in fast.records] == \
            [(r.key, r.type, r.fields, r.line, r.source.start, r.source.end)
             for r in slow.records], path.name
        assert [(f.line, f.start, f.raw) for f in fast.failed] == \
            [(f.line, f.start, f.raw) for f in slow.failed], path.name


def test_after_a_save_the_library_in_memory_matches_the_file(library):
    """Offsets and lines are brought up to date without re-parsing: they must agree
    with a fresh load after replacing, removing and adding entries together."""
    lib = store.load(library)
    for key, note in (("wang2024zero", "A long note\nover two lines"), ("ruwase2004practical", "x")):
        rec = lib[key]
        lib.replace(key, rec.copy(fields={**rec.fields, "note": note}))
    rec = lib["dogar2008ditto"]
    lib.replace(rec.key, rec.copy(key="dogar2008dittonew"))
    lib.remove("yan2016serf")
    lib.remove("abdin2024phi3")
    for i in range(3):
        lib.add(Record(f"new{i}", "misc", {"title": f"New {i}", "note": "two\nlines"}))
    store.save(lib)
    fresh = store.load(library, use_cache=False)
    assert snapshot(lib) == snapshot(fresh)
    def written(lib):  # how each entry's fields are written, read back from its text
        return [(bibtex.written_fields(lib.text[r.source.start:r.source.end]),
                 r.source.key_written) for r in lib]

    assert written(lib) == written(fresh)
    assert all(w is not None for w, _ in written(fresh))
    # and a second round of edits on the rebased library still writes the right text
    rec = lib["new1"]
    lib.replace("new1", rec.copy(fields={**rec.fields, "year": "2026"}))
    rec = lib["seshadri2015page"]
    lib.replace(rec.key, rec.copy(fields={**rec.fields, "pages": "216--228"}))
    store.save(lib)
    fresh = store.load(library, use_cache=False)
    assert snapshot(lib) == snapshot(fresh)
    assert fresh["new1"].fields["year"] == "2026"
    assert fresh["seshadri2015page"].fields["pages"] == "216--228"


def test_rebase_keeps_broken_blocks_lines(tmp_path):
    path = copy(ROOT / "tests/data/tricky/broken_block.bib", tmp_path)
    lib = store.load(path)
    rec = lib["good1"]
    lib.replace("good1", rec.copy(fields={**rec.fields, "note": "one\ntwo\nthree"}))
    store.save(lib)
    fresh = store.load(path, use_cache=False)
    assert [(p.line, p.message) for p in lib.problems] == \
        [(p.line, p.message) for p in fresh.problems]
    assert [p.line for p in fresh.problems] == [9, 16, 20]  # three more lines above them


def test_old_cache_temp_files_are_cleaned(tmp_path):
    path = big_library(tmp_path)
    store.load(path)
    stale = store.cache_dir() / "tmpabandoned.tmp"
    stale.write_bytes(b"half a cache")
    os.utime(stale, (0, 0))  # written long ago by a killed process
    fresh = store.cache_dir() / "tmpinprogress.tmp"
    fresh.write_bytes(b"being written right now")
    lib = store.load(path)
    lib.add(Record("z1", "misc", {"title": "x"}))
    store.save(lib)  # refreshes the cache
    assert not stale.exists() and fresh.exists()


def test_a_library_made_in_memory_lists_its_records_but_has_no_file_to_write(tmp_path):
    from pubcli.store.library import NoDocument

    lib = store.Library([Record("a1", "misc", {"title": "T"})])
    assert (lib.problems, lib.text, lib.newline, lib.bom, lib.macros, lib.failed) == \
        ([], "", "\n", False, {}, [])
    assert lib["a1"].fields == {"title": "T"}
    with pytest.raises(NoDocument, match="made in memory"):
        store.save(lib, tmp_path / "out.bib")
    assert not (tmp_path / "out.bib").exists()
    assert store.loads("@misc{a1, title = {T}}\n").document.text == "@misc{a1, title = {T}}\n"
