"""pubcli.schema.identifiers: the arXiv id an entry names, wherever the file says it
(the page's arXiv link, CSL-JSON, dedupe and `update` all ask)."""

from __future__ import annotations

import pytest

from pubcli.schema.identifiers import arxiv_of, arxiv_url, parse_arxiv


@pytest.mark.parametrize("raw", [
    "2101.06840", "arXiv:2101.06840", "arxiv: 2101.06840v2", "https://arxiv.org/abs/2101.06840",
    "http://export.arxiv.org/abs/2101.06840v1", "https://arxiv.org/pdf/2101.06840v3.pdf",
    "10.48550/arXiv.2101.06840", "https://doi.org/10.48550/arXiv.2101.06840",
])
def test_an_arxiv_id_written_any_usual_way_is_the_same_work(raw):
    assert parse_arxiv(raw) == "2101.06840"


def test_the_version_is_kept_only_when_asked_and_old_style_ids_are_ids():
    assert parse_arxiv("arXiv:2101.06840v2", version=True) == "2101.06840v2"
    assert parse_arxiv("2101.06840", version=True) == "2101.06840"
    assert parse_arxiv("hep-th/9901001v1") == "hep-th/9901001"
    assert parse_arxiv("math.AG/0601001") == "math.AG/0601001"
    assert parse_arxiv("12345.678") is None and parse_arxiv("10.1145/3394486") is None


def test_eprint_counts_unless_another_archive_is_named():
    assert arxiv_of({"eprint": "2101.06840", "archiveprefix": "arXiv"}) == "2101.06840"
    assert arxiv_of({"eprint": "2101.06840", "eprinttype": "arxiv"}) == "2101.06840"
    assert arxiv_of({"eprint": "2101.06840"}) == "2101.06840"
    assert arxiv_of({"eprint": "2101.06840", "archiveprefix": "PubMed"}) == ""


@pytest.mark.parametrize("fields", [
    {"arxiv": "2101.06840"},
    {"journal": "arXiv preprint arXiv:2101.06840"},
    {"note": "Preprint at arXiv:2101.06840v2, revised"},
    {"url": "https://arxiv.org/abs/2101.06840v2"},
    {"doi": "10.48550/arXiv.2101.06840"},
    {"howpublished": "ArXiv e-prints 2101.06840"},
])
def test_the_id_is_found_where_real_files_put_it(fields):
    assert arxiv_of(fields) == "2101.06840"


def test_a_number_is_no_arxiv_id_unless_the_field_says_arxiv():
    assert arxiv_of({"note": "report 2101.06840"}) == ""
    assert arxiv_of({"volume": "2101.0684", "journal": "J"}) == ""
    assert arxiv_of({}) == ""


def test_the_link_names_the_version_the_entry_cites():
    fields = {"eprint": "2101.06840v2", "archiveprefix": "arXiv"}
    assert arxiv_url(arxiv_of(fields, version=True)) == "https://arxiv.org/abs/2101.06840v2"
    assert arxiv_of(fields) == "2101.06840"
