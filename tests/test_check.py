"""pubcli check: every kind of finding with its file and line, the three output
formats, the exit statuses, and that checking never writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pubcli.usecases import checks
from pubcli import store

from .conftest import write

CONFIG = 'areas = ["Artificial intelligence", "Systems and networking"]\n'

# One problem per entry, each on a known line.
BAD = """\
% a library with one problem per entry
@article{okarticle,
  author = {Ada Lovelace},
  title = {Fine},
  journal = {J},
  year = {1843},
  keywords = {Artificial intelligence},
}

@article{nojournal,
  author = {A B},
  title = {No journal},
  year = {2020},
}

@inproceedings{badyear, author = {A B}, title = {T}, booktitle = {B}, year = {20x4}}
@misc{baddate, date = {2020-13-01}}
@misc{baddoi, doi = {doi.org/abc}}
@misc{badurl, url = {www.example.com}}
@misc{unknownarea, keywords = {Artificial inteligence, Basket weaving}}
@inproceeding{typo, title = {t}}
@misc{dupfield, title = {a}, title = {b}}
@misc{okarticle, title = {second use of the key}}
@misc{broken, title = {never closed
@misc{after, title = {after the broken one}}
"""


def findings_of(text: str, areas=("Artificial intelligence", "Systems and networking")):
    return checks.check(store.loads(text), areas=list(areas))


def by_code(found):
    out: dict[str, list] = {}
    for f in found:
        out.setdefault(f.code, []).append(f)
    return out


def test_each_kind_of_problem_is_found_on_its_line():
    found = by_code(findings_of(BAD))
    assert [(f.line, f.key, f.field) for f in found["missing-field"]] == [(10, "nojournal",
                                                                          "journal")]
    assert [(f.line, f.key, f.field) for f in found["bad-year"]] == [(16, "badyear", "year")]
    assert [(f.line, f.key) for f in found["bad-date"]] == [(17, "baddate")]
    assert [(f.line, f.key, f.field) for f in found["bad-doi"]] == [(18, "baddoi", "doi")]
    assert [(f.line, f.key, f.field) for f in found["bad-url"]] == [(19, "badurl", "url")]
    areas = found["unknown-area"]
    assert [(f.line, f.key, f.field) for f in areas] == [(20, "unknownarea", "keywords")] * 2
    assert "did you mean 'Artificial intelligence'" in areas[0].message
    assert "Basket weaving" in areas[1].message
    assert [(f.line, f.key) for f in found["unknown-type"]] == [(21, "typo")]
    assert "did you mean '@inproceedings'" in found["unknown-type"][0].message
    assert [(f.line, f.key, f.field) for f in found["duplicate-field"]] == [(22, "dupfield",
                                                                            "title")]
    dup = found["duplicate-key"]
    assert [(f.line, f.key, f.severity) for f in dup] == [(23, "okarticle", "error")]
    assert "first used on line 2" in dup[0].message
    assert [(f.line, f.severity) for f in found["parse-error"]] == [(24, "error")]
    # the entry after the broken block is shown, and said to be unread by BibTeX (it is
    # inside the value never closed); nothing else is wrong with it
    after = [f for f in findings_of(BAD) if f.key == "after"]
    assert [(f.line, f.code, f.severity) for f in after] == [(25, "unread-entry", "warning")]
    assert "BibTeX does not read this entry" in after[0].message
    # findings come in file order
    lines = [f.line for f in findings_of(BAD)]
    assert lines == sorted(lines)


@pytest.mark.parametrize("entry", [
    "@article{a, author={X}, title={T}, journaltitle={J}, date={2020-05}}",   # biblatex names
    "@book{b, editor={X}, title={T}, publisher={P}, year={2020}}",             # editor for author
    "@inbook{c, author={X}, title={T}, pages={1--2}, publisher={P}, year={2020}}",
    "@misc{d, doi={https://doi.org/10.1145/3458817.3476205}, url={https://example.org/a?b=c}}",
    "@misc{e, doi={10.48550/arXiv.2306.10209}, date={2020-01-01/2020-12-31}}",
    "@misc{f, year = 2021, keywords={systems and networking}}",
    "@online{g, title={T}, url={ftp://ftp.example.org/x}}",
])
def test_valid_entries_give_no_findings(entry):
    assert findings_of(entry + "\n") == []


def test_required_fields_inherited_through_crossref():
    text = ("@inproceedings{child, author={A}, title={T}, crossref={conf}}\n"
            "@proceedings{conf, title={Proceedings of Things}, year={2020}}\n")
    assert findings_of(text) == []
    # without the parent, the child lacks booktitle and year
    missing = by_code(findings_of(text.splitlines()[0] + "\n"))["missing-field"]
    assert [f.field for f in missing] == ["booktitle", "year"]


def test_empty_required_field_counts_as_missing():
    found = findings_of("@article{a, author={X}, title={ }, journal={J}, year={2020}}\n")
    assert [(f.code, f.field) for f in found] == [("missing-field", "title")]


def test_area_check_is_skipped_without_a_vocabulary():
    text = "@misc{a, keywords={Basket weaving}}\n"
    assert findings_of(text, areas=()) == []
    assert [f.code for f in findings_of(text)] == ["unknown-area"]
    # case and spacing do not matter
    assert findings_of("@misc{a, keywords={artificial   INTELLIGENCE}}\n") == []


# ------------------------------------------------------------------ the command
@pytest.fixture
def bad_lib(tmp_path) -> Path:
    write(tmp_path / "pubcli.toml", CONFIG)
    return write(tmp_path / "library.bib", BAD)


def test_clean_library_exits_0_and_says_so(cli, library):
    before = library.read_bytes()
    r = cli("check", "--library", library)
    assert r.exit_code == 0, r.output
    assert r.stdout == ""
    assert "no problems found" in r.stderr
    assert library.read_bytes() == before


def test_findings_exit_1_with_file_and_line_in_text(cli, bad_lib, chdir):
    chdir(bad_lib.parent)
    before = bad_lib.read_bytes()
    r = cli("check", "--library", "library.bib")
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert "library.bib:10: warning: entry 'nojournal' (@article) has no journal or " \
           "journaltitle [missing-field]" in lines
    assert any(ln.startswith("library.bib:23: error: duplicate key 'okarticle'") for ln in lines)
    assert any(ln.startswith("library.bib:24: error: could not parse") and
               ln.endswith("[parse-error]") for ln in lines)
    assert "2 errors, 10 warnings" in r.stderr
    assert bad_lib.read_bytes() == before
    assert sorted(p.name for p in bad_lib.parent.iterdir()) == ["library.bib", "pubcli.toml"]


def test_json_format_is_a_list_of_findings(cli, bad_lib):
    r = cli("check", "--format", "json", str(bad_lib))
    assert r.exit_code == 1
    rows = json.loads(r.stdout)
    assert {tuple(sorted(row)) for row in rows} == {
        ("code", "field", "file", "key", "line", "message", "severity")}
    assert {"file": str(bad_lib), "line": 16, "key": "badyear", "field": "year",
            "code": "bad-year", "severity": "warning",
            "message": "entry 'badyear': year '20x4' is not a four-digit year"} in rows
    assert sum(row["severity"] == "error" for row in rows) == 2


def test_json_for_a_clean_library_is_an_empty_list(cli, library):
    r = cli("check", "-f", "json", "-l", library)
    assert r.exit_code == 0 and json.loads(r.stdout) == []


def test_github_format_annotations(cli, tmp_path, chdir):
    chdir(tmp_path)
    write(tmp_path / "pubcli.toml", CONFIG)
    # a file name with a comma and a message with a percent sign need escaping
    write(tmp_path / "a,b.bib", "@misc{k, url={50% off}}\n@misc{k, title={again}}\n")
    r = cli("check", "--format", "github", "a,b.bib")
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        "::warning file=a%2Cb.bib,line=1,title=pubcli bad-url::entry 'k': URL '50%25 off' is "
        "not an http(s):// or ftp:// address without spaces",
        "::error file=a%2Cb.bib,line=2,title=pubcli duplicate-key::duplicate key 'k' "
        "(first used on line 1)",
    ]


def test_several_files_each_with_their_own_config(cli, tmp_path, bad_lib):
    other = tmp_path / "other" / "deeper"   # out of reach of bad_lib's pubcli.toml
    other.mkdir(parents=True)
    clean = write(other / "clean.bib", "@misc{a, keywords={Basket weaving}}\n")  # no vocabulary
    r = cli("check", clean)
    assert r.exit_code == 0
    r = cli("check", clean, bad_lib)
    assert r.exit_code == 1
    assert {ln.split(":")[0] for ln in r.stdout.splitlines()} == {str(bad_lib)}


@pytest.mark.parametrize("content, message", [
    ("é".encode("latin-1") + b"@misc{a, title={caf\xe9}}\n", "not valid UTF-8"),
    ("@misc{a}\n".encode("utf-16"), "UTF-16"),
])
def test_unreadable_file_exits_2_with_one_line(cli, tmp_path, content, message):
    path = write(tmp_path / "lib.bib", content)
    r = cli("check", path)
    assert r.exit_code == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"error: {path}:1: ")
    assert message in r.stderr
    assert path.read_bytes() == content


def test_unreadable_file_among_others_still_reports_the_rest(cli, tmp_path, bad_lib):
    missing = tmp_path / "missing.bib"
    r = cli("check", "-f", "json", bad_lib, missing)
    assert r.exit_code == 2
    assert len(json.loads(r.stdout)) == 12
    assert r.stderr == f"error: {missing}: no such file\n"


def test_every_unreadable_file_gets_its_error_line_from_the_boundary(cli, tmp_path, bad_lib):
    one, two = tmp_path / "one.bib", tmp_path / "two.bib"
    r = cli("check", one, bad_lib, two)
    assert r.exit_code == 2  # a read error outranks the findings of the readable file
    assert r.stderr == f"error: {one}: no such file\nerror: {two}: no such file\n"
    assert r.stdout.count("\n") == 12


def test_check_returns_its_exit_code_instead_of_exiting(library):
    """check is a function that returns FOUND or OK; only the boundary exits."""
    from pubcli.cli.check_cmd import CheckFormat, check_command
    from pubcli.errors import ExitCode

    assert check_command(files=[library], format=CheckFormat.text, dedupe=False,
                         library=None) is ExitCode.OK
    library.write_text(library.read_text() + "\n@misc{nokey_year, year = {20x4}}\n")
    assert check_command(files=[library], format=CheckFormat.text, dedupe=False,
                         library=None) is ExitCode.FOUND


def test_bad_config_exits_2(cli, tmp_path):
    write(tmp_path / "pubcli.toml", "areas = 3\n")
    lib = write(tmp_path / "library.bib", "@misc{a}\n")
    r = cli("check", lib)
    assert r.exit_code == 2 and "field 'areas': must be a list of strings" in r.stderr


def test_dedupe_reports_duplicate_groups(cli, tmp_path):
    write(tmp_path / "pubcli.toml", CONFIG)
    text = (
        "@inproceedings{rajbhandari2020zero,\n  author = {Rajbhandari, Samyam and Rasley, Jeff "
        "and Ruwase, Olatunji and He, Yuxiong},\n  title = {{ZeRO}: Memory Optimizations Toward "
        "Training Trillion Parameter Models},\n  booktitle = {SC20},\n  year = {2020},\n}\n\n"
        "@misc{zero2019arxiv,\n  author = {Samyam Rajbhandari and Jeff Rasley and Olatunji "
        "Ruwase and Yuxiong He},\n  title = {ZeRO: Memory Optimizations Toward Training "
        "Trillion Parameter Models},\n  year = {2020},\n  eprint = {1910.02054},\n}\n\n"
        "@misc{other2020, title = {Something Else Entirely}, year = {2020}}\n")
    lib = write(tmp_path / "library.bib", text)
    r = cli("check", "-f", "json", lib)
    # without --dedupe the two are fine; the arXiv entry's ZeRO is not braced
    assert [(row["code"], row["key"]) for row in json.loads(r.stdout)] == \
        [("unprotected-acronym", "zero2019arxiv")]
    r = cli("check", "--dedupe", "-f", "json", lib)
    assert r.exit_code == 1
    rows = [row for row in json.loads(r.stdout) if row["code"] == "possible-duplicate"]
    assert [(row["line"], row["key"]) for row in rows] == [(1, "rajbhandari2020zero")]
    assert "'zero2019arxiv' (line 8)" in rows[0]["message"]
    # a pair the user marked "not duplicates" (pubcli dedupe remembers it) is not reported
    write(tmp_path / "library.distinct.txt", "zero2019arxiv rajbhandari2020zero\n")
    r = cli("check", "--dedupe", "-f", "json", lib)
    assert "possible-duplicate" not in [row["code"] for row in json.loads(r.stdout)]


def test_the_pre_commit_hook_runs_check_on_the_files_it_is_given(cli, tmp_path, bad_lib):
    """.pre-commit-hooks.yaml's pubcli-check hook: its entry, given .bib files as
    pre-commit passes them, fails on findings and passes a clean file."""
    from .conftest import ROOT

    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    hook = text.split("- id: pubcli-check\n", 1)[1].split("\n- id:", 1)[0]
    fields = dict(line.strip().split(": ", 1) for line in hook.splitlines() if ": " in line)
    assert fields["language"] == "python" and fields["types"] == "[bib]"
    entry = fields["entry"].split()
    assert entry[:2] == ["pubcli", "check"]
    clean_dir = tmp_path / "x" / "y"
    clean_dir.mkdir(parents=True)
    clean = write(clean_dir / "clean.bib", "@misc{a, title = {Fine}}\n")
    assert cli(*entry[1:], clean).exit_code == 0
    r = cli(*entry[1:], clean, bad_lib)
    assert r.exit_code == 1 and str(bad_lib) in r.stdout


def test_a_field_written_twice_is_named_as_data_whatever_the_reason_text(tmp_path):
    from pubcli import bibtex, store
    from pubcli.usecases.checks import check

    lib = tmp_path / "library.bib"
    lib.write_text("@misc{a,\n  title = {T},\n  Title = {U},\n  note = {n},\n  note = {m},\n}\n",
                   encoding="utf-8")
    found = [f for f in check(store.load(lib)) if f.code == "duplicate-field"]
    assert [(f.key, f.field) for f in found] == [("a", "note, title")]
    assert bibtex.duplicated_fields(bibtex.duplicate_reason(["b", "a"])) == ("a", "b")
    assert bibtex.duplicated_fields(bibtex.UNREAD) == ()
