"""`pubcli dedupe`: listing, --check for pre-commit/CI, --format, --merge."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pubcli import store

from .conftest import ROOT, write

HARD = ROOT / "tests" / "data" / "dedupe" / "hard_cases.bib"
N_DUP_CASES = 13

PAIR = """% a small library with one duplicate pair
@inproceedings{fischer2021contrastive,
  author = {Fischer, Lena and Novak, Tomas},
  title = {Contrastive Pre-training of Code Embeddings},
  booktitle = {ICLR},
  year = {2021},
  keywords = {Machine learning},
}

@article{other2019,
  author = {Rossi, Marco},
  title = {Probabilistic Verification of Consensus Protocols},
  journal = {Formal Aspects of Computing},
  year = {2019},
}

@misc{fischer2020arxiv,
  author = {Lena Fischer and Tomas Novak},
  title = {Contrastive Pretraining of Code Embeddings},
  year = {2020},
  eprint = {2011.01234},
  archiveprefix = {arXiv},
  keywords = {Software engineering},
}
"""


@pytest.fixture
def hard_copy(tmp_path) -> Path:
    return Path(shutil.copy(HARD, tmp_path / "hard.bib"))


@pytest.fixture
def pair(tmp_path) -> Path:
    return write(tmp_path / "lib.bib", PAIR)


def test_shipped_library_passes_the_check(cli, library):
    r = cli("dedupe", "--check", "-l", library)
    assert r.exit_code == 0, r.output
    assert "no duplicates found" in r.stderr
    assert r.stdout == ""


def test_check_exits_1_and_lists_the_groups(cli, hard_copy):
    before = hard_copy.read_bytes()
    r = cli("dedupe", "--check", "-l", hard_copy)
    assert r.exit_code == 1
    assert "dup_typo_a" in r.stdout and "dup_typo_b" in r.stdout
    assert "title 98" in r.stdout or "title 97" in r.stdout
    assert "distinct_" not in r.stdout
    assert f"{N_DUP_CASES} groups of possible duplicates" in r.stderr
    assert hard_copy.read_bytes() == before  # never writes


def test_listing_without_check_exits_0(cli, hard_copy):
    assert cli("dedupe", "-l", hard_copy).exit_code == 0


def test_json_format(cli, hard_copy):
    r = cli("dedupe", "--format", "json", "-l", hard_copy)
    assert r.exit_code == 0
    groups = json.loads(r.stdout)
    assert len(groups) == N_DUP_CASES
    arxiv = next(g for g in groups if "dup_arxiv_a" in g["keys"])
    assert arxiv["keys"] == ["dup_arxiv_a", "dup_arxiv_b"]
    assert set(arxiv["links"][0]["rule"].split(" + ")) >= {"title", "authors"}
    assert any(e.startswith("year 2020/2021 (") for e in arxiv["links"][0]["evidence"])
    assert arxiv["links"][0]["score"] >= 98
    assert [e["line"] for e in arxiv["entries"]] == [74, 82]


def test_github_annotations_point_at_the_entries(cli, hard_copy, chdir):
    chdir(hard_copy.parent)
    r = cli("dedupe", "--check", "--format", "github", "-l", hard_copy)
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert len(lines) == 2 * N_DUP_CASES
    doi = [ln for ln in lines if "dup_doi_a" in ln.split("::")[-1].split(" ")[0]]
    assert len(doi) == 1
    assert doi[0].startswith("::warning file=hard.bib,line=109,title=possible duplicate entry::"
                             "'dup_doi_a' looks like a duplicate of 'dup_doi_b': match "
                             "probability 100.0%25 (doi 10.1111/ele.12345 (+")
    text = hard_copy.read_text().splitlines()
    for ln in lines:
        line_no = int(ln.split("line=")[1].split(",")[0])
        key = ln.split("::")[2].split("'")[1]
        assert text[line_no - 1].startswith("@") and key in text[line_no - 1]


def test_files_as_arguments_for_pre_commit(cli, hard_copy, library):
    r = cli("dedupe", "--check", str(library), str(hard_copy))
    assert r.exit_code == 1
    r = cli("dedupe", "--check", str(library))
    assert r.exit_code == 0


@pytest.mark.parametrize("args,message", [
    (["--threshold", "150"], "--threshold must be between 0 and 100"),
    (["--check", "--merge"], "--check never writes"),
    (["--yes"], "--yes only applies to --merge"),
    (["--dry-run"], "--dry-run only applies to --merge"),
])
def test_bad_options_exit_2_with_one_line(cli, pair, args, message):
    r = cli("dedupe", "-l", pair, *args)
    assert r.exit_code == 2
    assert r.stderr.count("\n") == 1 and message in r.stderr
    assert r.stderr.startswith("error: ") and r.stdout == ""


def test_missing_library_exits_2(cli, tmp_path):
    r = cli("dedupe", "--check", "-l", tmp_path / "nope.bib")
    assert r.exit_code == 2 and r.stderr.startswith("error: ")


def test_threshold_changes_what_matches(cli, tmp_path):
    lib = write(tmp_path / "t.bib", """
