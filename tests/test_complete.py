"""TAB completion of keys, KEY@LINE, areas, types and choices (pubcli.usecases.complete), through
the CLI (CliRunner) and as the shell runs it (a whole process, the fast path)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pubcli.usecases import complete
from pubcli.local import keyindex
from pubcli import store

from .conftest import write

TRICKY = """@string{VLDB = "Proc. VLDB"}
@comment{not an entry}
@Article{Smith2020,
  title = {A}, keywords = {Computer vision, Robotics}}

@misc ( dup , title = {B})
@misc{dup, title = {C}, keywords = "Robotics"}
@preamble{"x"}
@inproceedings{wang2024zero, title = {D}}
"""


def test_the_head_scan_finds_what_the_reader_finds(library, tmp_path):
    for path in (library, write(tmp_path / "t.bib", TRICKY)):
        lib = store.load(path)
        index = keyindex.scan(path.read_bytes())
        assert index.starting("") == [(r.key, r.line, r.type) for r in lib.records]
    assert keyindex.scan_areas(TRICKY.encode()) == ["Computer vision", "Robotics"]


def test_key_candidates_prefix_case_and_key_at_line():
    index = keyindex.scan(TRICKY.encode())
    assert [c.value for c in complete.key_candidates(index, "sm")] == ["Smith2020"]
    assert complete.key_candidates(index, "SMITH")[0].help == "@article, line 3"
    # a key two entries use is offered as KEY@LINE, each of them
    assert [c.value for c in complete.key_candidates(index, "d")] == ["dup@6", "dup@7"]
    assert [c.value for c in complete.key_candidates(index, "wang2024zero@")] == \
        ["wang2024zero@9"]
    assert complete.key_candidates(index, "zzz") == []


def tab(cli, words: str, shell: str = "bash", **extra):
    """Press TAB after ``words`` (a trailing space: a new word) through the CLI."""
    if shell == "bash":
        parts = words.split()
        cword = len(parts) if words.endswith(" ") else len(parts) - 1
        env = {"COMP_WORDS": words, "COMP_CWORD": str(cword)}
    else:
        env = {"_TYPER_COMPLETE_ARGS": words, **extra}
    return cli(env={"_PUBCLI_COMPLETE": f"complete_{shell}", **env})


@pytest.fixture
def cli_tab(runner):
    from pubcli.cli import app

    def run(env):
        return runner.invoke(app, [], env=env, prog_name="pubcli", catch_exceptions=False)
    return run


def test_keys_complete_for_every_command_that_takes_one(cli_tab, library):
    for cmd in ("show", "edit", "remove", "rename", "tag", "update", "open"):
        r = tab(cli_tab, f"pubcli {cmd} -l {library} rajbhandari202")
        assert r.output == "rajbhandari2021zeroinfinity\nrajbhandari2020zero\n", cmd
    r = tab(cli_tab, f"pubcli -l {library} dedupe --explain wang2024zero ruwase200")
    assert r.output.split() == ["ruwase2008parallelizing", "ruwase2004practical"]


def test_the_library_is_the_one_the_command_would_use(cli_tab, library, monkeypatch):
    monkeypatch.chdir(library.parent.parent)  # data/library.bib found upward
    assert tab(cli_tab, "pubcli show wang").output == "wang2024zero\n"
    other = write(library.parent.parent / "other.bib", "@misc{wangother, title={x}}\n")
    assert tab(cli_tab, f"pubcli show --library={other} wang").output == "wangother\n"
    monkeypatch.setenv("PUBCLI_LIBRARY", str(other))
    assert tab(cli_tab, "pubcli show wang").output == "wangother\n"


def test_areas_types_and_choices_complete(cli_tab, library):
    r = tab(cli_tab, f"pubcli tag wang2024zero -l {library} --add Sys")
    assert r.output == "Systems and networking\n"
    r = tab(cli_tab, f"pubcli list -l {library} --area ")
    assert "Computer vision" in r.output.split("\n")
    assert tab(cli_tab, "pubcli add --type inpro").output == "inproceedings\n"
    assert tab(cli_tab, "pubcli list --by ve").output == "venue\n"
    assert tab(cli_tab, "pubcli show --format bi").output == "bibtex\n"
    assert tab(cli_tab, "pubcli export html --style ").output.split() == \
        ["apa", "ieee", "acm", "chicago", "mla"]


def test_ids_complete_from_the_config(cli_tab, library):
    cfg = library.parent / "pubcli.toml"
    cfg.write_text(cfg.read_text() + '\norcid = "0000-0002-1825-0097"\n')
    assert tab(cli_tab, f"pubcli sync -l {library} --orcid ").output == "0000-0002-1825-0097\n"
    assert tab(cli_tab, f"pubcli sync -l {library} --orcid 9").output == "\n"


def test_options_and_files_are_left_to_the_framework(cli_tab, library):
    assert "--format" in tab(cli_tab, f"pubcli show -l {library} --f").output
    assert tab(cli_tab, "pubcli init ").output.strip() == ""  # a path: the shell's files


def test_zsh_and_fish_get_their_own_protocol(cli_tab, library):
    r = tab(cli_tab, f"pubcli show -l {library} wang", "zsh")
    assert r.output == """_arguments '*: :(("wang2024zero":"@inproceedings, line 5"))'\n"""
    r = tab(cli_tab, f"pubcli show -l {library} wang", "fish",
            _TYPER_COMPLETE_FISH_ACTION="get-args")
    assert r.output == "wang2024zero\t@inproceedings, line 5\n"
    r = tab(cli_tab, f"pubcli show -l {library} zzz", "fish",
            _TYPER_COMPLETE_FISH_ACTION="is-args")
    assert r.exit_code == 1


def test_a_changed_library_is_seen_on_the_next_tab(cli_tab, cli, library):
    assert tab(cli_tab, f"pubcli show -l {library} newkey").output == "\n"
    with open(library, "a", encoding="utf-8") as fh:  # an outside edit
        fh.write("\n@misc{newkey1, title = {New}}\n")
    assert tab(cli_tab, f"pubcli show -l {library} newkey").output == "newkey1\n"
    r = cli("add", "--key", "newkey2", "--title", "Newer", "--author", "A B", "--year", "2020",
            "--type", "misc", "-l", library)
    assert r.exit_code == 0, r.stderr
    index = keyindex.read_index(library, keyindex.stamp(library))
    assert index is not None  # refreshed by the save, no scan needed
    assert [k for k, _, _ in index.starting("newkey")] == ["newkey1", "newkey2"]
    cli("remove", "wang2024zero", "--yes", "-l", library)  # every line after it moves up
    index = keyindex.read_index(library, keyindex.stamp(library))
    assert index is not None
    assert index.starting("") == [(r.key, r.line, r.type) for r in store.load(library).records]


def _process(env: dict, code: str = "") -> subprocess.CompletedProcess:
    script = ("import sys\nfrom pubcli.__main__ import main\ntry:\n    main()\n"
              "finally:\n    sys.stderr.write('typer loaded' if 'typer' in sys.modules "
              "else 'no typer')\n")
    return subprocess.run([sys.executable, "-c", script], env={**os.environ, **env},
                          capture_output=True, text=True, check=False)


@pytest.mark.parametrize("words,cword", [
    ("pubcli show -l {lib} raj", 4), ("pubcli -l {lib} tag --add Sys", 5),
    ("pubcli -l {lib} list --by ", 5), ("pubcli show -l {lib} wang2024zero@", 4),
])
def test_the_fast_path_answers_as_the_cli_does_without_loading_it(cli_tab, library, words,
                                                                   cword):
    env = {"_PUBCLI_COMPLETE": "complete_bash", "COMP_WORDS": words.format(lib=library),
           "COMP_CWORD": str(cword), "PUBCLI_CACHE_DIR": os.environ["PUBCLI_CACHE_DIR"]}
    slow = cli_tab(env)  # keeps the grammar
    fast = _process(env)
    assert fast.stdout == slow.output and fast.stdout.strip()
    assert fast.stderr == "no typer"


def test_a_grammar_from_other_code_is_not_used(cli_tab, library):
    tab(cli_tab, f"pubcli show -l {library} raj")
    assert complete.read_grammar() is not None
    f = complete._grammar_file()
    import marshal

    _, grammar = marshal.loads(f.read_bytes())
    f.write_bytes(marshal.dumps((("other", "code"), grammar)))
    assert complete.read_grammar() is None
    fast = _process({"_PUBCLI_COMPLETE": "complete_bash", "COMP_CWORD": "4",
                     "COMP_WORDS": f"pubcli show -l {library} raj"})
    assert fast.stderr.endswith("typer loaded") and "rajbhandari2020zero" in fast.stdout
