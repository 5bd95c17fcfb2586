"""Fuzzing: mutated BibTeX (bytes flipped, braces and '@' thrown in, pieces cut,
doubled, spliced, truncated, encodings broken) through the loader, the writer
and every command. Nothing may end in a traceback; a command that fails says
so in one line and leaves the file as it was.

Counts per run: FUZZ_LOADER inputs through load/check/edit and FUZZ_CLI inputs
through the commands (10,000 together by default); ``PUBCLI_LONG=1`` runs ten
times as many, ``PUBCLI_FUZZ_SEED`` picks another sequence; bench/bench_fuzz.py
runs for as long as you like.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pubcli.usecases import checks
from pubcli import store
from pubcli.errors import PubcliError

from .conftest import ROOT, SHIPPED, SHIPPED_CONFIG

SCALE = 10 if os.environ.get("PUBCLI_LONG") else 1
FUZZ_LOADER = int(os.environ.get("PUBCLI_FUZZ_LOADER", 9600 * SCALE))
FUZZ_CLI = int(os.environ.get("PUBCLI_FUZZ_CLI", 400 * SCALE))
SEED = int(os.environ.get("PUBCLI_FUZZ_SEED", "1234"))

HANDMADE = [
    b"@string{acm = {ACM}}\n@string{press = acm # { Press}}\n"
    b"@book{knuth84, author = {Donald E. Knuth}, title = {The {\\TeX}book},\n"
    b"  publisher = press, year = 1984, month = may}\n",
    b"@comment{jabref-meta: databaseType:bibtex;}\n% a line comment\n"
    b"@preamble{\"\\newcommand{\\noopsort}[1]{}\"}\n"
    b"@misc(paren, title = \"Quoted {\\\"u} title\", note = {a} # \" b\")\n",
    b"\xef\xbb\xbf@article{bom1,\r\n  author = {M{\\\"u}ller, J.},\r\n  title = {CRLF and BOM},\r\n"
    b"  journal = {J}, year = {2020}\r\n}",
    b"@inproceedings{child, crossref = {parent}, author = {A}, title = {Child}}\n"
    b"@proceedings{parent, title = {Parent Proceedings}, year = 2019}\n"
    b"@misc{dup, title={one}}\n@misc{DUP, title={two}}\n@misc{df, title={a}, title={b}}\n",
    "@misc{unicode2024, author = {Sören Ærø and 中文 名字}, title = {Ünïcödé — “quotes”},\n"
    "  keywords = {Artificial intelligence, Systems and networking}, featured = {true}}\n"
    .encode("utf-8"),
    b"Free text before.\n@misc{a, title = {unclosed\n@misc{b, title = {after}}\n}}} stray\n",
]


def seeds() -> list[bytes]:
    shipped = SHIPPED.read_bytes()
    entries = shipped.split(b"\n\n")
    out = list(HANDMADE)
    out.append(b"\n\n".join(entries[:4]) + b"\n")
    out.append(b"\n\n".join(entries[-3:]))
    for name in ("pybtex-0.26.1/tests/data/IEEEtran.bib", "pybtex-0.26.1/tests/data/cyrillic.bib",
                 "sphinxcontrib_bibtex-2.7.0/test/roots/test-natbib/test.bib"):
        p = ROOT / "tests" / "corpus" / name
        if p.exists():
            out.append(p.read_bytes())
    return out


TOKENS = [b"{", b"}", b"@", b'"', b",", b"=", b"#", b"%", b"\\", b"\n", b"\r\n", b"\r", b"(",
          b")", b"@misc{", b"@string{", b"@comment{", b"@preamble{", b"}}}}", b"{{{{", b"\x00",
          b"\xff", b"\xc3", b"\xef\xbb\xbf", b"\xe2\x80\xae", b"\t", b" = ", b"@{", b"@misc{,}",
          b"title = {", b"author = ", b"and", b"\\\"", b"\xc3\xa9", b"\xe4\xb8\xad", b"\x1b[31m",
          b"\"{", b"}\"", b"#{", b"@STRING(x = \"y\")", b"keywords = {A, B}", b"year = 20x4"]


def mutate(data: bytes, rng: random.Random, pool: list[bytes]) -> bytes:
    b = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 3, 5))):
        n = len(b)
        op = rng.randrange(11)
        at = rng.randrange(n + 1)
        if op == 0 and n:                                   # flip a byte
            b[rng.randrange(n)] = rng.randrange(256)
        elif op in (1, 2):                                  # insert an interesting token
            b[at:at] = rng.choice(TOKENS)
        elif op == 3 and n:                                 # delete a range
            b[at:at + rng.randint(1, 64)] = b""
        elif op == 4 and n:                                 # duplicate a range
            piece = b[at:at + rng.randint(1, 400)]
            where = rng.randrange(len(b) + 1)
            b[where:where] = piece
        elif op == 5:                                       # truncate
            del b[at:]
        elif op == 6:                                       # splice with another seed
            other = rng.choice(pool)
            cut = rng.randrange(len(other) + 1)
            b[at:] = other[cut:]
        elif op == 7:                                       # swap two lines
            lines = bytes(b).split(b"\n")
            if len(lines) > 2:
                i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
                b = bytearray(b"\n".join(lines))
        elif op == 8:                                       # change the newlines
            b = bytearray(bytes(b).replace(b"\n", rng.choice((b"\r\n", b"\r", b"\n\n"))))
        elif op == 9:                                       # a very long value
            b[at:at] = b"x" * rng.choice((1000, 1000, 1000, 70000))
        else:                                               # flip case in a range
            end = at + rng.randint(1, 40)
            b[at:end] = bytes(b[at:end]).swapcase()
    return bytes(b)


def inputs(count: int, seed: int):
    rng = random.Random(seed)
    pool = seeds()
    for i in range(count):
        yield i, mutate(rng.choice(pool), rng, pool), rng


@pytest.fixture
def ram_dir(tmp_path):
    """A RAM folder when there is one: thousands of small rewrites of one file are
    slow on a disk file system that flushes each truncated file on close."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        folder = Path(tempfile.mkdtemp(prefix="pubcli-fuzz-", dir=shm))
        yield folder
        shutil.rmtree(folder)
    else:
        yield tmp_path


