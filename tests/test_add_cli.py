"""`pubcli add` through the CLI, on a temp copy of the shipped library."""

from __future__ import annotations

import re

import pytest

from pubcli import store

from .conftest import write

NEW = ["--type", "inproceedings", "--title", "Scaling Sparse Attention to Long Documents",
       "--author", "Ada Lovelace", "--author", "Ruwase, Olatunji", "--year", "2025",
       "--venue", "NeurIPS 2025"]


def entries(path):
    return {r.key: r for r in store.load(path).records}


def assert_unchanged(path, before: bytes):
    assert path.read_bytes() == before


def test_add_appends_only_the_new_entry(cli, library):
    before = library.read_bytes()
    r = cli("add", *NEW, "--month", "5", "--doi", "https://doi.org/10.1000/xyz.1",
            "--url", "https://example.org/p.pdf", "--area", "artificial intelligence",
            "--field", "note=Oral", "--featured", "-l", library)
    assert r.exit_code == 0, r.output
    assert r.stdout == "lovelace2025scaling\n"
    after = library.read_bytes()
    assert after.startswith(before)
    assert after[len(before):].decode() == (
        "\n@inproceedings{lovelace2025scaling,\n"
        "  author = {Ada Lovelace and Ruwase, Olatunji},\n"
        "  title = {Scaling Sparse Attention to Long Documents},\n"
        "  booktitle = {NeurIPS 2025},\n"
        "  year = {2025},\n"
        "  month = may,\n"
        "  doi = {10.1000/xyz.1},\n"
        "  url = {https://example.org/p.pdf},\n"
        "  note = {Oral},\n"
        "  keywords = {Artificial intelligence},\n"
        "  featured = {true},\n"
        "}\n")
    rec = entries(library)["lovelace2025scaling"]
    assert rec.featured and rec.areas == ["Artificial intelligence"]


def test_dry_run_prints_the_bibtex_and_writes_nothing(cli, library):
    before = library.read_bytes()
    r = cli("add", *NEW, "--dry-run", "-l", library)
    assert r.exit_code == 0
    assert r.stdout.startswith("@inproceedings{lovelace2025scaling,\n  author = {")
    assert "nothing was written" in r.stderr
    assert_unchanged(library, before)


def test_generated_key_gets_a_suffix_when_taken(cli, library):
    r = cli("add", "--title", "ZeRO++: A Different Paper Entirely", "--author", "Wang, Guanhua",
            "--year", "2024", "-l", library)
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == "wang2024zeroa"
    assert "wang2024zero" in entries(library)  # the existing key is untouched


def test_explicit_key(cli, library):
    r = cli("add", *NEW, "--key", "my-key:2025", "-l", library)
    assert r.exit_code == 0 and r.stdout.strip() == "my-key:2025"


@pytest.mark.parametrize("args,message", [
    (["--year", "25"], "4-digit year"),
    (["--type", "journal"], "unknown entry type 'journal'"),
    (["--key", "bad key"], "not a valid BibTeX key"),
    (["--key", "WANG2024ZERO"], "already in the library"),
    (["--field", "nonsense"], "name=value"),
    (["--doi", "12345"], "is not a DOI"),
    (["--area", "Sytems and networking"], "did you mean 'Systems and networking'"),
    (["--area", "Vision, Graphics"], "separator"),
    (["--month", "13"], "month"),
])
def test_each_refusal_is_one_line_and_writes_nothing(cli, library, args, message):
    before = library.read_bytes()
    base = [a for a in NEW]
    if "--year" in args:
        i = base.index("--year")
        del base[i:i + 2]
    if "--type" in args:
        i = base.index("--type")
        del base[i:i + 2]
    r = cli("add", *base, *args, "-l", library)
    assert r.exit_code == 2
    assert message in r.stderr
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1
    assert r.stdout == ""  # no key printed: nothing was added
    assert_unchanged(library, before)


def test_missing_required_fields_without_a_terminal(cli, library):
    before = library.read_bytes()
    r = cli("add", "--type", "article", "--title", "T", "--year", "2020", "-l", library)
    assert r.exit_code == 2
    assert "@article needs author, journal (or journaltitle)" in r.stderr
    assert "run on a terminal" in r.stderr
    assert_unchanged(library, before)


def test_unknown_type_with_force(cli, library):
    r = cli("add", "--type", "podcast", "--title", "Episode One About Systems", "--year", "2023",
            "--force", "-l", library)
    assert r.exit_code == 0, r.output
    assert entries(library)["2023episode"].type == "podcast"


def test_new_area_needs_new(cli, library):
    r = cli("add", *NEW, "--area", "Quantum computing", "-l", library)
    assert r.exit_code == 2 and "--new" in r.stderr
    r = cli("add", *NEW, "--area", "Quantum computing", "--new", "-l", library)
    assert r.exit_code == 0, r.output
    assert "not in the 'areas'" in r.stderr
    assert entries(library)["lovelace2025scaling"].areas == ["Quantum computing"]


