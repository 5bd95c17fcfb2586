"""`pubcli list` through the CLI: groups, counts, filters, formats, errors."""

from __future__ import annotations

import csv
import io
import json

import pytest

from pubcli import store
from pubcli.usecases.grouping import group
from pubcli.schema.model import GroupBy

from .conftest import ROOT, golden, write

def headings(output: str) -> list[str]:
    return [line for line in output.splitlines() if line and not line.startswith("  ")]


def test_by_year_gives_eleven_groups_newest_first(cli, library):
    r = cli("list", "--by", "year", "-l", library)
    assert r.exit_code == 0, r.output
    assert headings(r.stdout) == [
        "2024 (2 publications)", "2022 (1 publication)", "2021 (3 publications)",
        "2020 (1 publication)", "2017 (2 publications)", "2016 (1 publication)",
        "2015 (4 publications)", "2014 (1 publication)", "2010 (1 publication)",
        "2008 (3 publications)", "2004 (1 publication)"]
    assert "\x1b[" not in r.stdout  # piped: no ANSI codes
    golden("list_by_year.txt", r.stdout)


def test_by_area_lists_a_paper_under_each_of_its_areas(cli, library):
    r = cli("list", "--by", "area", "-l", library)
    assert headings(r.stdout) == [
        "Artificial intelligence (10 publications)",
        "Programming languages and software engineering (5 publications)",
        "Systems and networking (11 publications)",
        "Hardware and devices (2 publications)",
        "Computer vision (1 publication)"]
    assert r.stdout.count("Accelerating Deep Convolutional Neural Networks Using Specialized") == 4


def test_by_type_groups_reports_preprints_and_conference_papers(cli, library):
    r = cli("list", "--by", "type", "--format", "json", "-l", library)
    data = json.loads(r.stdout)
    groups = {g["name"]: [e["key"] for e in g["entries"]] for g in data["groups"]}
    assert list(groups) == ["Technical reports", "Conference papers", "Preprints and other"]
    assert groups["Technical reports"] == ["abdin2024phi3", "yazdaniaminabadi2022deepspeed"]
    assert sorted(groups["Preprints and other"]) == sorted(
        ["rajbhandari2021zeroinfinity", "ren2021zerooffload", "rajbhandari2020zero",
         "ovtcharov2015accelerating"])
    assert len(groups["Conference papers"]) == 14


def test_areas_follow_the_configured_order_else_names(cli, library):
    (library.parent / "pubcli.toml").write_text(
        'areas = ["Computer vision", "Artificial intelligence"]\n')
    r = cli("list", "--by", "area", "-l", library)
    assert headings(r.stdout)[:3] == ["Computer vision (1 publication)",
                                      "Artificial intelligence (10 publications)",
                                      "Hardware and devices (2 publications)"]


def test_latex_shows_as_unicode_and_owner_is_found(cli, tmp_path):
    lib = write(tmp_path / "l.bib", r"""@article{m1,
  author = {M{\"u}ller, J{\"o}rg and Ruwase, Olatunji and Doe, A. and Roe, B. and Poe, C.},
  title = {{ZeRO}-like {GPU} tricks -- a study},
  journal = {J. of {T}hings},
  year = 2020
}
""")
    r = cli("list", "-l", lib, "--owner", "Olatunji Ruwase")
    assert "ZeRO-like GPU tricks – a study" in r.stdout
    assert "Jörg Müller, Olatunji Ruwase" in r.stdout
    assert "{" not in r.stdout


