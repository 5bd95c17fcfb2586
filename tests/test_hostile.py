"""Hostile and broken libraries through every command: truncated files,
unbalanced braces, binary garbage, Latin-1, UTF-16, a 50 MB file, very long
fields, duplicate keys, @comment with braces...

Every command either works (exit 0, or 1 for a check that finds something) or
stops with exit 2 and one clear line naming the file (and the line, when one is
to blame). A command that fails writes nothing: the library keeps its bytes and
no temp file is left. Commands that only read never change the file.
"""

from __future__ import annotations

import os
import random
import stat
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pubcli import store
from pubcli.errors import PubcliError

from .conftest import SHIPPED, SHIPPED_CONFIG

SHIPPED_BYTES = SHIPPED.read_bytes()
SHIPPED_TEXT = SHIPPED_BYTES.decode("utf-8")
CONFIG = SHIPPED_CONFIG.read_bytes()


def line_of(data: bytes, needle: bytes) -> int:
    return data.count(b"\n", 0, data.index(needle)) + 1


def _garbage() -> bytes:
    rng = random.Random(5)
    return SHIPPED_BYTES[:400] + bytes(rng.randrange(256) for _ in range(3000))


_LATIN1 = SHIPPED_BYTES + "\n@misc{mueller2001, author = {Jörg Müller}, title = {Café}}\n" \
    .encode("latin-1")
_NESTED = ("@misc{deep, title = {" + "{" * 3000 + "x" + "}" * 3000 + "}}\n").encode()
_LONG = (SHIPPED_TEXT + "\n@article{long2024,\n  author = {" + " and ".join(
    f"Author{i}, A." for i in range(5000)) + "},\n  title = {Long},\n  abstract = {"
    + "word " * 200_000 + "},\n  journal = {J}, year = {2024}\n}\n").encode()
_LONG_LINE = (SHIPPED_TEXT + "% " + "x" * 2_000_000 + "\n@misc{afterlong, title={After}}\n") \
    .encode()
_COMMENTS = (
    "@comment{jabref-meta: databaseType:biblatex;}\n"
    "@comment{ braces {nested {deeply}} and an @ sign }\n"
    "@Comment{jabref-meta: grouping:\n0 AllEntriesGroup:;\n1 StaticGroup:Mine\\;0\\;1\\;;\n}\n"
    + SHIPPED_TEXT + "\n@comment{ unbalanced { brace\n@misc{tail2024, title = {After}}\n"
).encode()

