"""The parse cache and the display cache (pubcli.store.cache): what a warm load
returns is what a cold one would, saves append to the caches instead of
rewriting them, and a damaged cache is rebuilt rather than trusted."""

from __future__ import annotations

import os
from pathlib import Path

from pubcli import store
from pubcli.text.display import compute_row
from pubcli.schema.model import Record
from pubcli.store import cache

from .conftest import write


def big_library(tmp_path: Path, n: int = 900) -> Path:
    entries = []
    for i in range(n):
        entries.append(
            f"@article{{k{i},\n  title = {{Title number {i} about M{{\\\"u}}ller and {{GPU}}s}},\n"
            f"  author = {{Doe, Jane and Roe, Richard and {{\\'E}}mile Zola}},\n"
            f"  journal = jcs,\n  year = {1990 + i % 30},\n  keywords = {{Area {i % 3}}},\n"
            f"  abstract = {{{'words ' * 40}}}\n}}\n")
        if i == 400:
            entries.append("@article{broken,\n  title {no equals sign}\n}\n")
    text = '@string{jcs = "J. Comp. Sci."}\n' + "\n".join(entries)
    path = write(tmp_path / "big.bib", text)
    assert path.stat().st_size >= cache.MIN_BYTES
    return path


def snapshot(lib):
    return ([(r.key, r.type, r.fields, r.line, r.source.start, r.source.end,
              r.source.type_written, r.source.key_written, r.source.read_only) for r in lib],
            [(f.line, f.start, f.raw) for f in lib.failed], lib.macros, lib.newline,
            [(p.line, p.message) for p in lib.problems])


def cache_file(path: Path, suffix: str = ".marshal") -> Path:
    return cache.cache_file(path, suffix)


def test_saves_append_to_the_cache_and_a_warm_load_matches_a_fresh_parse(tmp_path):
    path = big_library(tmp_path)
    store.load(path)  # writes the base
    cfile = cache_file(path)
    inode, size = cfile.stat().st_ino, cfile.stat().st_size
    steps = [
        lambda lib: lib.add(Record("new1", "misc", {"title": "Appended", "note": "two\nlines"})),
        lambda lib: lib.replace("k10", lib["k10"].copy(fields={**lib["k10"].fields,
                                                               "note": "a\nlong\nnote"})),
        lambda lib: lib.remove("k11"),
        lambda lib: (lib.remove("k0"), lib.remove("k899"), lib.remove("k402")),
        lambda lib: lib.replace("k500", lib["k500"].copy(key="k500renamed")),
    ]
    for step in steps:
        with store.transaction(path) as lib:
            step(lib)
        assert cfile.stat().st_ino == inode, "a save rewrote the whole cache"
        assert size < cfile.stat().st_size < size + 20_000
        size = cfile.stat().st_size
        warm = store.load(path)
        assert warm.document.cached
        assert snapshot(warm) == snapshot(store.load(path, use_cache=False))
    assert "k500renamed" in warm and "k11" not in warm and warm.records[-1].key == "new1"


def test_many_saves_end_in_a_fresh_base(tmp_path):
    path = big_library(tmp_path)
    store.load(path)
    cfile = cache_file(path)
    for i in range(cache.MAX_FRAMES + 2):
        with store.transaction(path) as lib:
            lib.add(Record(f"n{i}", "misc", {"title": f"Number {i}"}))
    assert len(cache.frames(cfile.read_bytes())) < cache.MAX_FRAMES
    assert snapshot(store.load(path)) == snapshot(store.load(path, use_cache=False))


def test_a_damaged_cache_is_rebuilt_not_trusted(tmp_path):
    path = big_library(tmp_path)
    store.load(path)
    (cfile,) = store.cache_dir().glob("*.marshal")
    data = bytearray(cfile.read_bytes())
    at = data.index(b"Title number 7 about")
    data[at:at + 5] = b"Tight"  # same length: it still unmarshals, to the wrong title
    cfile.write_bytes(bytes(data))
    os.chmod(cfile, 0o600)
    lib = store.load(path)
    assert lib["k7"].title.startswith("Title number 7 ")
    assert b"Tight" not in cfile.read_bytes()  # rebuilt by that load
    assert store.load(path)["k7"].title.startswith("Title number 7 ")


def test_a_torn_cache_file_is_rebuilt(tmp_path):
    path = big_library(tmp_path)
    store.load(path)
    with store.transaction(path) as lib:
        lib.add(Record("new1", "misc", {"title": "x"}))
    cfile = cache_file(path)
    cfile.write_bytes(cfile.read_bytes()[:-7])  # a delta cut short (killed while appending)
    lib = store.load(path)
    assert lib.records[-1].key == "new1"
    assert snapshot(lib) == snapshot(store.load(path, use_cache=False))