@pytest.mark.parametrize("args, keys", [
    (["--area", "computer VISION"], ["ovtcharov2015accelerating"]),
    (["--year", "2008"], ["dogar2008ditto", "chen2008flexible", "ruwase2008parallelizing"]),
    (["--year", "2016..2017", "--type", "inproceedings"],
     ["rasley2017hyperdrive", "rajbhandari2017optimizing", "yan2016serf"]),
    (["--year", "..2004"], ["ruwase2004practical"]),
    (["--type", "Technical reports"], ["abdin2024phi3", "yazdaniaminabadi2022deepspeed"]),
    (["--author", "lam"], ["ruwase2004practical"]),
    (["--search", "SEBASTIEN bubeck"], ["abdin2024phi3"]),   # accent- and case-insensitive
    (["--search", "hotchips"], ["ovtcharov2015toward"]),     # venue is searched
    (["--search", "zero memory"], ["rajbhandari2021zeroinfinity", "rajbhandari2020zero"]),
])
def test_filters(cli, library, args, keys):
    r = cli("list", "--by", "none", "--format", "keys", "-l", library, *args)
    assert r.exit_code == 0, r.output
    assert r.stdout.split() == keys


def test_csv_and_bibtex_formats(cli, library):
    r = cli("list", "--format", "csv", "--year", "2016", "-l", library)
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert rows == [{"group": "2016", "key": "yan2016serf", "type": "inproceedings",
                     "year": "2016", "month": "11",
                     "title": "SERF: Efficient Scheduling for Fast Deep Neural Network Serving "
                              "via Judicious Parallelism",
                     "authors": "Feng Yan; Yuxiong He; Olatunji Ruwase; Evgenia Smirni",
                     "venue": "SC'16", "areas": "Systems and networking"}]
    r = cli("list", "--format", "bibtex", "--by", "area", "--search", "convolutional",
            "-l", library)
    text = library.read_text()
    rec = store.load(library)["ovtcharov2015accelerating"]
    assert r.stdout == text[rec.source.start:rec.source.end] + "\n"  # verbatim, listed once


def test_terminal_output_is_tables_and_honours_no_color(cli, library):
    r = cli("list", "--year", "2016", "-l", library, env={"TTY_COMPATIBLE": "1"})
    assert "2016 (1 publication)" in r.stdout
    assert "Title" in r.stdout and "Authors" in r.stdout and "Venue" in r.stdout
    assert "\x1b[" in r.stdout
    r = cli("list", "--year", "2016", "-l", library,
            env={"TTY_COMPATIBLE": "1", "NO_COLOR": "1"})
    assert "\x1b[3" not in r.stdout  # no colour codes (bold may stay)


def test_table_rendering_golden():
    from rich.console import Console

    from pubcli import render

    lib = store.load(ROOT / "data" / "library.bib")
    console = Console(width=120, record=True, color_system=None, file=io.StringIO())
    for t in render.tables(group(lib.records, GroupBy.type), GroupBy.type, "Olatunji Ruwase"):
        console.print(t)
    golden("list_by_type_table.txt", console.export_text())


def test_empty_library_and_no_match(cli, tmp_path):
    empty = write(tmp_path / "empty.bib", "")
    r = cli("list", "-l", empty)
    assert r.exit_code == 0 and r.stdout == ""
    assert "holds no publications yet" in r.stderr
    r = cli("list", "-l", empty, "--format", "json")
    assert json.loads(r.stdout) == {"by": "year", "groups": []}


def test_broken_blocks_are_warned_about_but_listing_goes_on(cli):
    path = ROOT / "tests/data/tricky/broken_block.bib"
    r = cli("list", "-l", path, "--format", "keys")
    assert r.exit_code == 0
    assert r.stdout.split() == ["good3", "good2", "good1"]
    assert f"warning: {path}:6: could not parse this block" in r.stderr


@pytest.mark.parametrize("args, message", [
    (["--by", "colour"], "Invalid value for '--by'"),
    (["--format", "xml"], "Invalid value for '--format'"),
    (["--year", "20x5"], "--year: expected YYYY or YYYY..YYYY"),
    (["--year", "2020..2010"], "--year: 2020 is after 2010"),
    (["--nope"], "No such option"),
])
def test_bad_options_are_one_line_and_exit_2(cli, library, args, message):
    r = cli("list", "-l", library, *args)
    assert r.exit_code == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ")
    assert message in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    (b"@misc{a, title={Caf\xe9}}", ":1: not valid UTF-8"),
    ("\ufeff@misc{a, title={x}}".encode("utf-16"), "UTF-16"),
])
def test_bad_library_files_are_one_line_and_exit_2(cli, tmp_path, content, message):
    path = tmp_path / "lib.bib"
    if content is not None:
        path.write_bytes(content)
    r = cli("list", "-l", path)
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: {path}")
    assert message in r.stderr and r.stderr.count("\n") == 1


