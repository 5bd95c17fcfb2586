"""Blocking kept across versions of a file: the pairs and groups after an edit are
those of a run without any cache, and an edit searches again only where it changed."""

from __future__ import annotations

import random
import string

import pytest

from pubcli import dedupe, store
from pubcli.dedupe import blocking, entrycache, windows
from pubcli.dedupe.matcher import Matcher
from pubcli.schema.model import Record

from .test_dedupe_model import HARD, _review_like, group_sets


def _search(keys: list, p: int) -> list[int]:
    """A hit when two keys of one window start alike (a function of the window)."""
    return [q for q in range(p + 1, min(len(keys), p + 4)) if keys[q][:1] == keys[p][:1]]


@pytest.mark.parametrize("seed", range(6))
def test_a_patched_pass_finds_what_a_fresh_one_finds(seed):
    rng = random.Random(seed)
    keys = {"".join(rng.choices("abc", k=rng.randint(1, 5))) for _ in range(300)}
    _, _, kept, change = windows.run(lambda: keys, keys.__contains__, None, 3, _search, None)
    assert change is None
    for _ in range(25):
        gone = set(rng.sample(sorted(keys), rng.randint(0, 4)))
        added = {"".join(rng.choices("abcd", k=rng.randint(1, 6)))
                 for _ in range(rng.randint(0, 4))}
        now = (keys - gone) | added
        fresh = windows.run(lambda now=now: now, now.__contains__, None, 3, _search, None)
        patched = windows.run(lambda now=now: now, now.__contains__, gone | added | {"zz"}, 3, _search,
                              kept)
        assert patched[:2] == fresh[:2]
        assert patched[3] == (sorted(keys - now), sorted(now - keys))
        keys, kept = now, patched[2]


def _count_searches(monkeypatch) -> list[int]:
    calls = [0]
    real = blocking._neighbours

    def counted(*args):
        search = real(*args)

        def one(keys, p):
            calls[0] += 1
            return search(keys, p)
        return one

    monkeypatch.setattr(blocking, "_neighbours", counted)
    return calls


def _library() -> list[Record]:
    return list(store.load(HARD).records) + _review_like(150, 5)


def test_after_edits_the_pairs_and_groups_are_those_of_a_run_without_cache(monkeypatch):
    monkeypatch.setattr(entrycache, "MIN_RECORDS", 10)
    calls = _count_searches(monkeypatch)
    records = _library()
    Matcher(records, digest="a" * 40).pairs()
    full = calls[0]
    rng = random.Random(3)
    for step in range(6):
        edited = list(records)
        k = rng.randrange(len(edited))
        fields = dict(edited[k].fields)
        fields["title"] = fields.get("title", "") + " revisited"
        edited[k] = edited[k].copy(fields=fields)
        del edited[rng.randrange(100, len(edited))]  # (the first keys name the library)
        twin = edited[rng.randrange(len(edited))]
        edited.append(twin.copy(key=f"twin{step}", fields={
            **twin.fields, "title": twin.fields.get("title", "").replace("e", "ee", 1)}))
        calls[0] = 0
        m = Matcher(edited, digest=f"{step:x}" * 40)
        got = m.pairs()
        assert 0 < calls[0] < full / 4  # only the windows the edit falls in
        fresh = Matcher(edited)
        assert got == fresh.pairs()
        assert group_sets(m.groups()) == group_sets(dedupe.find_groups(edited))
        records = edited


def test_the_same_contents_read_their_pairs_back(monkeypatch):
    """A new version of a file with the same entries (a comment edited, spacing) has
    the pairs of the version before: nothing is searched again."""
    monkeypatch.setattr(entrycache, "MIN_RECORDS", 10)
    calls = _count_searches(monkeypatch)
    records = _library()
    first = Matcher(records, digest="b" * 40).pairs()
    calls[0] = 0
    again = Matcher(records, digest="c" * 40)
    assert again.pairs() == first and calls[0] == 0
    assert group_sets(again.groups()) == group_sets(dedupe.find_groups(records))


def test_with_the_cache_groups_do_not_depend_on_order_or_keys(monkeypatch):
    monkeypatch.setattr(entrycache, "MIN_RECORDS", 10)
    records = _library()
    want = group_sets(Matcher(records, digest="d" * 40).groups())
    rng = random.Random(8)
    for n in range(3):
        copy = list(records)
        rng.shuffle(copy)
        names = {r.key: "".join(rng.choices(string.ascii_lowercase, k=10)) for r in copy}
        renamed = [r.copy(key=names[r.key]) for r in copy]
        back = {v: k for k, v in names.items()}
        got = Matcher(renamed, digest=f"{n + 1:x}" * 40).groups()
        assert {frozenset(back[k] for k in g) for g in group_sets(got)} == want


def test_a_damaged_cache_is_ignored(monkeypatch, tmp_path):
    monkeypatch.setattr(entrycache, "MIN_RECORDS", 10)
    records = _library()
    want = Matcher(records).pairs()
    Matcher(records, digest="e" * 40).pairs()
    from pubcli.local.cachedir import cache_dir
    for f in cache_dir().glob("block*"):
        data = f.read_bytes()
        f.write_bytes(data[:len(data) // 2] + bytes(reversed(data[len(data) // 2:])))
    edited = records[:-1]
    assert Matcher(edited, digest="f" * 40).pairs() == Matcher(edited).pairs()
    assert Matcher(records, digest="9" * 40).pairs() == want
