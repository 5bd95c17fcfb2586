"""show and --help at a narrow terminal: lines wrap on words; a key, a path, a
file:line, a name or a quoted example word is never split."""

from __future__ import annotations

import re

import pytest

from pubcli.render.wrap import cells, command_lines, fill, shell_words

from .conftest import write

NARROW = {"TTY_COMPATIBLE": "1", "NO_COLOR": "1", "COLUMNS": "60"}
ENTRY = """@inproceedings{rajbhandari2020zeroextremelylongkey,
  author = {Samyam Rajbhandari and Jeff Rasley and Olatunji Ruwase and Yuxiong He and Shaden Smith},
  title = {{ZeRO}: Memory Optimizations Toward Training Trillion Parameter Models at Scale},
  booktitle = {Proceedings of the International Conference for High Performance Computing},
  url = {https://example.org/a/very/long/path/to/the/paper/that/is/longer/than/sixty/columns.pdf},
  file = {My Papers/ZeRO memory optimizations.pdf},
  year = {2020},
}
"""


@pytest.fixture
def deep(tmp_path):
    """A library in a folder deep enough that file:line alone is wider than 60 columns."""
    d = tmp_path / "a-folder-with-a-long-name" / "and another one with spaces"
    d.mkdir(parents=True)
    return write(d / "library.bib", ENTRY)


def test_show_wraps_at_the_terminal_width_on_words(cli, deep):
    narrow = cli("show", "rajbhandari2020zeroextremelylongkey", "-l", deep, env=NARROW).stdout
    piped = cli("show", "rajbhandari2020zeroextremelylongkey", "-l", deep).stdout
    lines = narrow.splitlines()
    assert len(lines) > len(piped.splitlines())  # it did wrap
    where = f"{deep}:1"
    assert lines[0] == "rajbhandari2020zeroextremelylongkey (@inproceedings)"
    assert lines[1] == f"  {where}"  # the place, whole, on its own line
    for line in lines[2:]:
        assert cells(line) <= 60 or line.split()[-1].startswith(("https://", "My")), line
    # the same words in the same order: only the line breaks differ
    assert narrow.split() == piped.split()
    assert "  url:       https://example.org/a/very/long/path/to/the/paper/that/is/longer/" \
           "than/sixty/columns.pdf" in lines
    assert "  file:      My Papers/ZeRO memory optimizations.pdf" in lines  # a path, whole
    # a name is never cut in two; continuation lines hang under the first word
    assert "Shaden Smith" in narrow and "Yuxiong He;" in narrow
    title = [i for i, ln in enumerate(lines) if ln.startswith("  title:")][0]
    assert lines[title + 1].startswith(" " * len("  title:     ")) and lines[title + 1][13] != " "


def test_show_on_a_wide_terminal_and_piped_keeps_one_line_per_field(cli, deep):
    piped = cli("show", "rajbhandari2020zeroextremelylongkey", "-l", deep).stdout
    assert piped.splitlines()[0] == f"rajbhandari2020zeroextremelylongkey (@inproceedings)  {deep}:1"
    assert len(piped.splitlines()) == 7  # the head and six fields
    wide = cli("show", "rajbhandari2020zeroextremelylongkey", "-l", deep,
               env={**NARROW, "COLUMNS": "400"}).stdout
    assert wide == piped


def test_fill_never_splits_an_atom_and_counts_wide_characters():
    assert fill(["a" * 30, "b" * 30], 20, first="> ") == ["> " + "a" * 30, "  " + "b" * 30]
    assert cells("漢字ab") == 6 and cells("e\u0301") == 1
    assert fill(["漢字漢字", "x"], 9) == ["漢字漢字", "x"]
    assert fill(["ab", "cd"], 5, end=" \\") == ["ab cd"]  # the last line has no " \"


def test_shell_words_keep_quotes_and_examples_paste_back():
    cmd = 'pubcli tag --search "deep learning" --year 2015.. --add \'AI and ML\' --all'
    assert shell_words(cmd)[2:4] == ["--search", '"deep learning"']
    lines = command_lines(cmd, 40, "    ")
    assert all(ln.endswith(" \\") for ln in lines[:-1]) and not lines[-1].endswith("\\")
    assert " ".join(ln.strip().rstrip("\\").strip() for ln in lines) == cmd


COMMANDS = ["init", "add", "import", "show", "open", "edit", "tag", "rename", "remove", "undo",
            "areas", "list", "dedupe", "export", "check", "fmt", "update", "sync", "completion"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_examples_never_break_inside_quotes(cli, command):
    wide = cli(command, "--help", env={"COLUMNS": "200"}).stdout
    narrow = cli(command, "--help", env={"COLUMNS": "60"}).stdout
    examples = [ln.strip() for ln in wide.splitlines() if ln.startswith("      pubcli ")]
    assert examples, f"'{command} --help' has no example"
    # the narrow page's examples, continuation lines joined back
    joined, current = [], ""
    for line in narrow.splitlines():
        if line.startswith("      pubcli ") or (current and line.startswith("          ")):
            current += " " + line.strip()
            if not current.endswith("\\"):
                joined.append(current.strip())
                current = ""
            else:
                current = current[:-1].rstrip()
    assert joined == examples
    start = narrow.index("Examples:")
    end = narrow.find("\n\n", narrow.rindex("      pubcli "))
    for line in narrow[start:end].splitlines():
        if not (line.startswith("      pubcli ") or line.startswith("          ")):
            continue
        # a quoted word never spans two lines
        assert line.count('"') % 2 == 0 and line.count("'") % 2 == 0, line
        # wider only when it holds one piece: a word, or an option or '>' with its value
        assert cells(line) <= 58 or re.fullmatch(r"\s+([->]\S* )?\S+( \\)?", line), line
