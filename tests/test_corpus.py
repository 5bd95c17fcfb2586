"""Real-world .bib files (tests/corpus, see SOURCES.md there): each one loads and
saves back byte for byte, an edit to one entry changes that entry's bytes only,
the fast parse path agrees with bibtexparser's splitter on all of it, and no title
loses a word on its way to the screen or the page (the display property, defined in
bench/corpus.py, which runs it over all of TeX Live's bibliographies)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from pubcli import bibtex, store
from pubcli.errors import LibraryReadError
from pubcli.exporters import spans
from pubcli.text.latex import to_text
from pubcli.schema.model import Record

from .conftest import ROOT

CORPUS = ROOT / "tests" / "corpus"
FILES = sorted(CORPUS.rglob("*.bib"))
NOT_UTF8 = {"sphinxcontrib_bibtex-2.7.0/test/roots/test-bibfiles_encoding/test.bib"}


def rel(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


UTF8_FILES = [p for p in FILES if rel(p) not in NOT_UTF8]


def test_the_corpus_is_there_and_listed():
    assert len(FILES) >= 50
    assert sum(p.stat().st_size for p in FILES) > 1_500_000
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    for p in FILES:
        assert f"`{rel(p)}`" in sources, f"{rel(p)} is not listed in SOURCES.md"


@pytest.mark.parametrize("path", UTF8_FILES, ids=rel)
def test_round_trip_is_byte_for_byte(path, tmp_path):
    copy = tmp_path / "library.bib"
    shutil.copy(path, copy)
    data = copy.read_bytes()
    lib = store.load(copy, use_cache=False)
    assert not [p for p in lib.problems if p.kind == "parse"], lib.problems[:3]
    store.save(lib, copy)
    assert copy.read_bytes() == data


@pytest.mark.parametrize("path", UTF8_FILES, ids=rel)
def test_fast_path_agrees_with_the_splitter(path):
    text = store.decode(path.read_bytes())[0]
    fast, slow = bibtex.parse(text), bibtex.parse(text, fast=False)
    assert [(r.key, r.type, r.fields, r.line, r.source.start, r.source.end)
            for r in fast.records] == \
        [(r.key, r.type, r.fields, r.line, r.source.start, r.source.end) for r in slow.records]
    assert [(f.line, f.start) for f in fast.failed] == [(f.line, f.start) for f in slow.failed]
    assert fast.macros == slow.macros


def _editable(lib):
    """An entry in the middle of the file that pubcli may patch in place."""
    counts: dict[str, int] = {}
    for r in lib.records:
        counts[r.key.casefold()] = counts.get(r.key.casefold(), 0) + 1
    ok = [r for r in lib.records if not r.source.read_only and counts[r.key.casefold()] == 1]
    return ok[len(ok) // 2] if ok else None


@pytest.mark.parametrize("path", UTF8_FILES, ids=rel)
def test_editing_one_entry_changes_only_its_bytes(path, tmp_path):
    copy = tmp_path / "library.bib"
    shutil.copy(path, copy)
    before = copy.read_bytes()
    lib = store.load(copy, use_cache=False)
    bom = len(store.UTF8_BOM) if lib.bom else 0
    rec = _editable(lib)
    if rec is None:
        # nothing to edit (no entries): adding one only appends
        with store.transaction(copy) as lib:
            lib.add(Record("pubcli2025corpus", "misc", {"title": "Appended"}))
        after = copy.read_bytes()
        assert after.startswith(before)
        assert "pubcli2025corpus" in store.load(copy, use_cache=False)
        return
    start = bom + len(lib.text[:rec.source.start].encode("utf-8"))
    end = bom + len(lib.text[:rec.source.end].encode("utf-8"))
    others = {r.key: (r.type, r.fields) for r in lib.records if r is not rec}
    fields = dict(rec.fields)
    fields["note"] = "Checked by pubcli's corpus test"
    if "title" in fields:
        fields["title"] = fields["title"] + " (edited)"
    with store.transaction(copy) as lib:
        lib.replace(rec.key, rec.copy(fields=fields))
    after = copy.read_bytes()

    assert after[:start] == before[:start]
    assert after[len(after) - (len(before) - end):] == before[end:]
    again = store.load(copy, use_cache=False)
    assert again[rec.key].fields == fields
    assert {r.key: (r.type, r.fields) for r in again.records if r.key != rec.key} == others


def test_latin1_file_is_refused_with_its_line_and_left_alone(tmp_path, cli):
    (name,) = NOT_UTF8
    copy = tmp_path / "library.bib"
    shutil.copy(CORPUS / name, copy)
    before = copy.read_bytes()
    with pytest.raises(LibraryReadError, match=r":2: not valid UTF-8 \(byte 0xc4\)"):
        store.load(copy)
    r = cli("check", copy)
    assert r.exit_code == 2 and "iconv -f latin1 -t utf-8" in r.stderr
    assert copy.read_bytes() == before


def test_the_big_real_file_through_the_cli(cli, tmp_path):
    """tugboat.bib (2,720 entries, 1.5 MB) lists and checks without a traceback."""
    copy = tmp_path / "library.bib"
    shutil.copy(CORPUS / "pybtex-0.26.1/examples/tugboat/tugboat.bib", copy)
    before = copy.read_bytes()
    r = cli("list", "--library", copy, "--format", "keys")
    assert r.exit_code == 0, r.stderr
    assert len(r.stdout.split()) == 2720
    r = cli("check", "--library", copy, "--format", "json")
    assert r.exit_code in (0, 1), r.stderr
    findings = json.loads(r.stdout)
    assert all(f["line"] >= 1 and f["code"] for f in findings)
    assert copy.read_bytes() == before


def _property():
    spec = importlib.util.spec_from_file_location("bench_corpus", ROOT / "bench" / "corpus.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


lost_words = _property().lost_words


@pytest.mark.parametrize("raw, broken", [
    (r"The {\TeX}book", "The book"),
    (r"Publishing \& \TeX", "Publishing &"),
    (r"\mbox{G-Animal's} Journal", "Journal"),
    (r"methodology\hyphen independent", "methodologyindependent"),
    (r"{\TeX} Northeast", "TeXNortheast"),
    (r"Writing with {\MF} and {\LaTeX}", "Writing with and"),
    (r"Stra{\ss}e", "Stra e"),
])
def test_the_display_property_catches_lost_and_joined_words(raw, broken):
    """The property is defined from TeX's rules, not from pubcli.text.latex: it fails on
    the displays pubcli used to give."""
    assert lost_words(raw, broken)
    assert not lost_words(raw, to_text(raw)), to_text(raw)


@pytest.mark.parametrize("raw, shown", [
    (r"M{\"u}ller and Stra\ss e, {\'E}cole {\o}ystein", "Müller and Straße, École øystein"),
    (r"\emph{Deep} and \textbf{wide}: 1--10 in~Rome", "Deep and wide: 1–10 in Rome"),
    (r"{\noopsort{Han}H{\`a}n}", "Hàn"),
])
def test_the_display_property_accepts_what_tex_prints(raw, shown):
    assert not lost_words(raw, shown)


def _titles(path: Path) -> list[tuple[str, str]]:
    lib = store.load(path, use_cache=False)
    return [(r.key, r.fields["title"]) for r in lib.records if r.fields.get("title")]


@pytest.mark.parametrize("path", [p for p in UTF8_FILES if p.stat().st_size > 5000], ids=rel)
def test_no_title_loses_a_word_in_list_markdown_or_html(path):
    """Every word of a title's plain text is a word of what `list`/Markdown show
    (to_text) and of the page's styled runs (exporters.spans.rich)."""
    lost = []
    for key, raw in _titles(path):
        for shown in (to_text(raw), spans.plain(spans.rich(raw))):
            miss = lost_words(raw, shown)
            if miss:
                lost.append((key, raw, shown, miss))
    assert not lost, lost[:5]


def test_the_tex_logos_show_in_the_listing(cli, tmp_path):
    """Beebe's TUGboat-family titles, through `list` and `--search` on a real file."""
    copy = tmp_path / "library.bib"
    shutil.copy(CORPUS / "texlive-2022/bibtex/bib/beebe/texnique.bib", copy)
    r = cli("list", "--library", copy, "--format", "json")
    assert r.exit_code == 0, r.stderr
    titles = [e["title"] for g in json.loads(r.stdout)["groups"] for e in g["entries"]]
    assert not any("\\" in t for t in titles)
    assert sum("TeX" in t for t in titles) > 10
    r = cli("list", "--library", copy, "--format", "keys", "--search", "latex")
    assert r.exit_code == 0 and r.stdout.split()