@article{a, author = {Kim, Dae}, title = {Adaptive Query Processing in Data Streams}, year = 2020}
@article{b, author = {Kim, Dae}, title = {Adaptive Query Processing on Data Streams}, year = 2021}
""")
    r = cli("dedupe", "--explain", "a", "b", "--format", "json", "-l", lib)
    p = json.loads(r.stdout)["explain"]["probability"]
    assert 50 < p < 99.9
    assert cli("dedupe", "--check", "--threshold", str(p - 0.1), "-l", lib).exit_code == 1
    assert cli("dedupe", "--check", "--threshold", str(p + 0.05), "-l", lib).exit_code == 0


# ---------------------------------------------------------------- merging
def test_merge_yes_changes_only_the_merged_entries(cli, pair):
    r = cli("dedupe", "--merge", "--yes", "-l", pair)
    assert r.exit_code == 0, r.output
    assert "merged fischer2020arxiv into fischer2021contrastive" in r.stderr
    # conflicts are reported, not silently resolved
    assert "kept title" in r.stderr and "kept year" in r.stderr
    after = pair.read_text()
    other = PAIR[PAIR.index("@article{other2019"):PAIR.index("@misc{fischer2020arxiv")]
    assert other.rstrip() in after
    assert after.startswith("% a small library with one duplicate pair\n"
                            "@inproceedings{fischer2021contrastive,\n"
                            "  author = {Fischer, Lena and Novak, Tomas},\n")
    lib = store.load(pair)
    assert lib.keys() == ["fischer2021contrastive", "other2019"]
    merged = lib["fischer2021contrastive"]
    assert merged.fields["ids"] == "fischer2020arxiv"
    assert merged.fields["eprint"] == "2011.01234"
    assert merged.fields["keywords"] == "Machine learning, Software engineering"
    assert merged.fields["year"] == "2021" and merged.type == "inproceedings"
    assert cli("dedupe", "--check", "-l", pair).exit_code == 0


def test_merge_dry_run_shows_the_result_and_writes_nothing(cli, pair):
    before = pair.read_bytes()
    r = cli("dedupe", "--merge", "--yes", "--dry-run", "-l", pair)
    assert r.exit_code == 0
    assert r.stdout.startswith("@inproceedings{fischer2021contrastive,")
    assert "ids = {fischer2020arxiv}" in r.stdout
    assert "would merge fischer2020arxiv into fischer2021contrastive" in r.stderr
    assert pair.read_bytes() == before


def test_interactive_merge_keeps_the_chosen_entry_and_value(cli, pair):
    # merge, keep entry 2 (the arXiv one), then for each conflict pick the other value
    r = cli("dedupe", "--merge", "-l", pair, input="m\n2\n2\n2\n2\n")
    assert r.exit_code == 0, r.output
    lib = store.load(pair)
    assert lib.keys() == ["other2019", "fischer2020arxiv"]
    merged = lib["fischer2020arxiv"]
    assert merged.type == "inproceedings"  # chosen in the @type conflict
    assert merged.fields["year"] == "2021"
    assert merged.fields["booktitle"] == "ICLR"
    assert merged.fields["ids"] == "fischer2021contrastive"


def test_mark_as_distinct_is_remembered(cli, pair):
    before = pair.read_bytes()
    r = cli("dedupe", "--merge", "-l", pair, input="d\n")
    assert r.exit_code == 0, r.output
    assert pair.read_bytes() == before
    memo = pair.with_name("lib.distinct.txt")
    assert "fischer2020arxiv fischer2021contrastive" in memo.read_text()
    assert "remembered 1 pair(s)" in r.stderr
    r = cli("dedupe", "--check", "-l", pair)
    assert r.exit_code == 0 and "no duplicates found" in r.stderr


def test_skip_and_quit_write_nothing(cli, pair):
    before = pair.read_bytes()
    assert cli("dedupe", "--merge", "-l", pair, input="s\n").exit_code == 0
    assert cli("dedupe", "--merge", "-l", pair, input="q\n").exit_code == 0
    assert pair.read_bytes() == before
    assert not pair.with_name("lib.distinct.txt").exists()


def test_no_answer_aborts_without_writing(cli, pair):
    before = pair.read_bytes()
    r = cli("dedupe", "--merge", "-l", pair, input="")
    assert r.exit_code == 2 and "aborted" in r.stderr
    assert pair.read_bytes() == before


def test_a_broken_distinct_file_is_an_error_with_its_line(cli, pair):
    write(pair.with_name("lib.distinct.txt"), "# comment\nonlyonekey\n")
    r = cli("dedupe", "--check", "-l", pair)
    assert r.exit_code == 2
    assert "lib.distinct.txt:2:" in r.stderr


def test_merge_yes_skips_groups_that_need_a_human(cli, tmp_path):
    lib = write(tmp_path / "c.bib", """
@article{a, author = {Kim, Dae}, title = {Verified Compilation of Smart Contracts}, year = 2020,
  doi = {10.1000/aaa}}