def test_display_rows_come_from_the_cache_and_follow_saves(tmp_path, cli):
    path = big_library(tmp_path)
    first = cli("list", "--by", "year", "-l", str(path))
    rows_file = cache_file(path, ".rows")
    assert rows_file.exists()
    lib = store.load(path, display=True)
    assert lib.document.rows_cached
    assert all(rec.row == compute_row(Record(rec.key, rec.type, rec.fields)) for rec in lib)
    again = cli("list", "--by", "year", "-l", str(path))
    assert again.stdout == first.stdout
    inode = rows_file.stat().st_ino
    assert cli("tag", "k5", "k6", "--add", "Area 1", "-l", str(path)).exit_code == 0
    assert cli("add", "--type", "misc", "--title", "A new {\\TeX} thing", "--author",
               "Ann Lee", "--year", "2024", "--no-interactive", "-l", str(path)).exit_code == 0
    assert rows_file.stat().st_ino == inode, "a save rewrote the display cache"
    lib = store.load(path, display=True)
    assert lib.document.rows_cached
    assert lib["k5"].row.areas == ("Area 2", "Area 1")
    assert all(rec.row == compute_row(Record(rec.key, rec.type, rec.fields)) for rec in lib)
    cold = cli("list", "--by", "year", "-l", str(path), env={"PUBCLI_NO_CACHE": "1"})
    assert cli("list", "--by", "year", "-l", str(path)).stdout == cold.stdout


def test_a_record_never_shows_a_row_of_other_fields():
    rec = Record("a", "article", {"title": "Old", "year": "2001", "keywords": "X"})
    rec.row = compute_row(rec)
    new = rec.copy(fields={**rec.fields, "title": "New", "year": "2002"})
    assert new.row is None and new.year == 2002 and compute_row(new).title == "New"


def test_a_frame_still_being_appended_does_not_spoil_the_ones_before(tmp_path):
    """A reader that finds another process's delta half-written reads the frames before
    it: the version it holds is still served from the cache, which is left alone."""
    path = big_library(tmp_path)
    store.load(path)
    cfile = cache_file(path)
    whole = cfile.read_bytes()
    cfile.write_bytes(whole + cache.frame(("delta", "x", "y", 1, [], {}, None))[:-3])
    inode = cfile.stat().st_ino
    lib = store.load(path)
    assert lib.document.cached and cfile.stat().st_ino == inode
    assert snapshot(lib) == snapshot(store.load(path, use_cache=False))


def test_a_changed_module_makes_the_caches_stale(tmp_path, monkeypatch):
    """A fix pulled into the code (latex.py, the reader...) must not hide behind a warm
    cache: the caches are keyed on the code that made them."""
    tree = tmp_path / "pkg"
    (tree / "sub").mkdir(parents=True)
    (tree / "a.py").write_text("x = 1\n")
    (tree / "sub" / "b.py").write_text("y = 2\n")
    first = cache.code_version(tree)
    cache.code_version.cache_clear()
    assert cache.code_version(tree) == first  # same code, same version
    (tree / "sub" / "b.py").write_text("y = 22\n")  # a fix lands
    cache.code_version.cache_clear()
    assert cache.code_version(tree) != first

    from pubcli import bibtex

    path = big_library(tmp_path)
    store.load(path)
    parses = []
    real_parse = bibtex.parse
    monkeypatch.setattr(bibtex, "parse", lambda text, **kw: parses.append(1) or
                        real_parse(text, **kw))
    store.load(path)
    assert parses == []  # warm: served from the cache
    monkeypatch.setattr(cache, "code_version", lambda root=None: "other code")
    store.load(path)
    assert parses == [1]  # the code changed: parsed again, the cache never served
    store.load(path)
    assert parses == [1]


def test_a_load_for_fmt_has_the_fields_as_written_from_the_cache_as_a_parse_gives_them(
        tmp_path):
    """``pubcli fmt`` rewrites entries from their fields as written: a warm load that
    asks for them (``written=True``) gets them from the cache as a fresh parse gives
    them; after a save (a delta of the parse cache) the cache has none (fmt reads the
    entries' text again), and other loads never have them."""
    path = big_library(tmp_path)
    store.load(path)  # a parse: writes the bases
    fresh = store.load(path, use_cache=False, written=True)
    warm = store.load(path, written=True)
    assert warm.document.cached and snapshot(warm) == snapshot(fresh)
    assert [cache.written_of(r.source) for r in warm] == [r.source.fields for r in fresh]
    assert warm["k13"].source.fields is None and cache.written_of(warm["k13"].source) == (
        ("title", "{Title number 13 about M{\\\"u}ller and {GPU}s}"),
        ("author", "{Doe, Jane and Roe, Richard and {\\'E}mile Zola}"),
        ("journal", "jcs"), ("year", "2003"), ("keywords", "{Area 1}"),
        ("abstract", "{" + "words " * 40 + "}"))
    assert all(cache.written_of(r.source) is None for r in store.load(path))  # when asked
    with store.transaction(path) as lib:
        lib.replace("k10", lib["k10"].copy(fields={**lib["k10"].fields, "note": "new"}))
    warm = store.load(path, written=True)
    assert warm.document.cached
    assert all(cache.written_of(r.source) is None for r in warm)
    assert snapshot(warm) == snapshot(store.load(path, use_cache=False))