def temp_files(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(store.TEMP_SUFFIX)]


@pytest.mark.slow
def test_loader_checker_and_writer_never_crash(ram_dir):
    path = ram_dir / "library.bib"
    loaded = refused = edited = 0
    for i, data, rng in inputs(FUZZ_LOADER, SEED):
        path.write_bytes(data)
        try:
            lib = store.load(path, use_cache=False)
        except PubcliError as exc:
            message = exc.format()
            assert "\n" not in message and message.startswith(str(path)), (i, message)
            refused += 1
            continue
        loaded += 1
        # what was read can be written back unchanged, and makes sense
        assert store.render(lib) == lib.text, i
        for rec in lib.records:
            assert 0 <= rec.source.start < rec.source.end <= len(lib.text), (i, rec)
            assert rec.line >= 1
        assert all(p.line >= 1 for p in lib.problems), (i, lib.problems)
        for f in checks.check(lib, areas=["Artificial intelligence"]):
            assert f.line >= 1 and f.code and "\n" not in f.code
        # one edit in five: change one entry, and only its bytes change (or a clear refusal)
        if lib.records and i % 5 == 0:
            rec = rng.choice(lib.records)
            if rec.source.read_only or sum(r.key == rec.key for r in lib.records) > 1:
                continue
            fields = {**rec.fields, "note": "fuzz " + str(i)}
            start, end = rec.source.start, rec.source.end
            lib.replace(rec.key, rec.copy(fields=fields))
            try:
                out = store.render(lib)
            except PubcliError:
                continue
            assert out[:start] == lib.text[:start], i
            assert out[len(out) - (len(lib.text) - end):] == lib.text[end:], i
            edited += 1
    assert loaded + refused == FUZZ_LOADER
    assert loaded > FUZZ_LOADER // 4 and refused > 0 and edited > 100
    print(f"\nfuzz: {FUZZ_LOADER} inputs through the loader ({loaded} loaded, {refused} "
          f"refused with one line, {edited} edited)")