def test_library_is_found_upward_or_from_the_environment(cli, library, tmp_path, chdir):
    sub = library.parent.parent / "papers" / "drafts"
    sub.mkdir(parents=True)
    chdir(sub)
    r = cli("list", "--format", "keys", "--year", "2004")
    assert r.exit_code == 0 and r.stdout == "ruwase2004practical\n"
    other = write(tmp_path / "other.bib", "@misc{only, title={Only}, year={1999}}\n")
    r = cli("list", "--format", "keys", env={"PUBCLI_LIBRARY": str(other)})
    assert r.stdout == "only\n"
    chdir(tmp_path.parent)
    r = cli("list", env={"PUBCLI_LIBRARY": ""})
    assert r.exit_code == 2 and "no library found" in r.stderr


def test_bad_config_is_reported_with_file_and_line(cli, library):
    cfg = library.parent / "pubcli.toml"
    cfg.write_text('owner = "A"\nareas = "not a list"\n')
    r = cli("list", "-l", library)
    assert r.exit_code == 2 and "field 'areas': must be a list of strings" in r.stderr
    cfg.write_text('owner = "A"\nareas = [\n')
    r = cli("list", "-l", library)
    assert r.exit_code == 2 and f"{cfg}:" in r.stderr and "invalid TOML" in r.stderr


def test_config_from_pyproject_tool_table(cli, tmp_path):
    (tmp_path / "data").mkdir()
    lib = write(tmp_path / "data" / "library.bib",
                "@misc{a, title={A}, year=2001, keywords={Zeta}}\n"
                "@misc{b, title={B}, year=2002, keywords={Alpha}}\n")
    (tmp_path / "pyproject.toml").write_text('[tool.pubcli]\nareas = ["Zeta", "Alpha"]\n')
    r = cli("list", "--by", "area", "-l", lib)
    assert headings(r.stdout) == ["Zeta (1 publication)", "Alpha (1 publication)"]


def test_init_creates_an_empty_library_and_config(cli, tmp_path, chdir):
    chdir(tmp_path)
    r = cli("init", "--owner", "Ada Lovelace", "--area", "Computing", "--area", "Poetry")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "data" / "library.bib").exists()
    assert ".*.lock" in (tmp_path / "data" / ".gitignore").read_text()  # the lock file
    r = cli("list", "--by", "area")
    assert r.exit_code == 0 and "holds no publications yet" in r.stderr
    from pubcli.local.config import load_config
    cfg = load_config(tmp_path / "data" / "library.bib")
    assert (cfg.owner, cfg.areas) == ("Ada Lovelace", ["Computing", "Poetry"])
    r = cli("init")
    assert r.exit_code == 2 and "already exists" in r.stderr


def test_every_command_has_help_with_an_example(cli):
    from pubcli.cli import app
    import typer.main

    group_cmd = typer.main.get_command(app)
    for name in group_cmd.commands:
        r = cli(name, "--help")
        assert r.exit_code == 0, name
        assert "Example" in r.stdout, f"'pubcli {name} --help' has no example"


def test_python_api_without_the_cli(library):
    import pubcli

    lib = pubcli.load(library)
    groups = pubcli.group(pubcli.select(lib.records, pubcli.Filters(areas=["Computer vision"])),
                          "year")
    assert [(name, [r.key for r in recs]) for name, recs in groups] == \
        [("2015", ["ovtcharov2015accelerating"])]
    with pubcli.transaction(library) as lib:
        rec = lib["wang2024zero"]
        lib.replace(rec, rec.copy(fields={**rec.fields, "note": "Oral"}))
    assert pubcli.load(library)["wang2024zero"].fields["note"] == "Oral"