# ------------------------------------------------------------------ duplicate guard
def test_duplicate_is_shown_and_refused(cli, library):
    before = library.read_bytes()
    r = cli("add", "--title", "ZeRO++: Extremely Efficient Collective Communication for "
            "Giant Model Training", "--author", "Guanhua Wang", "--author", "Olatunji Ruwase",
            "--year", "2024", "-l", library)
    assert r.exit_code == 2
    # one decision, one line: the match, where, what carried it, how likely
    assert r.stderr.count("\n") == 1 and r.stderr.count("Giant Model Training") == 1
    assert "looks like a duplicate of 'wang2024zero' (line 5; title + authors" in r.stderr
    assert "--force" in r.stderr and "--explain" in r.stderr
    assert_unchanged(library, before)


def test_explain_shows_every_weight_and_the_cap_note_once(cli, library):
    r = cli("add", "--title", "ZeRO++: Extremely Efficient Collective Communication for "
            "Giant Model Training", "--author", "Guanhua Wang", "--author", "Olatunji Ruwase",
            "--year", "2024", "--explain", "-l", library)
    assert r.exit_code == 2
    lines = r.stderr.splitlines()
    assert lines[0].endswith("~ wang2024zero: duplicates: match probability 99.9% "
                             "(+10.0 bits; the threshold is 98%)") or "~ wang2024zero: " \
        "duplicates: match probability" in lines[0]
    fields = [ln.split()[0] for ln in lines[1:-1] if ln.startswith("  ")]
    assert {"title", "authors", "year"} <= set(fields)
    assert sum("count together at most" in ln for ln in lines) <= 1
    assert lines[-1].startswith("error: ")


def test_explain_names_how_many_records_of_the_venue_carry_a_title(cli, tmp_path):
    """A column's heading: the note says the fact behind its small weight."""
    text = "".join(
        f"@article{{col{i},\n  author = {{Writer{i}, A.}},\n  title = {{Editor's Comments}},\n"
        f"  journal = {{Journal of Things}},\n  volume = {{{i}}},\n  year = {{{2000 + i}}},\n}}\n\n"
        for i in range(6))
    lib = write(tmp_path / "cols.bib", text)
    r = cli("add", "--type", "article", "--title", "Editor's comments", "--author",
            "Writer3, A.", "--venue", "Journal of Things", "--year", "2003",
            "--field", "volume=3", "--explain", "--force", "-l", lib)
    assert r.exit_code == 0, r.output
    assert "not duplicates" in r.stderr
    assert re.search(r"this title is carried by [67] records in this venue", r.stderr)


def test_duplicate_by_doi_even_with_another_title_wording(cli, library):
    r = cli("add", *NEW, "--doi", "10.1000/abc", "-l", library)
    assert r.exit_code == 0
    r = cli("add", "--title", "Scaling Sparse Attention to Long Documents (extended)",
            "--author", "Someone Else", "--year", "2026", "--doi", "doi:10.1000/ABC",
            "-l", library)
    assert r.exit_code == 2 and "same DOI" in r.stderr


def test_force_adds_a_duplicate(cli, library):
    r = cli("add", "--title", "ZeRO: Memory Optimizations Toward Training Trillion Parameter "
            "Models", "--author", "Samyam Rajbhandari", "--year", "2020", "--force",
            "-l", library)
    assert r.exit_code == 0, r.output
    assert "anyway" in r.stderr
    assert r.stdout.strip() == "rajbhandari2020zeroa"


# ------------------------------------------------------------------ interactive
def test_prompts_for_missing_required_fields(cli, library):
    before = library.read_bytes()
    answers = "\n".join(["article",                 # entry type
                         "Sparse Things at Scale",  # title
                         "Ada Lovelace and Charles Babbage",
                         "",                         # journal left empty: asked again
                         "Journal of Things",
                         "99",                       # not a year: asked again
                         "2021",
                         ""]) + "\n"                 # no research area
    r = cli("add", "--interactive", "-l", library, input=answers)
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == "lovelace2021sparse"
    assert "Entry type" in r.stderr and "Journal" in r.stderr
    assert "journal is required" in r.stderr and "4-digit year" in r.stderr
    rec = entries(library)["lovelace2021sparse"]
    assert rec.type == "article"
    assert rec.fields["author"] == "Ada Lovelace and Charles Babbage"
    assert rec.fields["journal"] == "Journal of Things" and rec.fields["year"] == "2021"
    assert library.read_bytes().startswith(before)


def test_prompts_only_for_what_is_missing(cli, library):
    r = cli("add", "--interactive", "--type", "inproceedings", "--title", "Only Venue Missing",
            "--author", "Ada Lovelace", "--year", "2022", "--area", "computer vision",
            "-l", library, input="ICML 2022\n")
    assert r.exit_code == 0, r.output
    assert "Entry type" not in r.stderr and "Areas" not in r.stderr  # --area answered it
    assert entries(library)["lovelace2022only"].fields["booktitle"] == "ICML 2022"