CONFIGS = [SHIPPED_CONFIG.read_bytes(), b"", b"areas = 3\n", b"owner = [\n",
           b'areas = ["A, B"]\n', "areas = [\"Ünïcode\"]\nowner = \"Sören\"\n".encode()]


def commands(path: Path, rng: random.Random, keys: list[str]) -> tuple[list[str], bool]:
    """A random command line and whether it writes."""
    p = str(path)
    key = rng.choice(keys) if keys else "nosuchkey"
    choices = [
        (["list", "-l", p], False),
        (["list", "-l", p, "--format", rng.choice(["json", "csv", "keys", "bibtex"]),
          "--by", rng.choice(["year", "area", "type", "venue", "none"])], False),
        (["check", "-l", p, "-f", rng.choice(["text", "json", "github"])], False),
        (["check", "--dedupe", p], False),
        (["areas", "-l", p], False),
        (["dedupe", "--check", "-l", p], False),
        (["export", rng.choice(["markdown", "html"]), "-l", p], False),
        (["add", "-l", p, "--title", "Fuzzed Title " + str(rng.random()), "--author",
          "Ada Lovelace", "--year", "2024", "--no-interactive", "--force"], True),
        (["add", "-l", p, "--title", "x", "--year", "2024", "--dry-run", "--no-interactive"],
         False),
        (["tag", key, "--add", "Artificial intelligence", "-l", p], True),
        (["tag", key, "--featured", "-l", p], True),
        (["tag", "--rename", "Artificial intelligence", "AI", "--new", "-l", p], True),
        (["dedupe", "--merge", "--yes", "-l", p], True),
        (["import", str(path.parent / "incoming.bib"), "-l", p, "--force"], True),
    ]
    return rng.choice(choices)


@pytest.mark.slow
def test_every_command_on_mutated_libraries(ram_dir):
    from pubcli.cli import app

    runner = CliRunner()
    folder = ram_dir / "data"
    folder.mkdir()
    path = folder / "library.bib"
    counts = {0: 0, 1: 0, 2: 0}
    pool = seeds()
    for i, data, rng in inputs(FUZZ_CLI, SEED + 1):
        path.write_bytes(data)
        (folder / "pubcli.toml").write_bytes(rng.choice(CONFIGS) if i % 7 == 0
                                             else CONFIGS[0])
        (folder / "incoming.bib").write_bytes(mutate(rng.choice(pool), rng, pool))
        try:
            keys = store.load(path, use_cache=False).keys()
        except PubcliError:
            keys = []
        args, writes = commands(path, rng, keys)
        result = runner.invoke(app, args, catch_exceptions=False)
        where = f"input {i}: pubcli {' '.join(args)}"
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise AssertionError(f"{where} raised {result.exception!r}") from result.exception
        assert result.exit_code in (0, 1, 2), where
        assert "Traceback" not in result.stderr, where
        counts[result.exit_code] += 1
        errors = [ln for ln in result.stderr.splitlines() if ln.startswith("error: ")]
        if result.exit_code == 2:
            assert len(errors) == 1, (where, result.stderr)
            if writes:
                assert path.read_bytes() == data, f"{where} failed but changed the file"
        else:
            assert errors == [], (where, result.stderr)
        if not writes:
            assert path.read_bytes() == data, f"{where} does not write, but changed the file"
        if writes and result.exit_code == 0 and path.read_bytes() != data:
            # what was written still reads, and nothing unreadable was lost
            before = store.loads(store.decode(data)[0])
            after = store.load(path, use_cache=False)
            assert len(after.failed) == len(before.failed), where
            # every block that could not be read is still there, as it was
            for f in before.failed:
                if f.start >= 0:   # (the first line of the block, at most 60 characters)
                    first = re.split(r"[\r\n]", before.text[f.start:f.start + 60])[0]
                    assert first in after.text, where
            if args[0] == "add":
                assert path.read_bytes().startswith(data), f"{where} changed old bytes"
                assert result.stdout.split()[-1] in after, f"{where} lost the new entry"
        assert temp_files(folder) == [], where
    assert counts[0] > 0 and counts[2] > 0
    print(f"\nfuzz: {FUZZ_CLI} mutated libraries through the commands; exit statuses {counts}")
