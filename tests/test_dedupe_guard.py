"""The duplicate guard (pubcli.dedupe.guard): an explicit object per command, and the
weights it carries from one version of a library to the next it writes."""

from __future__ import annotations

import pytest

from pubcli import dedupe, store
from pubcli.dedupe import Guard, matchcache
from pubcli.dedupe.matcher import Matcher

from .conftest import record, write

BASE = dict(author="Kim, Dae and Lee, Ann", year="2020",
            title="Verified Garbage Collection for Concurrent Runtimes")


def _library_text(n: int = 40) -> str:
    """A small library of distinct works (enough pairs for an estimate)."""
    words = ["lattice", "kernel", "sparse", "graph", "stream", "cache", "proof", "query",
             "vector", "tensor"]
    out = []
    for i in range(n):
        a, b, c = words[i % 10], words[(i // 10) % 10], words[(i * 7) % 10]
        out.append(f"@article{{w{i},\n  author = {{Author{i}, A. and Other{i % 7}, B.}},\n"
                   f"  title = {{On {a} {b} methods for {c} problems {i}}},\n"
                   f"  journal = {{Journal {i % 3}}},\n  year = {{{2000 + i % 20}}},\n}}\n")
    return "\n".join(out)


def test_the_package_keeps_no_identity_cache():
    """No module-level state keyed on id(): a sequence judged twice is judged afresh."""
    assert not any(name.endswith("CACHE") for name in vars(dedupe))
    records = [record("a", "article", **BASE)]
    new = record("b", "article", **{**BASE, "title": BASE["title"].lower()})
    assert [m.record.key for m in dedupe.find_matches(new, records)] == ["a"]
    records[0] = record("a", "article", **{**BASE, "title": "Something Else Entirely Now"})
    assert dedupe.find_matches(new, records) == []  # (a cache of the first list would say "a")


def test_a_guard_judges_against_the_entries_added_to_it():
    a = record("a", "article", **BASE)
    guard = Guard([a])
    b = record("b", "article", **{**BASE, "author": "Dae Kim and Ann Lee"})
    assert [m.record.key for m in guard.matches(b)] == ["a"]
    guard.add(b)
    c = record("c", "article", **{**BASE, "title": BASE["title"] + "."})
    assert {m.record.key for m in guard.matches(c)} == {"a", "b"}
    assert [m.record.key for m in guard.matches(b)] == ["a"]  # never its own match


def test_a_guard_over_other_records_judges_alike():
    a = record("a", "article", **BASE)
    guard = Guard([a])
    held = guard.over([])
    b = record("b", "article", **{**BASE, "author": "Dae Kim and Ann Lee"})
    assert held.matches(b) == []
    held.add(b)
    c = record("c", "article", **{**BASE, "title": BASE["title"] + "."})
    assert [m.record.key for m in held.matches(c)] == ["b"]
    assert held.matcher.model is guard.matcher.model


@pytest.fixture(autouse=True)
def _cached(monkeypatch):
    """Small test libraries get the caches a big library gets."""
    from pubcli.store import cache

    monkeypatch.setattr(cache, "MIN_BYTES", 0)


def _add(cli, library, title: str):
    r = cli("add", "--type", "misc", "--title", title, "--author", "Quill, Zed",
            "--year", "2025", "-l", library)
    assert r.exit_code == 0, r.output
    return store.load(library)


def test_add_carries_its_weights_to_the_version_it_wrote(cli, tmp_path, monkeypatch):
    library = write(tmp_path / "lib.bib", _library_text())
    first = store.load(library)
    after = _add(cli, library, "Benchmarking Quixotic Zebras Across Frozen Lakes")
    own = matchcache.read_weights(first.document.digest,
                                  Matcher(first.records, digest=first.document.digest)
                                  ._maker(), len(first.records))
    assert own is not None  # the first add estimated the weights of the file it read
    carried = matchcache.read_carried(after.document.digest, len(after.records))
    assert carried is not None
    kept, base = carried
    assert base[0] == first.document.digest and base[2] == len(first.records)
    assert kept[0].to_data() == own[0].to_data()  # the same weights, not new ones
    assert kept[3][-1] == Matcher([after.records[-1]], model=own[0]).index.titles[0]

    # the next add judges by them: it estimates nothing
    def no_estimate(self):
        raise AssertionError("estimated again")

    monkeypatch.setattr(Matcher, "_estimate", no_estimate)
    again = _add(cli, library, "Crystalline Ontologies of Migrating Ferrets")
    carried = matchcache.read_carried(again.document.digest, len(again.records))
    assert carried is not None and carried[1] == base  # still the first estimate's
    # ... and the third still finds a duplicate of the second's entry
    r = cli("add", "--type", "misc", "--title", "Crystalline ontologies of migrating ferrets",
            "--author", "Zed Quill", "--year", "2025", "-l", library)
    assert r.exit_code == 2 and "looks like a duplicate" in r.output


def test_dedupe_never_judges_by_carried_weights(cli, tmp_path):
    library = write(tmp_path / "lib.bib", _library_text())
    after = _add(cli, library, "Benchmarking Quixotic Zebras Across Frozen Lakes")
    m = Matcher(after.records, digest=after.document.digest)
    assert m._pairs is None  # no cache read: dedupe estimates this version's own weights
    assert matchcache.read_carried(after.document.digest, len(after.records)) is not None


def test_carried_weights_need_their_base(cli, tmp_path):
    library = write(tmp_path / "lib.bib", _library_text())
    first = store.load(library)
    after = _add(cli, library, "Benchmarking Quixotic Zebras Across Frozen Lakes")
    from pubcli.store import cache

    for f in cache.cache_dir().glob(f"weights-{first.document.digest}*"):
        f.unlink()
    assert matchcache.read_carried(after.document.digest, len(after.records)) is None
    assert matchcache.read_carried(after.document.digest, len(after.records) + 1) is None


def test_weights_judged_by_do_not_depend_on_the_guards_history(cli, tmp_path):
    """A carried guard and a fresh estimate of the same version agree on a clear case."""
    library = write(tmp_path / "lib.bib", _library_text(60))
    after = _add(cli, library, "Benchmarking Quixotic Zebras Across Frozen Lakes")
    dup = record("", "misc", author="Zed Quill", year="2025",
                 title="Benchmarking quixotic zebras across frozen lakes")
    carried = Guard(after.records, digest=after.document.digest)
    fresh = Guard(after.records)
    assert [m.record.key for m in carried.matches(dup)] == \
        [m.record.key for m in fresh.matches(dup)] == [after.records[-1].key]
