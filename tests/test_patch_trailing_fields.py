"""Removing the last fields of an entry (found while leaving private fields out of
the page's BibTeX): the entry stays valid BibTeX and only its own bytes change."""

from __future__ import annotations

import pytest

from pubcli import store

from .conftest import write

TEXT = """@misc{keep,
  title = {Untouched},
}

@inproceedings{edit2024,
  author = {Doe, Jane},
  title = {Edited},
  year = {2024},
  keywords = {Systems},
  featured = {true},
}
"""


@pytest.mark.parametrize("drop", [("featured",), ("keywords", "featured"),
                                  ("year", "keywords", "featured"), ("title", "featured")])
def test_removing_trailing_fields_keeps_the_entry_valid(tmp_path, drop):
    path = write(tmp_path / "lib.bib", TEXT)
    with store.transaction(path) as lib:
        rec = next(r for r in lib.records if r.key == "edit2024")
        lib.replace(rec.key, rec.copy(fields={k: v for k, v in rec.fields.items()
                                          if k not in drop}))
    text = path.read_text(encoding="utf-8")
    again = store.load(path, use_cache=False)
    assert not again.problems and len(again.records) == 2
    edited = next(r for r in again.records if r.key == "edit2024")
    assert sorted(edited.fields) == sorted(set(rec.fields) - set(drop))
    assert text.startswith("@misc{keep,\n  title = {Untouched},\n}\n\n@inproceedings{edit2024,")
    assert ",\n  ,\n" not in text and ",," not in text
