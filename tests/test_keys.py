"""The citation-key scheme: lastname + year + first significant title word."""

from __future__ import annotations

import pytest

from pubcli.schema import keys
from pubcli import store
from pubcli.schema.model import Record

from .conftest import SHIPPED, record


def rec(author="", title="", year="", editor="") -> Record:
    """A keyless record; an empty author, editor or year is an absent one."""
    return record("", title=title, author=author or None, editor=editor or None,
                  year=year or None)


def test_shipped_library_follows_the_scheme():
    lib = store.load(SHIPPED)
    assert len(lib.records) == 20
    assert {r.key: keys.base_key(r) for r in lib.records} == {r.key: r.key for r in lib.records}


@pytest.mark.parametrize("author,title,year,expected", [
    ("Wang, Guanhua and Qin, Heyang", "{ZeRO}++: Extremely Efficient", "2024", "wang2024zero"),
    ("Abdin, Marah I", "{Phi-3} Technical Report", "2024", "abdin2024phi3"),
    ("Yazdani Aminabadi, Reza", "{DeepSpeed} Inference", "2022",
     "yazdaniaminabadi2022deepspeed"),
    ("Kalin Ovtcharov and Olatunji Ruwase", "Toward Accelerating Deep Learning", "2015",
     "ovtcharov2015toward"),
    ('M{\\"u}ller, J{\\"o}rg', "Über Alles", "2001", "muller2001uber"),
    ("Søndergaard, Ib", "Ærø and Łódź", "1999", "sondergaard1999aero"),
    ("de Rosa, Gustavo", "A Study", "2020", "derosa2020study"),
    ("Ruwase, Olatunji", "A Practical Dynamic Buffer Overflow Detector", "2004",
     "ruwase2004practical"),
    ("Doe, Jane", "On the Use of the Thing", "2010", "doe2010use"),
    ("Doe, Jane", "From A to B via C", "2010", "doe2010b"),
    ("Doe, Jane", "The Of And", "2010", "doe2010the"),  # only skip words: the first one
    ("Doe, Jane", "", "2010", "doe2010"),
    ("", "Anonymous Work", "2010", "2010anonymous"),
    ("Doe, Jane", "Undated", "", "doeundated"),
    ("", "", "", "entry"),
])
def test_base_key(author, title, year, expected):
    assert keys.base_key(rec(author, title, year)) == expected


def test_editor_is_used_without_author():
    assert keys.base_key(rec(editor="Knuth, Donald", title="Selected Papers", year="1996")) \
        == "knuth1996selected"


def test_taken_keys_get_letter_suffixes_case_insensitively():
    r = rec("Doe, Jane", "Deep Things", "2020")
    taken = {"doe2020deep"}
    first = keys.make_key(r, taken)
    assert first == "doe2020deepa"
    taken.add(first)
    assert keys.make_key(r, taken) == "doe2020deepb"
    assert keys.unique_key("Smith2020X", {"smith2020x"}) == "Smith2020Xa"


def test_suffixes_go_past_z():
    taken = {"k"} | {f"k{c}" for c in "abcdefghijklmnopqrstuvwxyz"}
    assert keys.unique_key("k", taken) == "kaa"


def test_ascii_fold():
    assert keys.ascii_fold("Müller-Lüdenscheidt, J.") == "mullerludenscheidtj"
    assert keys.ascii_fold("Straße") == "strasse"
