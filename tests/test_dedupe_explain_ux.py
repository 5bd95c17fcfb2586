"""What a person reads from `import`, `add` and `dedupe --explain` (issue 19 §3):
one screen line a decision on a terminal, the evidence on asking, one answer per pair
whichever command gives it, and the facts behind a weight."""

from __future__ import annotations

import re

import pytest

from pubcli.render.table import fitted

from .conftest import ROOT, SEED_PAGE, write

HARD = ROOT / "tests" / "data" / "dedupe" / "hard_cases.bib"
TERMINAL = {"TTY_COMPATIBLE": "1", "NO_COLOR": "1"}


@pytest.fixture
def empty(tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    return write(d / "library.bib", "% my publications\n")


def cells(line: str) -> int:
    from rich.cells import cell_len

    return cell_len(line)


# ---------------------------------------------------------------- import on a terminal
@pytest.mark.parametrize("columns", [100, 80])
def test_importing_20_papers_on_a_terminal_is_one_screen_line_a_decision(cli, empty, columns):
    """The seed page: 20 papers, 69 items. On a terminal each item is one line no wider
    than the terminal (a long title cut with "…"), then the summary: not the hundreds
    of wrapped table lines a 100-column terminal used to get."""
    r = cli("import", SEED_PAGE, "--dry-run", "-l", empty,
            env={**TERMINAL, "COLUMNS": str(columns)})
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 1 + 69  # the header, then one line an item
    assert lines[0].split() == ["Status", "Key", "Year", "Line", "Title", "Match", "/", "problem"]
    assert all(cells(ln) <= columns for ln in lines), max(lines, key=cells)
    assert sum(ln.startswith("added ") for ln in lines) == 20
    assert any("…" in ln for ln in lines)  # cut, not wrapped
    repeat = next(ln for ln in lines if ln.startswith("repeat ") and " 81 " in ln)
    assert "ZeRO++" in repeat and "same as wang2024" in repeat
    # the summary, and no field weights unless asked
    assert "import of" in r.stderr and "bits" not in r.stderr
    assert len(r.stderr.splitlines()) < 15


def test_a_title_with_no_match_beside_it_takes_the_match_column_too(cli, empty):
    r = cli("import", SEED_PAGE, "--dry-run", "-l", empty, env={**TERMINAL, "COLUMNS": "100"})
    added = next(ln for ln in r.stdout.splitlines() if ln.startswith("added ")
                 and "wang2024zero" in ln)
    title = added[added.index("ZeRO++"):]
    assert len(title) > 40, title  # more than its share of the two columns


def test_the_evidence_on_a_terminal_comes_with_explain_or_verbose(cli, empty):
    plain = cli("import", SEED_PAGE, "--dry-run", "-l", empty, env={**TERMINAL, "COLUMNS": "100"})
    for flag in ("--explain", "--verbose"):
        told = cli("import", SEED_PAGE, "--dry-run", flag, "-l", empty,
                   env={**TERMINAL, "COLUMNS": "100"})
        assert told.stdout == plain.stdout
        assert "~ wang2024zero: duplicates: match probability" in told.stderr
        assert re.search(r"^  title .*\(\+\d+\.\d", told.stderr, re.M)


def test_piped_import_keeps_every_cell_whole(cli, empty):
    r = cli("import", SEED_PAGE, "--dry-run", "-l", empty)
    row = next(ln for ln in r.stdout.splitlines() if ln.startswith("repeat\t"))
    assert len(row.split("\t")) == 6 and "…" not in r.stdout
    assert "says as much or more: that one is kept" in row


def test_fitted_rows_cut_long_cells_and_share_the_rest_by_weight():
    rows = [["added", "k1", "T" * 200, ""], ["repeat", "k2", "U" * 200, "same as k1 " + "x" * 90]]
    head, a, b = fitted(["S", "Key", "Title", "Match"], rows, 60,
                        flexible={"Title": 2, "Match": 3})
    assert all(cells(ln) <= 60 for ln in (head, a, b))
    assert a.endswith("…") and b.endswith("…")
    assert b.count("U") < b.count("x") + len("same as k1 ")  # the match has the bigger share
    assert "same as k1" in b
    # short cells are padded, never cut
    assert fitted(["S", "T"], [["a", "b"]], 60, flexible={"T": 1})[1] == "a  b"


# ---------------------------------------------------------------- add
def test_add_of_a_duplicate_is_one_line_and_explain_does_not_ask_for_itself(cli, library):
    new = ["--title", "ZeRO++: Extremely Efficient Collective Communication for Giant Model "
           "Training", "--author", "Guanhua Wang", "--author", "Olatunji Ruwase",
           "--year", "2024", "--no-interactive", "-l", library]
    r = cli("add", *new, env=TERMINAL)
    assert r.exit_code == 2
    assert len(r.stderr.splitlines()) == 1
    assert "--explain says why" in r.stderr
    told = cli("add", *new, "--explain", env=TERMINAL)
    assert told.exit_code == 2
    assert told.stderr.count("Giant Model Training") == 2  # the verdict, then the refusal
    assert "--explain says why" not in told.stderr
    assert told.stderr.splitlines()[-1].startswith("error: ")


def test_add_from_a_file_names_every_duplicate_in_it_one_line_each(cli, library, tmp_path):
    """Twenty entries of which several are in the library already: every duplicate is
    named (its line and its match) in one go, not one per attempt."""
    from pubcli import store

    shipped = store.load(library).records
    text = "".join(f"@misc{{copy{n},\n  author = {{{r.fields['author']}}},\n"
                   f"  title = {{{r.title}}},\n  year = {{{r.year}}},\n}}\n\n"
                   for n, r in enumerate(shipped[:3]))
    text += "".join(f"@misc{{fresh{n},\n  author = {{Nobody, Anne}},\n  title = {{A fresh "
                    f"study of topic number {n} in depth}},\n  year = {{2001}},\n}}\n\n"
                    for n in range(17))
    src = write(tmp_path / "new.bib", text)
    before = library.read_bytes()
    r = cli("add", "--from", src, "-l", library)
    assert r.exit_code == 2 and library.read_bytes() == before
    lines = r.stderr.splitlines()
    for n, rec in enumerate(shipped[:3]):
        assert sum(f"'copy{n}'" in ln and f"'{rec.key}'" in ln for ln in lines) == 1, lines
    assert len(lines) == 4  # three duplicates, then the refusal
    assert lines[-1].startswith("error: 3 of the 20 entries look like duplicates")


# ---------------------------------------------------------------- one answer per pair
def test_import_and_dedupe_explain_give_one_answer_for_every_pair(cli, tmp_path):
    """Importing a file into an empty library skips as a repeat exactly the pairs
    `dedupe --explain` calls duplicates, and its near-duplicates are pairs it calls
    not duplicates."""
    lib = write(tmp_path / "library.bib", "")
    r = cli("import", HARD, "--dry-run", "-l", lib)
    assert r.exit_code == 0, r.output
    judged = []
    for row in r.stdout.splitlines():
        status, key, _, _, ref, _ = row.split("\t")
        m = re.match(r"(?:same as|near) (\S+) \(", ref)
        if m:
            judged.append((status, key, m.group(1)))
    assert sum(s == "repeat" for s, _, _ in judged) >= 10
    for status, a, b in judged:
        said = cli("dedupe", "--explain", a, b, "-l", HARD).stdout.splitlines()[0]
        assert (status == "repeat") == (": duplicates:" in said), (status, said)


def test_explain_of_a_pair_dedupe_never_compares_is_no_duplicate(cli, tmp_path):
    """Two entries alike in all their fields but sharing no block key: `dedupe` never
    lists them, and --explain says why instead of calling them a duplicate."""
    lib = write(tmp_path / "t.bib", """
@article{a, author = {Kim, Dae and Park, Ji}, title = {Adaptive query processing in streams},
  journal = {VLDB J}, year = 2020}
@article{b, author = {Kim, Dae and Park, Ji}, title = {Garbage collection for actors},
  journal = {VLDB J}, year = 2020}
""")
    assert "no duplicates found" in cli("dedupe", "-l", lib).stderr
    said = cli("dedupe", "--explain", "a", "b", "-l", lib).stdout
    assert said.startswith("a ~ b: never compared: no shared block")
    assert ": duplicates:" not in said


# ---------------------------------------------------------------- the facts, once
COLUMNS_BIB = "".join(
    f"@article{{col{i},\n  author = {{Writer{i}, A.}},\n  title = {{Editor's Comments}},\n"
    f"  journal = {{Journal of Things}},\n  volume = {{{i}}},\n  number = {{1}},\n"
    f"  pages = {{{i + 1}--{i + 2}}},\n  year = {{{2000 + i}}},\n}}\n\n" for i in range(6))


def test_explain_says_how_many_records_of_the_venue_carry_the_title(cli, tmp_path):
    lib = write(tmp_path / "cols.bib", COLUMNS_BIB)
    said = cli("dedupe", "--explain", "col1", "col2", "-l", lib).stdout
    assert "this title is carried by 6 records in this venue" in said
    assert ": duplicates:" not in said


def test_the_cap_note_is_said_once_a_pair_in_every_output(cli, tmp_path):
    lib = write(tmp_path / "t.bib", """
@article{a, author = {Kim, Dae and Park, Ji and Lee, Su}, title = {Adaptive query processing
  in data streams}, journal = {VLDB J}, volume = 12, number = 3, year = 2020}
@article{b, author = {Kim, D. and Park, J. and Lee, S.}, title = {Adaptive query processing
  in data streams}, journal = {The VLDB Journal}, volume = 12, number = 3, year = 2020}
""")
    listed = cli("dedupe", "-l", lib).stdout
    told = cli("dedupe", "--explain", "a", "b", "-l", lib).stdout
    for text in (listed, told):
        assert text.count("count together at most") == 1, text
        assert text.count("*)") + text.count("*;") >= 2 or text.count("*") >= 3


# ---------------------------------------------------------------- import judges as dedupe links
ENERGY = "Energy-Aware Scheduling of Serverless Functions on Heterogeneous Clusters"
KOWALSKI = f"""@article{{kowalski2021energy,
  author = {{Kowalski, Anna and Okafor, Chidi}},
  title = {{{ENERGY}}},
  journal = {{IEEE Transactions on Cloud Computing}},
  volume = {{9}},
  pages = {{100--112}},
  year = {{2021}}
}}
"""


def rows(stdout: str) -> dict[str, list[str]]:
    return {c[1]: c for c in (ln.split("\t") for ln in stdout.splitlines())}


def test_an_item_matching_a_skipped_copy_is_a_repeat_as_dedupe_groups_it(cli, tmp_path):
    """a (thin) and b (fuller) are one work, b kept; c matches a but not b. `dedupe`
    links all three (through a); the import skipped c's copy a, and still knows c."""
    thin = f"@misc{{a,\n  title = {{{ENERGY}}},\n  year = {{2021}}\n}}\n\n"
    other = f"@misc{{c,\n  author = {{Larsen, Peter}},\n  title = {{{ENERGY.lower()}}},\n" \
            "  year = {2021}\n}\n"
    src = write(tmp_path / "in.bib", thin + KOWALSKI.replace("kowalski2021energy", "b")
                + "\n" + other)
    assert cli("dedupe", "--explain", "b", "c", "-l", src).stdout.startswith(
        "b ~ c: not duplicates")
    assert "1 group of possible duplicates" in cli("dedupe", "-l", src).stderr
    r = cli("import", src, "--dry-run", "-l", write(tmp_path / "library.bib", ""))
    got = rows(r.stdout)
    assert [got[k][0] for k in "abc"] == ["repeat", "added", "repeat"], r.stdout
    assert got["c"][4].startswith("same as a (")


def test_a_fuller_copy_kept_for_a_near_duplicate_is_judged_by_its_own_fields(cli, tmp_path):
    """x is a near-duplicate of a library entry; y, the fuller copy of x, takes its
    place: y is judged by its own fields (a different work from the library's, as
    `dedupe --explain` says), not shown with x's match probability."""
    lib = write(tmp_path / "library.bib", KOWALSKI)
    src = write(tmp_path / "in.bib", f"""@misc{{x,
  author = {{Larsen, Peter}},
  title = {{{ENERGY.lower()}}},
  year = {{2021}}
}}

@article{{y,
  author = {{Larsen, Peter}},
  title = {{{ENERGY.lower()}}},
  journal = {{Cluster Computing}},
  volume = {{24}},
  pages = {{1--20}},
  year = {{2021}}
}}
""")
    both = write(tmp_path / "both.bib", KOWALSKI + "\n" + src.read_text())
    assert cli("dedupe", "--explain", "x", "kowalski2021energy", "-l", both).stdout \
        .startswith("x ~ kowalski2021energy: not duplicates: match probability 9")
    far = cli("dedupe", "--explain", "y", "kowalski2021energy", "-l", both).stdout
    assert re.match(r"y ~ kowalski2021energy: not duplicates: match probability \d\.", far)
    got = rows(cli("import", src, "--dry-run", "-l", lib).stdout)
    assert got["y"][0] == "added" and got["y"][4] == "", got["y"]
    assert got["x"][0] == "repeat" and got["x"][4].startswith("same as y (")
