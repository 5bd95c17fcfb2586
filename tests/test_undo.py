"""`pubcli undo`: the exact bytes before pubcli's last write come back (property test
over every writing command), and a file changed since is refused."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pubcli import store
from pubcli.cli import app
from pubcli.store import journal

from .conftest import SHIPPED, write

DUPLICATE = """
@misc{wang2024zeroarxiv,
  author = {Guanhua Wang and Heyang Qin and Sam Ade Jacobs and Connor Holmes and Samyam Rajbhandari and Olatunji Ruwase and Feng Yan and Lei Yang and Yuxiong He},
  title = {ZeRO++: Extremely Efficient Collective Communication for Giant Model Training},
  year = {2023},
  eprint = {2306.10209},
  archiveprefix = {arXiv},
}
"""
IMPORTED = "@article{imported{n}, author = {Kim, A.}, title = {Imported {n}}, " \
           "journal = {J}, year = {2019}}\n"


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(app, [str(a) for a in args], input=input,
                              catch_exceptions=False)


def keys_of(path: Path) -> list[str]:
    return store.load(path).keys()


def command(kind: str, n: int, word: str, path: Path) -> list[str]:
    """A writing command on the library as it is now."""
    keys = keys_of(path)
    key = keys[n % len(keys)] if keys else "none"
    return {
        "add": ["add", "--key", f"new{n}", "--title", f"Paper {word}", "--author", "Kim, A.",
                "--year", "2020", "--type", "misc"],
        "tag": ["tag", key, "--add", "Computer vision"],
        "tag-all": ["tag", "--all", "--type", "inproceedings", "--featured"],
        "edit": ["edit", key, "--set", f"note={word}"],
        "remove": ["remove", key, "--yes"],
        "rename": ["rename", key, f"{key}{word}"],
        "dedupe": ["dedupe", "--merge", "--yes"],
        "import": ["import", str(write(path.parent / f"in{n}.bib",
                                       IMPORTED.replace("{n}", str(n))))],
    }[kind]


KINDS = ["add", "tag", "tag-all", "edit", "remove", "rename", "dedupe", "import"]


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(steps=st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 999),
                                st.text("abcxyz", min_size=1, max_size=5)),
                      min_size=1, max_size=4),
       crlf=st.booleans(), bom=st.booleans())
def test_undo_restores_the_exact_bytes_before_each_write(steps, crlf, bom):
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PUBCLI_CACHE_DIR"] = str(Path(tmp) / "cache")
        text = SHIPPED.read_text(encoding="utf-8") + DUPLICATE
        if crlf:
            text = text.replace("\n", "\r\n")
        lib = write(Path(tmp) / "library.bib", (b"\xef\xbb\xbf" if bom else b"")
                    + text.encode("utf-8"))
        before: list[bytes] = []
        for kind, n, word in steps:
            old = lib.read_bytes()
            r = run(*command(kind, n, word, lib), "-l", lib)
            assert r.exit_code in (0, 2), r.output
            if lib.read_bytes() != old:
                before.append(old)
        assert len(store.history(lib)) == len(before)  # one step per write, none for a refusal
        while before:
            r = run("undo", "-l", lib)
            assert r.exit_code == 0, r.stderr
            assert lib.read_bytes() == before.pop()
        r = run("undo", "-l", lib)
        assert r.exit_code == 2 and "nothing to undo" in r.stderr


@pytest.fixture
def lib(library, cli):
    r = cli("tag", "wang2024zero", "--add", "Computer vision", "-l", library)
    assert r.exit_code == 0
    return library


def test_undo_names_the_write_it_undid(cli, lib):
    r = cli("undo", "--list", "-l", lib)
    assert r.stdout.endswith(f"\tpubcli tag wang2024zero --add 'Computer vision' -l {lib}\n")
    r = cli("undo", "-l", lib)
    assert r.stderr.startswith(f"restored {lib} as it was before the write of ")
    assert r.stderr.endswith(f"(pubcli tag wang2024zero --add 'Computer vision' -l {lib})\n")
    assert lib.read_bytes() == SHIPPED.read_bytes()


def test_undo_refuses_a_file_changed_since(cli, lib):
    with open(lib, "a", encoding="utf-8") as fh:
        fh.write("% my own note\n")
    edited = lib.read_bytes()
    r = cli("undo", "-l", lib)
    assert r.exit_code == 2
    assert "the file changed since pubcli's last write to it" in r.stderr
    assert "nothing was restored" in r.stderr
    assert lib.read_bytes() == edited


def test_undo_dry_run_writes_nothing(cli, lib):
    after = lib.read_bytes()
    r = cli("undo", "--dry-run", "-l", lib)
    assert r.exit_code == 0 and r.stderr.startswith("would restore")
    assert lib.read_bytes() == after
    assert len(store.history(lib)) == 1


def test_a_dry_run_and_a_refused_command_leave_no_step(cli, library):
    cli("tag", "wang2024zero", "--add", "Computer vision", "--dry-run", "-l", library)
    cli("rename", "wang2024zero", "abdin2024phi3", "-l", library)  # refused: key in use
    assert store.history(library) == []


def test_an_outside_edit_between_writes_cuts_the_chain(cli, lib):
    with open(lib, "a", encoding="utf-8") as fh:
        fh.write("% my own note\n")
    cli("edit", "wang2024zero", "--set", "note=x", "-l", lib)
    assert [s.what.split()[1] for s in store.history(lib)] == ["edit"]


def test_the_step_keeps_only_what_changed():
    old = b"a" * 10000 + b"old entry" + b"z" * 10000
    new = b"a" * 10000 + b"the new entry" + b"z" * 10000
    s = journal.step(old, new, "x")
    assert (s.prefix, s.suffix) == (10000, 10006)  # " entry" is shared too
    assert journal.undo_bytes(s, new) == old
    assert journal.undo_bytes(s, new + b" ") is None


# ------------------------------------------------------------------ --git
def _git(folder: Path, *args: str) -> str:
    import subprocess

    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture
def repo(library):
    folder = library.parent
    _git(folder, "init", "-q")
    _git(folder, "config", "user.email", "t@example.org")
    _git(folder, "config", "user.name", "T")
    _git(folder, "add", ".")
    _git(folder, "commit", "-q", "-m", "start")
    return library


def test_git_commits_each_write_with_the_command_as_message(cli, repo):
    r = cli("--git", "tag", "wang2024zero", "--add", "Computer vision", "-l", repo)
    assert r.exit_code == 0, r.stderr
    assert _git(repo.parent, "log", "--format=%s").splitlines() == [
        f"pubcli --git tag wang2024zero --add 'Computer vision' -l {repo}", "start"]
    assert _git(repo.parent, "status", "--porcelain", "--", repo.name) == ""
    cli("edit", "wang2024zero", "--set", "note=x", "-l", repo)  # no --git: not committed
    assert len(_git(repo.parent, "log", "--format=%s").splitlines()) == 2


def test_git_true_in_the_config_commits_every_write(cli, repo):
    cfg = repo.parent / "pubcli.toml"
    cfg.write_text(cfg.read_text() + "\ngit = true\n")
    _git(repo.parent, "commit", "-q", "-am", "config")
    r = cli("remove", "wang2024zero", "--yes", "-l", repo)
    assert r.exit_code == 0, r.stderr
    assert _git(repo.parent, "log", "-1", "--format=%s").startswith(
        "pubcli remove wang2024zero --yes")
    r = cli("undo", "-l", repo)  # undo is a write too
    assert _git(repo.parent, "log", "-1", "--format=%s").startswith("pubcli undo")
    assert repo.read_bytes() == SHIPPED.read_bytes()


def test_git_outside_a_repository_says_the_write_was_done(cli, library):
    r = cli("--git", "tag", "wang2024zero", "--add", "Computer vision", "-l", library)
    assert r.exit_code == 2
    assert "the file was written, but it is not in a git repository" in r.stderr
    assert b"Computer vision" in library.read_bytes()


def test_git_of_one_command_does_not_reach_a_later_write_in_the_same_process(cli, library):
    # a notebook or a script runs a --git command, then saves through the Python API
    # outside any repository: that save is not the command's, so nothing is committed
    r = cli("--git", "tag", "wang2024zero", "--add", "Computer vision", "-l", library)
    assert r.exit_code == 2  # (not a repository)
    store.save(store.load(library), library)  # raised "not in a git repository" before
    assert journal.current_command() == "a pubcli write"


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.binary(max_size=40), st.binary(max_size=40),
       st.binary(max_size=300))
def test_a_step_undoes_any_change(head, old_mid, new_mid, tail):
    old, new = head + old_mid + tail, head + new_mid + tail
    s = journal.step(old, new, "x")
    assert s.prefix + s.suffix <= min(len(old), len(new))
    assert journal.undo_bytes(s, new) == old
