"""`pubcli import` through the CLI: the seed page, .bib files, review and dry runs."""

from __future__ import annotations

import re

import shutil

import pytest

from pubcli import store
from pubcli.text.latex import to_text
from pubcli.text.fold import fold
from pubcli.schema.names import split_authors

from .conftest import SEED_PAGE, SHIPPED, write


@pytest.fixture
def empty(tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    return write(d / "library.bib", "% my publications\n")


def summary(stderr: str) -> dict[str, int]:
    out = {}
    for line in stderr.splitlines():
        if line.startswith("  "):
            label, _, count = line.strip().rpartition(" ")
            out[label.strip()] = int(count)
    return out


def test_seed_page_into_an_empty_library_gives_its_20_publications(cli, empty):
    r = cli("import", SEED_PAGE, "-l", empty)
    assert r.exit_code == 0, r.output
    counts = summary(r.stderr)
    assert counts["added"] == 20
    assert counts["skipped: repeated in the input"] == 49
    assert counts["near-duplicates to review (not added)"] == 0
    got = store.load(empty)
    assert not got.problems
    shipped = {fold(to_text(r.title)): r for r in store.load(SHIPPED).records}
    assert len(got.records) == 20
    for rec in got.records:
        ref = shipped.pop(fold(to_text(rec.title)))
        assert (rec.year, rec.month) == (ref.year, ref.month), ref.key
        assert len(split_authors(rec.fields["author"])) == \
            len(split_authors(ref.fields["author"])), ref.key
        if ref.key not in ("seshadri2015page", "ruwase2008parallelizing"):  # no venue on page
            assert rec.type == ref.type, ref.key
    assert not shipped
    phi = next(r for r in got.records if r.key == "abdin2024phi3")
    assert len(split_authors(phi.fields["author"])) == 84
    # stdout: one line per item of the page
    lines = r.stdout.splitlines()
    assert len(lines) == 69
    assert sum(1 for ln in lines if ln.startswith("added\t")) == 20


def test_importing_the_seed_page_again_adds_nothing(cli, empty):
    assert cli("import", SEED_PAGE, "-l", empty).exit_code == 0
    before = empty.read_bytes()
    r = cli("import", SEED_PAGE, "-l", empty)
    assert r.exit_code == 0, r.output
    counts = summary(r.stderr)
    assert counts["added"] == 0 and counts["skipped: already in the library"] == 69
    assert empty.read_bytes() == before


def test_seed_page_against_the_shipped_library_adds_nothing(cli, library):
    before = library.read_bytes()
    r = cli("import", SEED_PAGE, "-l", library)
    assert r.exit_code == 0
    assert summary(r.stderr)["added"] == 0
    assert "duplicate\t\t2024\tZeRO++" in r.stdout and "same as wang2024zero" in r.stdout
    assert library.read_bytes() == before


def test_one_line_per_decision_and_explain_for_the_evidence(cli, library):
    plain = cli("import", SEED_PAGE, "--dry-run", "-l", library)
    explained = cli("import", SEED_PAGE, "--dry-run", "--explain", "-l", library)
    assert plain.exit_code == explained.exit_code == 0
    assert explained.stdout == plain.stdout  # stdout is data: the same rows
    row = next(ln for ln in plain.stdout.splitlines() if "same as wang2024zero" in ln)
    # what carried it and how likely, not every field's weight
    assert re.search(r"same as wang2024zero \([^()]*, \d+\.\d%\)", row), row
    assert "bits" not in plain.stderr
    said = explained.stderr[len(plain.stderr):] if explained.stderr.startswith(plain.stderr) \
        else explained.stderr
    assert "~ wang2024zero: duplicates: match probability" in said
    assert "  title " in said
    pairs = said.count(": duplicates: match probability")
    assert said.count("count together at most") <= pairs  # the cap note: once a pair


def test_dry_run_writes_nothing(cli, empty):
    before = empty.read_bytes()
    r = cli("import", SEED_PAGE, "--dry-run", "-l", empty)
    assert r.exit_code == 0
    assert summary(r.stderr)["added"] == 20
    assert "dry run" in r.stderr
    assert empty.read_bytes() == before


BIB = """@inproceedings{ruwase2010lifeguards,
  author = {Ruwase, Olatunji and Chen, Shimin},
  title = {Decoupled Lifeguards: Enabling Path Optimizations for Dynamic Correctness Checking Tools},
  booktitle = {PLDI},
  year = {2010},
}

@article{novak2021caches,
  author = {Novak, Jan and Ruwase, Olatunji},
  title = {Caches All the Way Down: Memory Hierarchies for Tiny Embedded Devices},
  journal = {Journal of Caches},
  year = {2021},
  pages = {1--12},
}

@article{novak2021near,
  author = {Novak, Jan},
  title = {Caches All the Way Down: Hierarchies for Tiny Devices},
  journal = {Journal of Caches},
  year = {2021},
}

@article{broken2020,
  author = {Novak, Jan},
  title = {An Article Without Its Journal},
  year = {2020},
}
"""


def test_bib_import_sorts_new_duplicates_near_and_invalid(cli, library, tmp_path):
    src = write(tmp_path / "other.bib", BIB)
    before = library.read_bytes()
    r = cli("import", src, "--area", "systems and networking", "--strict", "-l", library)
    assert r.exit_code == 0, r.output
    rows = [ln.split("\t") for ln in r.stdout.splitlines()]
    assert [row[0] for row in rows] == ["duplicate", "added", "review", "invalid"]
    assert "same as ruwase2010decoupled" in rows[0][4]
    # rows not added show the item's own key
    assert rows[2][1] == "novak2021near" and "near novak2021caches" in rows[2][4]  # an earlier item
    assert rows[3][1] == "broken2020" and "journal" in rows[3][4]
    counts = summary(r.stderr)
    assert counts["added"] == 1 and counts["near-duplicates to review (not added)"] == 1
    assert counts["skipped: invalid"] == 1
    after = {r.key: r for r in store.load(library).records}
    assert after["novak2021caches"].areas == ["Systems and networking"]
    assert "novak2021near" not in after
    assert library.read_bytes().startswith(before)


def test_add_near_adds_the_near_duplicates(cli, library, tmp_path):
    src = write(tmp_path / "other.bib", BIB)
    r = cli("import", src, "--add-near", "-l", library)
    assert r.exit_code == 0, r.output
    assert "review, added\tnovak2021near" in r.stdout
    assert "novak2021near" in {r.key for r in store.load(library).records}


def test_import_from_stdin_as_text(cli, empty):
    page = "Caches All the Way Down\nJan Novak, Olatunji Ruwase\nMarch 2021\n"
    r = cli("import", "-", "-l", empty, input=page)
    assert r.exit_code == 0, r.output
    rec = store.load(empty).records[0]
    assert (rec.key, rec.type, rec.fields["author"]) == \
        ("novak2021caches", "misc", "Novak, Jan and Ruwase, Olatunji")


def test_refusals(cli, library, tmp_path):
    before = library.read_bytes()
    r = cli("import", write(tmp_path / "x.txt", "just some words\n"), "-l", library)
    assert r.exit_code == 2 and "found no publications" in r.stderr
    r = cli("import", SEED_PAGE, "--area", "Sytems and networking", "-l", library)
    assert r.exit_code == 2 and "did you mean 'Systems and networking'" in r.stderr
    r = cli("import", tmp_path / "missing.txt", "-l", library)
    assert r.exit_code == 2 and "no such file" in r.stderr
    r = cli("import", SEED_PAGE, "--format", "csv", "-l", library)
    assert r.exit_code == 2 and "--format" in r.stderr
    assert library.read_bytes() == before


def test_listing_keys_use_known_name_forms(cli, library, tmp_path):
    # The shipped library writes "Yazdani Aminabadi, Reza": an imported listing naming
    # him as first author gets the same last name (and so the same key scheme).
    lib2 = tmp_path / "data" / "lib2.bib"
    shutil.copy(library, lib2)
    page = ("Tiny Models for Everyone\nReza Yazdani Aminabadi, Olatunji Ruwase\n"
            "ICML 2023 | July 2023\n")
    r = cli("import", "-", "-l", lib2, input=page)
    assert r.exit_code == 0, r.output
    assert "yazdaniaminabadi2023tiny" in {r.key for r in store.load(lib2).records}


def test_nothing_to_import_shows_why(cli, library, tmp_path):
    before = library.read_bytes()
    src = write(tmp_path / "broken.bib", "@misc{a,\n  title = {Unclosed\n")
    r = cli("import", src, "-l", library)
    assert r.exit_code == 2
    assert f"warning: {src}:1: could not read this block" in r.stderr
    assert r.stderr.endswith(f"error: {src}: found no publications to import (is it a listing? "
                             "try --format text)\n")
    assert library.read_bytes() == before


SCHOLAR_COPY = SEED_PAGE.parent / "scholar-copy.txt"


def test_a_google_scholar_copy_accounts_for_every_block(cli, empty):
    """Issue 18: every block is added, a repeat, held for review or not understood."""
    r = cli("import", SCHOLAR_COPY, "-l", empty)
    assert r.exit_code == 0, r.output
    rows = [ln.split("\t") for ln in r.stdout.splitlines()]
    by_line = {int(row[5]): row[0] for row in rows}
    assert by_line[9] == by_line[21] == by_line[42] == "added"  # "Venue 30, 2017" etc.
    assert by_line[29] == "repeat"
    assert by_line[32] == "review"  # title and authors, no venue line
    counts = summary(r.stderr)
    assert counts["added"] == 8
    assert counts["held for review: no date line (not added)"] == 2
    assert counts["skipped: not understood (see the warnings)"] == 2
    assert f"warning: {SCHOLAR_COPY}:45: not understood: 'Sparse and constrained" in r.stderr
    got = {to_text(rec.title): rec for rec in store.load(empty).records}
    attention = got["Attention is all you need"]
    assert attention.fields["booktitle"] == "Advances in neural information processing systems"
    assert attention.fields["volume"] == "30" and attention.year == 2017
