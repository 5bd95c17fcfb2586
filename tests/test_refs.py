"""The one key resolver (pubcli.usecases.refs): exact, case, KEY@LINE, unique prefix; one wording."""

from __future__ import annotations

import pytest

from pubcli.usecases import refs
from pubcli import store
from pubcli.errors import AmbiguousKey, AmbiguousPrefix, NotFound

TEXT = """@misc{smith2020, title = {First}}

@misc{smith2021deep, title = {Second}}

@misc{jones2019, title = {Third}}

@misc{dup, title = {A}}
@misc{dup, title = {B}}
@misc{Taylor2018, title = {Fourth}}
"""


@pytest.fixture
def keys():
    lib = store.loads(TEXT, "x.bib")
    return refs.Keys(lib.records, path=lib.path)


def test_exact_key_beats_a_prefix_it_is_also(keys):
    assert keys.resolve("smith2020").fields["title"] == "First"


def test_unique_prefix_names_the_entry(keys):
    assert keys.resolve("jon").key == "jones2019"
    assert keys.resolve("smith2021").key == "smith2021deep"


def test_key_case_is_ignored_when_nothing_matches_exactly(keys):
    assert keys.resolve("taylor2018").key == "Taylor2018"
    assert keys.resolve("TAY").key == "Taylor2018"


def test_ambiguous_prefix_lists_the_candidates(keys):
    with pytest.raises(AmbiguousPrefix, match=r"'smith' is the start of 2 keys \(smith2020, "
                                              r"smith2021deep\); type more of the key"):
        keys.resolve("smith")


def test_ambiguous_prefix_names_a_few_and_counts_the_rest():
    text = "".join(f"@misc{{k{i:02d}, title={{t}}}}\n" for i in range(20))
    lib = store.loads(text, "x.bib")
    with pytest.raises(AmbiguousPrefix, match=r"20 keys \(k00, k01, .*k07 and 12 more\)"):
        refs.resolve(lib.records, "k")


def test_a_key_used_twice_is_refused_naming_each_line(keys):
    with pytest.raises(AmbiguousKey, match="name one as dup@7 or dup@8"):
        keys.resolve("dup")
    assert keys.resolve("dup@8").fields["title"] == "B"
    assert [r.fields["title"] for r in keys.sharing(["dup", "jones"])] == ["A", "B", "Third"]


def test_key_at_line_accepts_a_prefix_and_names_the_real_line(keys):
    assert keys.resolve("jon@5").key == "jones2019"
    with pytest.raises(NotFound, match=r"no entry 'jones2019' starts on line 6 \(it is on "
                                       r"line 5\)"):
        keys.resolve("jones2019@6")


def test_unknown_key_gets_one_suggestion_wording(keys):
    with pytest.raises(NotFound, match="no entry with key 'jnoes2019'; did you mean "
                                       "'jones2019'\\?$"):
        keys.resolve("jnoes2019")
    with pytest.raises(NotFound, match="no entry with key 'zzz'$"):
        keys.resolve("zzz")


def test_a_key_ending_in_at_digits_stays_reachable():
    lib = store.loads("@misc{odd@12, title={x}}\n@misc{odd, title={y}}\n", "x.bib")
    assert refs.resolve(lib.records, "odd@12").fields["title"] == "x"


def test_many_are_named_once_in_order(keys):
    got = keys.resolve_many(["jon", "smith2020", "jones2019"])
    assert [r.key for r in got] == ["jones2019", "smith2020"]
