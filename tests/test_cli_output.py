"""Output that fits where it goes, and hostile text that never reaches a terminal:
filters that refuse unknown names, --author by person, piped and narrow layouts,
CSV formula cells, control characters."""

from __future__ import annotations

import csv
import io
import json

import pytest

from pubcli.render import text as T

from .conftest import write

PEOPLE = ("@article{a1,\n  author = {Bubeck, S{\\'e}bastien and Eldan, Ronen},\n"
          "  title = {First},\n  journal = {J},\n  year = {2020},\n}\n\n"
          "@article{a2,\n  author = {S. Bubeck},\n  title = {Second},\n  journal = {J},\n"
          "  year = {2021},\n}\n\n"
          "@article{a3,\n  author = {Samuel Bubeck},\n  title = {Third},\n  journal = {J},\n"
          "  year = {2022},\n}\n\n"
          "@article{a4,\n  author = {Ann Other},\n  title = {Fourth},\n  journal = {J},\n"
          "  year = {2022},\n}\n")

EVIL = ("@misc{evil,\n  title = {=HYPERLINK(\"http://x\") \x1b]0;owned\x07\x1b[2J ok},\n"
        "  author = {Mallory \x9b31m Evil},\n  keywords = {@SUM(A1)},\n  year = {2020},\n}\n\n"
        "@misc{dash,\n  title = {-2+3},\n  year = {2021},\n}\n")

CONTROL = [chr(c) for c in [*range(0, 9), *range(11, 32), 127, *range(128, 160)]]


def keys(out: str) -> list[str]:
    return out.split()


# ------------------------------------------------------------------ --author by person
@pytest.mark.parametrize("who", ["Sébastien Bubeck", "sebastien BUBECK", "Bubeck, Sébastien",
                                 "S{\\'e}bastien Bubeck"])
def test_author_finds_the_same_person_however_written(cli, tmp_path, who):
    lib = write(tmp_path / "p.bib", PEOPLE)
    r = cli("list", "--author", who, "-f", "keys", "-l", lib)
    assert r.exit_code == 0
    assert sorted(keys(r.stdout)) == ["a1", "a2"]  # "S. Bubeck" too; not Samuel Bubeck


@pytest.mark.parametrize("who", ["Bubeck, S.", "S. Bubeck", "S Bubeck"])
def test_an_initial_finds_every_fitting_given_name(cli, tmp_path, who):
    lib = write(tmp_path / "p.bib", PEOPLE)
    r = cli("list", "--author", who, "-f", "keys", "-l", lib)
    assert sorted(keys(r.stdout)) == ["a1", "a2", "a3"]  # Sébastien, S. and Samuel


def test_one_word_author_matches_any_name_containing_it(cli, tmp_path):
    lib = write(tmp_path / "p.bib", PEOPLE)
    r = cli("list", "--author", "bubeck", "-f", "keys", "-l", lib)
    assert sorted(keys(r.stdout)) == ["a1", "a2", "a3"]


def test_author_on_the_shipped_library(cli, library):
    # the owner wrote all 20, so a co-author's works show that the filter filters
    a = cli("list", "--author", "Rajbhandari, S.", "-f", "keys", "-l", library).stdout
    b = cli("list", "--author", "Samyam Rajbhandari", "-f", "keys", "-l", library).stdout
    assert a == b and keys(a) == ["wang2024zero", "yazdaniaminabadi2022deepspeed",
                                  "qin2021simigrad", "rajbhandari2021zeroinfinity",
                                  "ren2021zerooffload", "rajbhandari2020zero",
                                  "rajbhandari2017optimizing"]


# ------------------------------------------------------------------ unknown --area/--type
@pytest.mark.parametrize("command", [["list"], ["export", "markdown"]])
def test_unknown_area_is_refused_with_a_suggestion(cli, library, command):
    r = cli(*command, "--area", "Sytems and networking", "-l", library)
    assert r.exit_code == 2 and r.stdout == ""
    assert "--area: no entry has the area 'Sytems and networking'; did you mean " \
           "'Systems and networking'?" in r.stderr


@pytest.mark.parametrize("command", [["list"], ["export", "html"]])
def test_unknown_type_is_refused_with_a_suggestion(cli, library, command):
    r = cli(*command, "--type", "inproceeding", "-l", library)
    assert r.exit_code == 2 and r.stdout == ""
    assert "--type: unknown entry type 'inproceeding'; did you mean 'inproceedings'?" \
        in r.stderr


def test_known_but_unused_names_are_accepted(cli, library):
    r = cli("list", "--type", "phdthesis", "-l", library)  # a BibTeX type nobody uses here
    assert r.exit_code == 0 and "no publications match" in r.stderr
    r = cli("list", "--type", "conference papers", "-f", "keys", "-l", library)
    assert r.exit_code == 0 and len(keys(r.stdout)) == 14  # the 14 @inproceedings
    cfg = library.parent / "pubcli.toml"
    cfg.write_text(cfg.read_text().replace('"Computer vision",', '"Computer vision", "Robots",'))
    r = cli("list", "--area", "robots", "-l", library)  # configured, not used yet
    assert r.exit_code == 0 and "no publications match" in r.stderr


# ------------------------------------------------------------------ piped and narrow
def test_piped_list_is_plain(cli, library):
    r = cli("list", "-l", library)
    assert "\x1b" not in r.stdout and "┃" not in r.stdout and "─" not in r.stdout
    assert "  2024 | ZeRO++" in r.stdout