def test_the_interactive_add_asks_for_areas_naming_the_known_ones(cli, library):
    r = cli("add", "--interactive", "--type", "inproceedings", "--title", "Areas Asked",
            "--author", "Ada Lovelace", "--year", "2022", "-l", library,
            input="ICML 2022\nsystems and networking, computer vison\n"
                  "systems and networking, Computer vision\n")
    assert r.exit_code == 0, r.output
    assert "research areas: Artificial intelligence; Programming languages" in r.stderr
    assert "did you mean 'Computer vision'" in r.stderr  # the typo: said, asked again
    assert entries(library)["lovelace2022areas"].areas == ["Systems and networking",
                                                           "Computer vision"]


def test_the_input_ending_at_the_areas_question_writes_nothing(cli, library):
    before = library.read_bytes()
    r = cli("add", "--interactive", "--type", "inproceedings", "--title", "Areas Asked",
            "--author", "Ada Lovelace", "--year", "2022", "-l", library, input="ICML 2022\n")
    assert r.exit_code == 2 and "input ended" in r.stderr
    assert_unchanged(library, before)


def test_no_prompt_when_nothing_is_missing(cli, library):
    r = cli("add", "--interactive", *NEW, "-l", library, input="")
    assert r.exit_code == 0, r.output


def test_input_ending_during_prompts_writes_nothing(cli, library):
    before = library.read_bytes()
    r = cli("add", "--interactive", "--type", "article", "-l", library, input="A Title\n")
    assert r.exit_code == 2
    assert "input ended" in r.stderr
    assert_unchanged(library, before)


# ------------------------------------------------------------------ --from
BIB = """@string{nips = {Advances in Neural Information Processing Systems}}
@inproceedings{lee2019sparse,
  author = {Lee, Kim and Ruwase, Olatunji},
  title = {Sparse Gradient Compression for Distributed Training},
  booktitle = nips,
  year = 2019,
}

@article{ruwase2004practical,
  author = {Novak, Jan},
  title = {Unrelated Journal Paper on Caches},
  journal = {Journal of Caches},
  year = {2004},
}
"""


def test_from_file_adds_every_entry_and_renames_a_taken_key(cli, library, tmp_path):
    src = write(tmp_path / "new.bib", BIB)
    before = library.read_bytes()
    r = cli("add", "--from", src, "--area", "Systems and networking", "-l", library)
    assert r.exit_code == 0, r.output
    assert r.stdout.split() == ["lee2019sparse", "ruwase2004practicala"]
    assert "the key 'ruwase2004practical' is taken" in r.stderr
    after = entries(library)
    assert after["lee2019sparse"].fields["booktitle"] == \
        "Advances in Neural Information Processing Systems"
    assert after["ruwase2004practicala"].areas == ["Systems and networking"]
    assert library.read_bytes().startswith(before)


def test_from_stdin(cli, library):
    r = cli("add", "--from", "-", "--featured", "-l", library, input=BIB)
    assert r.exit_code == 0, r.output
    assert entries(library)["lee2019sparse"].featured


def test_from_refuses_a_duplicate_and_writes_nothing(cli, library, tmp_path):
    dup = BIB + """
@misc{copy,
  author = {Ovtcharov, Kalin and Ruwase, Olatunji},
  title = {Accelerating Deep Convolutional Neural Networks Using Specialized Hardware},
  year = {2015},
}
"""
    before = library.read_bytes()
    r = cli("add", "--from", write(tmp_path / "d.bib", dup), "-l", library)
    assert r.exit_code == 2
    assert "'copy' looks like a duplicate of 'ovtcharov2015accelerating'" in r.stderr
    assert_unchanged(library, before)


def test_from_refuses_a_broken_or_invalid_entry_with_its_line(cli, library, tmp_path):
    before = library.read_bytes()
    bad = write(tmp_path / "bad.bib", "@article{x,\n  title = {T},\n  year = {2020},\n}\n")
    r = cli("add", "--from", bad, "--strict", "-l", library)
    assert r.exit_code == 2
    assert f"{bad}:1: entry 'x': @article needs author" in r.stderr
    broken = write(tmp_path / "broken.bib", "@misc{ok, title = {Fine}}\n@misc{y,\n  title = "
                   "{Unclosed\n")
    r = cli("add", "--from", broken, "-l", library)
    assert r.exit_code == 2 and f"{broken}:2:" in r.stderr
    empty = write(tmp_path / "empty.bib", "% nothing\n")
    r = cli("add", "--from", empty, "-l", library)
    assert r.exit_code == 2 and "no BibTeX entries" in r.stderr
    r = cli("add", "--from", tmp_path / "missing.bib", "-l", library)
    assert r.exit_code == 2 and "no such file" in r.stderr
    assert_unchanged(library, before)


def test_from_cannot_be_combined_with_record_options(cli, library, tmp_path):
    r = cli("add", "--from", write(tmp_path / "a.bib", BIB), "--title", "X", "-l", library)
    assert r.exit_code == 2 and "--title cannot be combined" in r.stderr


def test_a_mistyped_type_gets_one_suggestion_not_the_whole_list(cli, library):
    r = cli("add", "--type", "artcle", "--title", "X", "--author", "A B", "--year", "2020",
            "-l", library)
    assert r.exit_code == 2
    assert r.stderr == ("error: field 'type': unknown entry type 'artcle'; did you mean "
                        "'article'? (pass --force to use it anyway)\n")