# name -> (library bytes, None when commands work, else (message part, line or None))
CASES: dict[str, tuple[bytes, tuple[str, int | None] | None]] = {
    "truncated": (SHIPPED_BYTES[: len(SHIPPED_BYTES) * 2 // 3], None),
    "truncated-mid-utf8": ("@misc{a, title = {Ü}}\n".encode()[:-5] + "é".encode()[:1],
                           ("not valid UTF-8", 1)),
    "unbalanced-open": (SHIPPED_BYTES.replace(b"title = {", b"title = {{", 3), None),
    "unbalanced-close": (SHIPPED_BYTES.replace(b"booktitle = {", b"booktitle = }{", 2), None),
    "binary-garbage": (_garbage(), ("not a text file", line_of(_garbage(), b"\x00"))),
    "binary-no-nul": (b"\x80\x81\xfe" * 100, ("not valid UTF-8 (byte 0x80)", 1)),
    "latin-1": (_LATIN1, ("not valid UTF-8", line_of(_LATIN1, "Jörg".encode("latin-1")))),
    "utf-16": (SHIPPED_TEXT.encode("utf-16"), ("UTF-16", 1)),
    "utf-16-no-bom": (SHIPPED_TEXT.encode("utf-16-le"), ("not a text file", 1)),
    "duplicate-keys": (SHIPPED_BYTES + b"\n" + SHIPPED_BYTES.split(b"\n\n")[1] + b"\n", None),
    "comment-braces": (_COMMENTS, None),
    "deep-nesting": (_NESTED, None),
    "very-long-fields": (_LONG, None),   # 5,000 authors, a 1 MB abstract
    "very-long-line": (_LONG_LINE, None),
    "empty": (b"", None),
    "whitespace-only": (b"\n \n\t\n", None),
    "bom-crlf-no-final-newline": (b"\xef\xbb\xbf" + SHIPPED_BYTES.replace(b"\n", b"\r\n")
                                  .rstrip(), None),
    "mixed-newlines": (SHIPPED_BYTES.replace(b"}\n\n@", b"}\r\n\r\n@", 5), None),
    "huge-key": (b"@misc{" + b"k" * 100_000 + b", title = {x}}\n", None),
    "control-chars": ("@misc{ctl, title = {Bell\x07 and escape\x1b[31m red}, "
                      "note = {\u202eright-to-left}}\n".encode(), None),
    "not-bibtex": (b"<html><body>{{not bibtex}}</body></html>\n" * 50, None),
}


def commands(path: Path, keys: list[str]) -> list[tuple[list[str], bool]]:
    """Every command, with whether it writes the library."""
    p = str(path)
    key = keys[0] if keys else "nosuchkey2024"
    folder = path.parent
    return [
        (["list", "-l", p], False),
        (["list", "-l", p, "--format", "json", "--by", "area"], False),
        (["list", "-l", p, "--format", "bibtex"], False),
        (["check", "-l", p], False),
        (["check", "--dedupe", "-f", "github", p], False),
        (["areas", "-l", p], False),
        (["export", "markdown", "-l", p], False),
        (["export", "html", "-l", p, "-o", str(folder / "out" / "index.html")], False),
        (["dedupe", "-l", p], False),
        (["dedupe", "--check", "-l", p], False),
        (["add", "-l", p, "--title", "A Hostile Test Entry", "--author", "Ada Lovelace",
          "--year", "2024", "--no-interactive"], True),
        (["add", "-l", p, "--from", str(folder / "incoming.bib"), "--force"], True),
        (["tag", key, "--add", "Artificial intelligence", "-l", p], True),
        (["tag", "--rename", "Artificial intelligence", "AI", "--new", "-l", p], True),
        (["dedupe", "--merge", "--yes", "-l", p], True),
        (["import", str(folder / "incoming.bib"), "-l", p, "--force"], True),
    ]


INCOMING = b"@misc{incoming2024, author = {Grace Hopper}, title = {Incoming Entry}, year = 2024}\n"


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()
                  if not p.name.endswith(".lock") and p.name != "out")


def run_all(folder: Path, path: Path, data: bytes, expect, only=None) -> dict:
    """Run every command on a fresh copy of ``data``; check the promises."""
    from pubcli.cli import app

    runner = CliRunner()
    seen = {}
    try:
        keys = store.load(path, use_cache=False).keys()
    except PubcliError:  # the commands must refuse it too: checked below
        keys = []
    for args, writes in commands(path, keys):
        if only and args[0] not in only:
            continue
        path.write_bytes(data)
        before = listing(folder)
        result = runner.invoke(app, args, catch_exceptions=False)
        where = f"pubcli {' '.join(a[:60] for a in args)}"
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise AssertionError(f"{where}: {result.exception!r}") from result.exception
        code = result.exit_code
        assert code in (0, 1, 2), where
        errors = [ln for ln in result.stderr.splitlines() if ln.startswith("error: ")]
        if expect is not None:
            part, line = expect
            assert code == 2, (where, result.stderr[-500:])
            where_line = f"{path}:{line}: " if line else f"{path}: "
            assert errors and errors[0].startswith("error: " + where_line), (where, errors)
            assert part in errors[0], (where, errors)
        if code == 2:
            # one line; for an unreadable library it names file and line (checked above),
            # otherwise it is about the request (no such key, no such area...)
            assert len(errors) == 1, (where, result.stderr[-1000:])
        else:
            assert errors == [], (where, errors)
        if not path.is_dir():
            if code == 2 or not writes:
                assert path.read_bytes() == data, f"{where} (exit {code}) changed the library"
                assert listing(folder) == before, f"{where} (exit {code}) left files behind"
            elif path.read_bytes() != data:
                # a write that worked: what was there is still there, and it reads back
                after = store.load(path, use_cache=False)
                old = store.loads(store.decode(data)[0])
                assert len(after.failed) == len(old.failed), where
                if args[0] == "add":
                    assert path.read_bytes().startswith(data), where
        assert not [p for p in folder.iterdir() if p.name.endswith(store.TEMP_SUFFIX)], where
        seen[" ".join(args[:2])] = code
    return seen


@pytest.fixture
def lib_dir(tmp_path) -> tuple[Path, Path]:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "pubcli.toml").write_bytes(CONFIG)
    (folder / "incoming.bib").write_bytes(INCOMING)
    return folder, folder / "library.bib"


@pytest.mark.parametrize("name", list(CASES))
def test_every_command_on_hostile_libraries(name, lib_dir):
    folder, path = lib_dir
    data, expect = CASES[name]
    path.write_bytes(data)
    codes = run_all(folder, path, data, expect)
    if expect is None:
        # a readable library: the reading commands work
        assert codes["list -l"] == 0 and codes["areas -l"] == 0 and codes["export markdown"] == 0


