"""pubcli.render.listing: the JSON listing is written by its own encoder, in pieces;
it must be the very text the json module writes."""

from __future__ import annotations

import json

import pytest

from pubcli.render import json_safe
from pubcli.render.listing import as_json, json_chunks, record_dict
from pubcli.schema.model import GroupBy, Record
from pubcli.usecases.grouping import group

TRICKY = [
    Record("q\"uote", "article", {"title": "Tab\there \\ back \u0085 C1 \x1b esc", "year": "2020",
                                  "author": "M{\\\"u}ller, Ana and Zed Quill", "doi": "10.1000/x",
                                  "url": "https://example.org/a?b=c", "keywords": "A, B"}),
    Record("none", "misc", {}),
    Record("only", "book", {"editor": "Ed One", "date": "2019-05", "featured": "true",
                            "eprint": "2101.00001", "archiveprefix": "arXiv",
                            "note": "line\nbreak \u2028 sep \ud7ff"}),
]


def expected(groups, by):
    if by is GroupBy.none:
        data: object = {"entries": [record_dict(r) for _, recs in groups for r in recs]}
    else:
        data = {"by": by.value, "groups": [{"name": name, "count": len(recs),
                                            "entries": [record_dict(r) for r in recs]}
                                           for name, recs in groups]}
    return json_safe(json.dumps(data, ensure_ascii=False, indent=2)) + "\n"


@pytest.mark.parametrize("by", list(GroupBy))
@pytest.mark.parametrize("records", [TRICKY, [], TRICKY[1:2]])
def test_the_json_listing_is_what_the_json_module_writes(by, records):
    groups = group(records, by)
    assert as_json(groups, by) == expected(groups, by)
    json.loads(as_json(groups, by))


def test_a_long_json_listing_comes_in_pieces_that_join_to_the_whole(monkeypatch):
    from pubcli.render import listing

    monkeypatch.setattr(listing, "JSON_CHUNK", 2)
    records = [Record(f"k{i}", "misc", {"title": f"T {i}", "year": str(2000 + i % 3)})
               for i in range(7)]
    for by in (GroupBy.year, GroupBy.none):
        groups = group(records, by)
        pieces = list(json_chunks(groups, by))
        assert len(pieces) > 4 and b"".join(pieces).decode() == expected(groups, by)


def test_a_terminal_listing_shows_simple_math_as_unicode(cli, tmp_path):
    from .conftest import write

    lib = write(tmp_path / "library.bib", "@article{m2020,\n  title = {Sorting in $O(n^2)$ "
                "Time},\n  author = {Ann Lee},\n  journal = {J},\n  year = {2020},\n}\n")
    shown = cli("list", "--no-pager", "-l", lib, env={"TTY_COMPATIBLE": "1", "COLUMNS": "120"})
    assert "Sorting in O(n²) Time" in shown.stdout and "$" not in shown.stdout
    piped = cli("list", "--format", "json", "-l", lib).stdout
    assert "$O(n^2)$" in piped  # machine formats keep the TeX