def test_narrow_terminal_gets_a_stacked_layout_with_whole_keys(cli, library):
    r = cli("list", "-l", library, env={"TTY_COMPATIBLE": "1", "NO_COLOR": "1",
                                        "COLUMNS": "60"})
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert max(len(ln) for ln in lines) <= 60
    assert "      yazdaniaminabadi2022deepspeed" in lines  # the longest key, whole, alone
    for key in cli("list", "-f", "keys", "-l", library).stdout.split():
        assert "      " + key in lines
    assert "Title" not in r.stdout  # no crushed table header


def test_wide_terminal_keeps_the_tables(cli, library):
    r = cli("list", "-l", library, env={"TTY_COMPATIBLE": "1", "NO_COLOR": "1",
                                        "COLUMNS": "160"})
    assert "Title" in r.stdout and "yazdaniaminabadi2022deepspeed" in r.stdout


def test_areas_narrow_and_piped(cli, library):
    piped = cli("areas", "-l", library).stdout
    assert piped.splitlines()[0] == "Artificial intelligence\t10"
    narrow = cli("areas", "-l", library, env={"TTY_COMPATIBLE": "1", "COLUMNS": "60"}).stdout
    assert "Area:         Artificial intelligence\nPublications: 10\n" in narrow


def test_areas_json(cli, library):
    rows = json.loads(cli("areas", "-f", "json", "-l", library).stdout)
    assert rows[0] == {"area": "Artificial intelligence", "count": 10, "configured": True}


# ------------------------------------------------------------------ hostile text
def test_csv_cells_that_look_like_formulas_are_neutralised(cli, tmp_path):
    lib = write(tmp_path / "e.bib", EVIL)
    r = cli("list", "-f", "csv", "--by", "none", "-l", lib)
    rows = {row["key"]: row for row in csv.DictReader(io.StringIO(r.stdout))}
    assert rows["evil"]["title"].startswith("'=HYPERLINK(")
    assert rows["evil"]["areas"] == "'@SUM(A1)"
    assert rows["dash"]["title"] == "'-2+3"
    assert "\x1b" not in r.stdout and "\x9b" not in r.stdout


@pytest.mark.parametrize("args", [["list"], ["list", "--by", "area"], ["list", "-f", "keys"],
                                  ["show", "evil"], ["areas"], ["check"]])
@pytest.mark.parametrize("tty", ["0", "1"])
def test_control_characters_never_reach_the_terminal(cli, tmp_path, args, tty):
    lib = write(tmp_path / "e.bib", EVIL)
    r = cli(*args, "-l", lib, env={"TTY_COMPATIBLE": tty, "NO_COLOR": "1"})
    assert r.exit_code in (0, 1), r.output
    for c in ("\x07", "\x9b", "\x1b]", "\x1b[2J"):
        assert c not in r.stdout and c not in r.stderr


def test_json_keeps_the_data_but_escapes_control_characters(cli, tmp_path):
    lib = write(tmp_path / "e.bib", EVIL)
    r = cli("list", "-f", "json", "--by", "none", "-l", lib)
    assert "\x1b" not in r.stdout and "\x9b" not in r.stdout
    [entry] = [e for e in json.loads(r.stdout)["entries"] if e["key"] == "evil"]
    assert "\x1b]0;owned\x07" in entry["fields"]["title"]  # the data is intact


def test_check_cleans_what_it_quotes(cli, tmp_path):
    lib = write(tmp_path / "e.bib", "@misc{k,\n  title = {T},\n  year = {20\x1b[2J20},\n}\n")
    r = cli("check", "-l", lib)
    assert r.exit_code == 1 and "bad-year" in r.stdout and "\x1b" not in r.stdout


def test_clean_replaces_every_control_character_but_tab_and_newline():
    for c in CONTROL:
        assert T.clean(f"a{c}b") != f"a{c}b"
        assert len(T.clean(f"a{c}b")) == 3
    assert T.clean("tab\there\nnew line é ★") == "tab\there\nnew line é ★"
    assert T.clean("\x1b[31m") == "\u241b[31m"


@pytest.mark.parametrize("cell,out", [("=1+1", "'=1+1"), ("+1", "'+1"), ("-1", "'-1"),
                                      ("@x", "'@x"), ("\tx", "'\tx"), ("\rx", "'\u240dx"),
                                      ("ok=", "ok="), ("", ""), (2020, "2020")])
def test_csv_cell(cell, out):
    assert T.csv_cell(cell) == out


@pytest.mark.parametrize("width", [40, 60, 79, 80, 90, 95, 100, 120, 160])
def test_keys_are_whole_at_every_terminal_width(cli, library, width):
    r = cli("list", "--by", "area", "-l", library,
            env={"TTY_COMPATIBLE": "1", "NO_COLOR": "1", "COLUMNS": str(width)})
    for key in cli("list", "-f", "keys", "-l", library).stdout.split():
        assert key in r.stdout, (width, key)


def test_crlf_line_ends_pass_but_a_lone_cr_does_not():
    assert T.clean("a\r\nb") == "a\r\nb"
    assert T.clean("a\rb") == "a\u240db"


def test_bibtex_of_a_crlf_library_on_a_terminal_keeps_its_line_ends(cli, tmp_path):
    lib = write(tmp_path / "c.bib", "@misc{a,\r\n  title = {T},\r\n}\r\n")
    r = cli("list", "-f", "bibtex", "-l", lib, env={"TTY_COMPATIBLE": "1"})
    assert r.stdout_bytes == b"@misc{a,\r\n  title = {T},\r\n}\n"  # (.stdout folds CRLF)


def test_an_unknown_area_with_no_close_one_names_the_known_areas(cli, library):
    r = cli("list", "--area", "Robotics", "-l", library)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: --area: no entry has the area 'Robotics'; known: "
                               "'Artificial intelligence', ")