def test_broken_blocks_are_reported_with_their_line_and_kept(lib_dir, cli):
    folder, path = lib_dir
    data = CASES["truncated"][0]
    path.write_bytes(data)
    cut_line = data.count(b"\n", 0, data.rindex(b"\n@")) + 2
    r = cli("list", "-l", path, "--format", "keys")
    assert r.exit_code == 0
    assert f"warning: {path}:{cut_line}: could not parse this block" in r.stderr
    # BibTeX would read an entry appended after the open block as part of it: refused,
    # naming the block, and nothing is written (issue 9)
    r = cli("add", "-l", path, "--title", "After the cut", "--author", "Ada Lovelace",
            "--year", "2024", "--no-interactive")
    assert r.exit_code == 2, r.stderr
    assert f"error: {path}:{cut_line}: the block on line {cut_line} is not closed" in r.stderr
    assert path.read_bytes() == data                  # the broken block is kept verbatim
    # an edit of an entry before it still works: only appending is refused
    r = cli("tag", "--add", "Systems and networking", "--all", "-l", path)
    assert r.exit_code == 0, r.stderr
    assert store.load(path).failed[0].raw in path.read_text(encoding="utf-8")


def test_duplicate_keys_are_reported_and_survive_edits(lib_dir, cli):
    folder, path = lib_dir
    data = CASES["duplicate-keys"][0]
    path.write_bytes(data)
    dup = store.load(path).records[-1]
    r = cli("check", "-l", path)
    assert r.exit_code == 1
    assert f"{path}:{dup.line}: error: duplicate key '{dup.key}'" in r.stdout
    r = cli("tag", "wang2024zero", "--add", "Systems and networking", "-l", path)
    assert r.exit_code == 2 and f"lines 5 and {dup.line}" in r.stderr  # which one?
    assert path.read_bytes() == data
    r = cli("tag", f"wang2024zero@{dup.line}", "--add", "Systems and networking", "-l", path)
    assert r.exit_code == 0, r.stderr
    lib = store.load(path)
    assert [x.areas for x in lib.find("wang2024zero")] == [
        ["Artificial intelligence"], ["Artificial intelligence", "Systems and networking"]]
    assert [r.key for r in lib.records].count(dup.key) == 2


def test_comment_blocks_with_braces_survive_every_write(lib_dir, cli):
    folder, path = lib_dir
    data = CASES["comment-braces"][0]
    path.write_bytes(data)
    r = cli("tag", "wang2024zero", "--add", "Systems and networking", "-l", path)
    assert r.exit_code == 0, r.stderr
    r = cli("add", "-l", path, "--title", "Comment Test", "--author", "Ada Lovelace",
            "--year", "2024", "--no-interactive")
    assert r.exit_code == 0, r.stderr
    text = path.read_text(encoding="utf-8")
    for block in data.decode().split("\n@"):
        if block.lstrip("@").lower().startswith("comment"):
            assert block.split("\n")[0] in text
    assert text.startswith(data.decode()[:200])


def test_latin1_library_error_names_the_line_and_the_fix(lib_dir, cli):
    folder, path = lib_dir
    data = CASES["latin-1"][0]
    path.write_bytes(data)
    r = cli("list", "-l", path)
    assert r.exit_code == 2
    line = line_of(data, "Jörg".encode("latin-1"))
    assert r.stderr == (f"error: {path}:{line}: not valid UTF-8 (byte 0xf6); pubcli reads "
                        "UTF-8: convert the file, e.g. iconv -f latin1 -t utf-8\n")


def test_a_folder_a_missing_file_and_a_device_as_library(tmp_path, cli):
    folder = tmp_path / "data"
    folder.mkdir()
    for args in (["list", "-l", folder], ["check", folder],
                 ["add", "-l", folder, "--title", "x", "--year", "2024", "--no-interactive"]):
        r = cli(*args)
        assert r.exit_code == 2 and r.stderr == f"error: {folder}: is a folder, not a .bib file\n"
    missing = tmp_path / "missing.bib"
    for args in (["list", "-l", missing], ["tag", "x", "--featured", "-l", missing],
                 ["add", "-l", missing, "--title", "x", "--year", "2024", "--no-interactive"]):
        r = cli(*args)
        assert r.exit_code == 2 and r.stderr == f"error: {missing}: no such file\n"
    assert not missing.exists() and not store.lock_path(missing).exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_node_is_never_read_forever_nor_replaced(tmp_path, cli):
    """A copy of /dev/zero and of /dev/null as the library: pubcli must neither read
    the endless one nor replace the other with a regular file."""
    zero, null = tmp_path / "zero.bib", tmp_path / "null.bib"
    os.mknod(zero, 0o666 | stat.S_IFCHR, os.makedev(1, 5))
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    start = time.monotonic()
    for dev in (zero, null):
        for args in (["list", "-l", dev], ["check", dev],
                     ["add", "-l", dev, "--title", "x", "--year", "2024", "--no-interactive"]):
            r = cli(*args)
            assert r.exit_code == 2 and "is a device or socket, not a .bib file" in r.stderr
        assert stat.S_ISCHR(dev.lstat().st_mode)
    assert time.monotonic() - start < 30
    from pubcli.errors import WriteError
    with pytest.raises(WriteError, match="not a regular file; nothing was written"):
        store.atomic_write(null, b"@misc{x}\n")
    assert stat.S_ISCHR(null.lstat().st_mode)