@article{b, author = {Kim, Dae}, title = {Verified Compilation of Smart Contracts}, year = 2020}
@article{c, author = {Kim, Dae}, title = {Verified Compilation of Smart Contracts}, year = 2020,
  doi = {10.1000/ccc}}
""")
    before = lib.read_bytes()
    r = cli("dedupe", "--merge", "--yes", "-l", lib)
    assert r.exit_code == 0
    assert "skipped group 1" in r.stderr and "doi 10.1000/aaa / 10.1000/ccc" in r.stderr
    assert lib.read_bytes() == before


def test_json_for_several_files_is_one_array(cli, hard_copy, pair):
    r = cli("dedupe", "--check", "--format", "json", str(pair), str(hard_copy))
    assert r.exit_code == 1
    groups = json.loads(r.stdout)
    assert {g["library"] for g in groups} == {str(pair), str(hard_copy)}
    assert len(groups) == N_DUP_CASES + 1


def test_piped_listing_is_one_tab_separated_line_per_entry(cli, pair):
    r = cli("dedupe", "-l", pair)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith("Group 1: 2 entries, score ")
    rows = [ln.split("\t") for ln in lines[1:3]]
    assert [row[:4] for row in rows] == [["1", "fischer2021contrastive", "inproceedings", "2"],
                                         ["2", "fischer2020arxiv", "misc", "17"]]
    assert "fischer2021contrastive" in lines[3] and "fischer2020arxiv" in lines[3]
    assert "title 99" in lines[3]


def test_control_characters_in_entries_are_shown_not_sent_to_the_terminal(cli, tmp_path):
    text = PAIR.replace("Pre-training of Code Embeddings}", "Pre-training of Code Embeddings\x1b}")
    lib = write(tmp_path / "lib.bib", text)
    r = cli("dedupe", "-l", lib)
    assert r.exit_code == 0, r.output
    assert "\x1b" not in r.stdout
    assert "Code Embeddings\u241b" in r.stdout


def test_merge_prompt_asks_again_on_an_answer_it_does_not_know(cli, pair):
    before = pair.read_bytes()
    r = cli("dedupe", "--merge", "-l", pair, input="x\ns\n")
    assert r.exit_code == 0, r.output
    assert "please answer one of m, s, d, q" in r.stderr
    assert "Group 1 of 1: 2 entries" in r.stderr
    assert pair.read_bytes() == before


# ---------------------------------------------------------------- --explain
def test_explain_says_when_blocking_never_compares_a_pair(cli, tmp_path):
    """--explain gives the answer dedupe gives: a pair no block proposes is never
    compared, so it is no duplicate, whatever its fields weigh."""
    lib = write(tmp_path / "t.bib", """
@article{a, author = {Kim, Dae and Park, Ji}, title = {Adaptive query processing in streams},
  journal = {VLDB J}, year = 2020}
@article{b, author = {Kim, Dae and Park, Ji}, title = {Garbage collection for actors},
  journal = {VLDB J}, year = 2020}
""")
    r = cli("dedupe", "--explain", "a", "b", "-l", lib)
    assert r.stdout.startswith("a ~ b: never compared: no shared block")
    got = json.loads(cli("dedupe", "--explain", "a", "b", "--format", "json", "-l", lib).stdout)
    assert got["explain"]["compared"] is False and got["explain"]["duplicate"] is False


def test_the_context_cap_is_said_once(cli, tmp_path):
    lib = write(tmp_path / "t.bib", """
@article{a, author = {Kim, Dae and Park, Ji and Lee, Su}, title = {Adaptive query processing
  in data streams}, journal = {VLDB J}, volume = 12, number = 3, year = 2020}
@article{b, author = {Kim, D. and Park, J. and Lee, S.}, title = {Adaptive query processing
  in data streams}, journal = {The VLDB Journal}, volume = 12, number = 3, year = 2020}
""")
    out = cli("dedupe", "--explain", "a", "b", "-l", lib).stdout
    assert out.count("count together at most") == 1
    assert out.count("*)") >= 2  # each capped field is marked


def test_merge_dry_run_shows_the_text_the_merge_writes(cli, tmp_path):
    """The dry run prints what the real merge lands: the file's field spelling and its
    CRLF newlines, not a freshly formatted entry."""
    crlf = tmp_path / "crlf.bib"
    crlf.write_bytes(PAIR.replace("  author =", "  Author =").replace("\n", "\r\n").encode())
    shown = cli("dedupe", "--merge", "--yes", "--dry-run", "-l", crlf).stdout_bytes.decode()
    assert "Author = {Fischer, Lena and Novak, Tomas}" in shown
    assert cli("dedupe", "--merge", "--yes", "-l", crlf).exit_code == 0
    written = crlf.read_bytes().decode()
    start = written.index("@inproceedings{fischer2021contrastive,")
    assert "\r\n" in shown
    assert shown.rstrip("\r\n") == written[start:written.index("}\r\n", start) + 1]
