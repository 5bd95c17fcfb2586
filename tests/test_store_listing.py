"""Read-only listings from the display cache (pubcli.store.listing): a warm listing
shows and reports exactly what a cold one does, and reads records' fields only when
something asks for them."""

from __future__ import annotations

from pathlib import Path

from pubcli import store
from pubcli.store import cache

from .conftest import write
from .test_cache import big_library


def facts(records):
    return [(r.key, r.type, r.row, r.fields, r.line, r.source.start, r.source.end,
             r.source.read_only) for r in records]


def test_a_warm_listing_has_the_records_and_problems_a_full_load_has(tmp_path, cli):
    path = big_library(tmp_path)
    with open(path, "a", encoding="utf-8") as fh:  # a key used twice: a problem to report
        fh.write("\n@misc{K7,\n  title = {Same key, other case},\n  year = 2001\n}\n")
    cold = cli("list", "-l", path, env={"PUBCLI_NO_CACHE": "1"})
    assert "duplicate key 'K7'" in cold.stderr and "could not parse" in cold.stderr
    cli("list", "-l", path)  # fills the caches
    listing = store.listing(path)
    assert listing.library is None, "not made from the display cache"
    full = store.load(path, display=True)
    assert [(p.line, p.message, p.kind) for p in listing.problems] == \
        [(p.line, p.message, p.kind) for p in full.problems]
    assert facts(listing.records) == facts(full.records)  # fields, lines, sources on demand
    warm = cli("list", "-l", path)
    assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)


def test_a_warm_listing_reads_fields_only_when_asked(tmp_path, cli, monkeypatch):
    path = big_library(tmp_path)
    cold = {args: cli("list", *args, "-l", path, env={"PUBCLI_NO_CACHE": "1"}).stdout
            for args in [("--by", "venue"), ("--area", "area 2", "--format", "csv"),
                         ("--search", "number 12 zola"), ("--format", "json")]}
    cli("list", "-l", path)
    reads = []
    real = cache.read_parse_items
    monkeypatch.setattr(cache, "read_parse_items", lambda *a: reads.append(1) or real(*a))
    for args, text in cold.items():
        reads.clear()
        assert cli("list", *args, "-l", path).stdout == text, args
        needs_fields = "--search" in args or "json" in args
        assert reads == ([1] if needs_fields else []), args


def test_a_warm_listing_follows_saves(tmp_path, cli):
    path = big_library(tmp_path)
    cli("list", "-l", path)
    assert cli("tag", "k5", "--add", "Area 9", "--new", "-l", path).exit_code == 0
    assert cli("add", "--type", "misc", "--title", "New {\\TeX} thing", "--author", "Ann Lee",
               "--year", "2031", "--no-interactive", "-l", path).exit_code == 0
    assert cli("remove", "k3", "--yes", "-l", path).exit_code == 0
    listing = store.listing(path)
    assert listing.library is None
    cold = cli("list", "--by", "area", "-l", path, env={"PUBCLI_NO_CACHE": "1"})
    warm = cli("list", "--by", "area", "-l", path)
    assert (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)
    assert "Area 9 (1 publication)" in warm.stdout and "New TeX thing" in warm.stdout


def test_a_warm_listing_shows_what_entries_inherit(tmp_path, cli):
    path = big_library(tmp_path)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("\n@inproceedings{child,\n  title = {A Child Paper},\n  author = {Ann Lee},\n"
                 "  crossref = {conf}\n}\n\n@proceedings{conf,\n  title = {Inherited Venue},\n"
                 "  year = 2033\n}\n")
    cold = cli("list", "--by", "venue", "-l", path, env={"PUBCLI_NO_CACHE": "1"}).stdout
    assert "Inherited Venue (1 publication)" in cold
    cli("list", "-l", path)
    assert store.listing(path).inherits is True
    assert cli("list", "--by", "venue", "-l", path).stdout == cold


def test_a_small_file_or_a_cold_cache_is_loaded_in_full(tmp_path):
    small = write(tmp_path / "small.bib", "@misc{a,\n  title = {A}\n}\n")
    assert store.listing(small).library is not None
    path = big_library(tmp_path)
    first = store.listing(Path(path))
    assert first.library is not None and first.records[0].row is not None
    assert store.listing(path).library is None  # the first one wrote the display cache


def test_a_warm_json_listing_is_written_from_kept_entries_without_reading_fields(
        tmp_path, cli, monkeypatch):
    path = big_library(tmp_path)

    def cold() -> dict[str, str]:
        return {by: cli("list", "--format", "json", "--by", by, "-l", path,
                        env={"PUBCLI_NO_CACHE": "1"}).stdout for by in ("year", "none", "area")}

    before = cold()
    assert cli("list", "--format", "json", "-l", path).stdout == before["year"]  # fills caches
    assert cache.cache_file(path, ".json").exists()
    reads = []
    real = cache.read_parse_items
    monkeypatch.setattr(cache, "read_parse_items", lambda *a: reads.append(1) or real(*a))
    for by, text in before.items():
        assert cli("list", "--format", "json", "--by", by, "-l", path).stdout == text, by
    assert reads == []
    with open(path, "a", encoding="utf-8") as fh:  # an entry that inherits: made afresh
        fh.write("\n@inproceedings{child,\n  title = {A Child Paper},\n  author = {Ann Lee},\n"
                 "  crossref = {conf}\n}\n\n@proceedings{conf,\n  title = {Inherited Venue},\n"
                 "  year = 2033,\n  doi = {10.1000/conf}\n}\n")
    after = cold()
    assert '"venue": "Inherited Venue"' in after["none"]  # the child's, from its parent
    cli("list", "--format", "json", "-l", path)
    for by, text in after.items():
        assert cli("list", "--format", "json", "--by", by, "-l", path).stdout == text, by


def test_a_json_listing_follows_saves_and_a_short_selection_keeps_no_forms(tmp_path, cli):
    path = big_library(tmp_path)
    kept = cache.cache_file(path, ".json")
    assert cli("list", "--format", "json", "--search", "number 12 zola", "-l", path).exit_code == 0
    assert not kept.exists(), "twelve entries are made directly, not all 900 kept"
    cli("list", "--format", "json", "-l", path)
    assert cli("tag", "k5", "--add", "Area 9", "--new", "-l", path).exit_code == 0
    cold = cli("list", "--format", "json", "-l", path, env={"PUBCLI_NO_CACHE": "1"}).stdout
    assert '"Area 9"' in cold
    assert cli("list", "--format", "json", "-l", path).stdout == cold