def test_a_broken_config_names_its_file_and_line(lib_dir, cli):
    folder, path = lib_dir
    path.write_bytes(SHIPPED_BYTES)
    (folder / "pubcli.toml").write_text('owner = "Ada"\nareas = [\n', encoding="utf-8")
    for args in (["list", "-l", path], ["check", path],
                 ["add", "-l", path, "--title", "x", "--year", "2024", "--no-interactive"]):
        r = cli(*args)
        assert r.exit_code == 2, args
        assert r.stderr.startswith(f"error: {folder / 'pubcli.toml'}:") and \
            "invalid TOML" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert path.read_bytes() == SHIPPED_BYTES


def make_big_library(path: Path, target: int = 50 * 1024 * 1024) -> int:
    """A realistic 50 MB library: the shipped entries again and again under new keys,
    each with a long abstract (as exports from publishers carry)."""
    entries = SHIPPED_TEXT.split("\n\n")[1:]
    abstract = ("We study the problem of training very large models on many accelerators "
                "and show how memory, communication and computation can be balanced. ") * 30
    n = 0
    size = 0
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(SHIPPED_TEXT.split("\n\n")[0] + "\n\n")
        while size < target:
            e = entries[n % len(entries)]
            head, rest = e.split(",", 1)
            chunk = f"{head}x{n},\n  abstract = {{{abstract}}},{rest}\n\n"
            fh.write(chunk)
            size += len(chunk)
            n += 1
    return n


@pytest.mark.slow
def test_a_50_mb_library(tmp_path, cli):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "pubcli.toml").write_bytes(CONFIG)
    path = folder / "library.bib"
    n = make_big_library(path)
    data = path.read_bytes()
    assert len(data) >= 50 * 1024 * 1024
    r = cli("list", "-l", path, "--format", "keys")
    assert r.exit_code == 0, r.stderr
    assert len(r.stdout.split()) == n
    r = cli("check", "-l", path)
    assert r.exit_code in (0, 1), r.stderr
    # a failing write leaves all 50 MB alone
    r = cli("tag", "nosuchkey2024", "--featured", "-l", path)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1
    assert path.read_bytes() == data
    # a write that works appends its entry and keeps every old byte
    r = cli("add", "-l", path, "--title", "Fifty Megabytes Later", "--author", "Ada Lovelace",
            "--year", "2024", "--no-interactive")
    assert r.exit_code == 0, r.stderr
    after = path.read_bytes()
    assert after.startswith(data) and b"lovelace2024fifty" in after[len(data):]
    assert not [p for p in folder.iterdir() if p.name.endswith(store.TEMP_SUFFIX)]


ESCAPES = "\x1b]0;pwned\x07 \x1b[2J \x9b31m"  # OSC title + BEL, CSI clear, a C1 CSI


@pytest.mark.parametrize("args", [["export", "markdown"], ["export", "html"],
                                  ["list", "--format", "bibtex"]],
                         ids=["export-markdown", "export-html", "list-bibtex-piped"])
def test_terminal_escapes_in_values_never_reach_a_text_output(tmp_path, cli, args):
    """README: control characters in the data are shown as visible stand-ins, piped too."""
    lib = tmp_path / "library.bib"
    lib.write_text("@misc{esc2020,\n  author = {Doe, Jane},\n"
                   f"  title = {{Evil {ESCAPES} Title}},\n  year = {{2020}},\n}}\n",
                   encoding="utf-8")
    r = cli(*args, "-l", lib)
    assert r.exit_code == 0, r.output
    assert "Evil" in r.stdout
    for c in ("\x1b", "\x07", "\x9b"):
        assert c not in r.stdout
    assert "\u241b" in r.stdout  # ESC, visible
