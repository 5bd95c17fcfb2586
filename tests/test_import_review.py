"""`pubcli import` and its near-duplicates: how to review them, verdicts remembered
beside the library (as `dedupe` remembers "not duplicates"), keys on every row, and a
titleless crossref parent known again on a re-import."""

from __future__ import annotations

import re

import pytest

from pubcli import store
from pubcli.usecases import distinct

from .conftest import write
from .test_import_cli import BIB


def summary(stderr: str) -> dict[str, int]:
    """The counts of the summary (the lines after "import of ...")."""
    tail = stderr[stderr.index("\nimport of ") if "\nimport of " in stderr else 0:]
    return {m[1]: int(m[2]) for m in re.finditer(r"(?m)^  (\S.*?)\s+(\d+)$", tail)}

NEAR = "near-duplicates to review (not added)"


@pytest.fixture
def src(tmp_path):
    return write(tmp_path / "other.bib", BIB)


def keys(library) -> set[str]:
    return {r.key for r in store.load(library).records}


def test_the_summary_says_how_to_review_the_near_duplicates_held_back(cli, library, src):
    r = cli("import", src, "-l", library)
    assert r.exit_code == 0, r.output
    assert summary(r.stderr)[NEAR] == 1
    assert (f"1 near-duplicate is held back (status 'review' above): run 'pubcli import {src}' "
            "on a terminal to decide each, or add --add-near") in r.stderr
    assert "--skip-near to skip them all" in r.stderr
    again = cli("import", src, "-l", library)  # no verdict was given: held back again
    assert summary(again.stderr)[NEAR] == 1 and "held back" in again.stderr


def test_invalid_and_repeat_rows_show_their_key(cli, library, tmp_path):
    twice = write(tmp_path / "twice.bib", BIB + BIB.replace("novak2021caches", "novak2021copy"))
    r = cli("import", twice, "--strict", "-l", library)
    rows = {row[1]: row[0] for row in (ln.split("\t") for ln in r.stdout.splitlines())}
    assert rows["broken2020"] == "invalid" and rows["novak2021copy"] == "repeat"
    assert rows["ruwase2010lifeguards"] == "duplicate"


def test_skip_near_is_remembered_and_a_reimport_does_not_ask_again(cli, library, src):
    r = cli("import", src, "--skip-near", "-l", library)
    assert r.exit_code == 0, r.output
    assert "novak2021near" not in keys(library)
    assert f"remembered 1 entry as the same work in {library.with_name('library.same.txt')}" \
        in r.stderr
    assert distinct.load_same(library) == {"novak2021near": "novak2021caches"}
    before = library.read_bytes()
    again = cli("import", src, "-l", library)
    assert again.exit_code == 0, again.output
    counts = summary(again.stderr)
    assert counts[NEAR] == 0 and counts["added"] == 0 and "held back" not in again.stderr
    row = next(ln for ln in again.stdout.splitlines() if "novak2021near" in ln)
    assert row.startswith("duplicate\tnovak2021near\t") and \
        "same as novak2021caches (judged so at an earlier import)" in row
    assert library.read_bytes() == before
    assert "as the same work in" not in again.stderr  # nothing new to remember


def test_add_near_remembers_the_pair_as_not_duplicates(cli, library, src):
    r = cli("import", src, "--add-near", "-l", library)
    assert r.exit_code == 0, r.output
    assert "novak2021near" in keys(library)
    assert distinct.load(library) == {("novak2021caches", "novak2021near")}
    assert "remembered 1 pair as not duplicates" in r.stderr


def test_a_not_duplicates_verdict_from_dedupe_lets_the_item_in(cli, library, src):
    distinct.add(library, [("novak2021caches", "novak2021near")])
    r = cli("import", src, "-l", library)
    assert r.exit_code == 0, r.output
    assert summary(r.stderr)[NEAR] == 0 and "novak2021near" in keys(library)


def test_dry_run_remembers_nothing(cli, library, src):
    cli("import", src, "--skip-near", "--dry-run", "-l", library)
    assert not distinct.same_path(library).exists()


def test_add_near_and_skip_near_together_are_refused(cli, library, src):
    r = cli("import", src, "--add-near", "--skip-near", "-l", library)
    assert r.exit_code == 2 and "contradict" in r.stderr


@pytest.fixture
def terminal(monkeypatch):
    """stdin and stderr read as a terminal (CliRunner's are not)."""
    from pubcli.cli import dialogues

    monkeypatch.setattr(dialogues, "stdin_is_terminal", lambda: True)
    monkeypatch.setattr(dialogues, "stderr_is_terminal", lambda: True)


def test_on_a_terminal_each_near_duplicate_is_asked_once(cli, library, src, terminal):
    r = cli("import", src, "-l", library, input="s\n")
    assert r.exit_code == 0, r.output
    assert "near-duplicate 1 of 1:" in r.stderr and "is near novak2021caches" in r.stderr
    assert "novak2021near" not in keys(library)
    again = cli("import", src, "-l", library, input="")  # no answer needed: not asked
    assert again.exit_code == 0, again.output
    assert "near-duplicate 1 of 1" not in again.stderr


def test_on_a_terminal_add_adds_and_later_holds_back(cli, library, src, terminal):
    later = cli("import", src, "-l", library, input="l\n")
    assert later.exit_code == 0 and summary(later.stderr)[NEAR] == 1
    assert not distinct.same_path(library).exists()
    added = cli("import", src, "-l", library, input="a\n")
    assert added.exit_code == 0 and "novak2021near" in keys(library)
    assert ("novak2021caches", "novak2021near") in distinct.load(library)


def test_the_end_of_input_on_a_terminal_aborts_and_writes_nothing(cli, library, src, terminal):
    before = library.read_bytes()
    r = cli("import", src, "-l", library, input="")
    assert r.exit_code == 130 and "nothing was written" in r.stderr
    assert library.read_bytes() == before


def test_with_stdin_closed_nothing_is_asked(library, src):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "pubcli", "import", str(src), "-l", str(library)],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "near-duplicate 1 of 1" not in r.stderr and "held back" in r.stderr


PARENT = """@inproceedings{smith2020things,
  author = {Ann Smith},
  title = {A Study of Things},
  crossref = {conf2020},
  pages = {1--2},
}

@proceedings{conf2020,
  booktitle = {Proceedings of the Conference on Things},
  year = {2020},
  publisher = {ACM},
}
"""


def test_a_titleless_crossref_parent_is_not_added_again(cli, tmp_path):
    lib = write(tmp_path / "library.bib", PARENT)
    again = write(tmp_path / "again.bib", PARENT)
    r = cli("import", again, "-l", lib)
    assert r.exit_code == 0, r.output
    assert summary(r.stderr)["added"] == 0
    assert "duplicate\tconf2020\t2020\t\tsame as conf2020 (the same entry)" in r.stdout
    assert lib.read_text() == PARENT
    # a parent that says something the library's does not is another entry
    other = write(tmp_path / "other.bib", PARENT.replace("{ACM}", "{IEEE}"))
    assert summary(cli("import", other, "-l", lib).stderr)["added"] == 1


def test_a_titleless_parent_twice_in_the_input_is_added_once(cli, tmp_path):
    lib = write(tmp_path / "library.bib", "")
    twice = write(tmp_path / "twice.bib", PARENT + PARENT.split("\n\n", 1)[1])
    r = cli("import", twice, "-l", lib)
    assert r.exit_code == 0, r.output
    assert summary(r.stderr)["added"] == 2 and summary(r.stderr)["skipped: repeated in the input"] == 1
    assert [rec.key for rec in store.load(lib).records] == ["smith2020things", "conf2020"]
