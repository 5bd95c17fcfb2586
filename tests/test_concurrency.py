"""Concurrency: many writers at once lose nothing, readers never see a half
file, a lock left by a killed process does not block, and a waiting command
says what it is waiting for."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from pubcli import bibtex, store
from pubcli.errors import LockTimeout
from pubcli.schema.model import Record

from .conftest import SHIPPED

WRITERS = 8
PER_WRITER = int(os.environ.get("PUBCLI_CONCURRENT_ADDS", "50"))

WRITER = r"""
import sys
from pubcli import store
from pubcli.schema.model import Record
path, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
print("started", flush=True)
sys.stdin.readline()          # all writers start together
for i in range(n):
    with store.transaction(path) as lib:
        lib.add(Record(f"{name}x{i}", "inproceedings", {
            "author": f"Writer, {name}", "title": f"Paper {i} by writer {name}",
            "booktitle": "Concurrency Workshop", "year": "2024"}))
"""

HOLDER = r"""
import sys, time
from pubcli import store
with store.locked(sys.argv[1]):
    print("holding", flush=True)
    time.sleep(float(sys.argv[2]))
"""

WAITER = r"""
import sys
from pubcli import store
from pubcli.schema.model import Record
def told(message):
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
with store.transaction(sys.argv[1], on_wait=told) as lib:
    lib.add(Record("waited2024", "misc", {"title": "Added after waiting"}))
print("done", flush=True)
"""


def env(**extra) -> dict:
    return {**os.environ, "PUBCLI_NO_CACHE": "1", **extra}


@pytest.fixture
def lib_path(tmp_path) -> Path:
    path = tmp_path / "library.bib"
    shutil.copy(SHIPPED, path)
    return path


@pytest.fixture
def fast_lib_path(tmp_path):
    """The library on a RAM file system when there is one: locking and renames work the
    same there, and 400 fsyncs of a slow CI disk would take most of the run."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        folder = Path(tempfile.mkdtemp(prefix="pubcli-concurrency-", dir=shm))
    else:
        folder = tmp_path / "fast"
        folder.mkdir()
    path = folder / "library.bib"
    shutil.copy(SHIPPED, path)
    yield path
    if folder.parent == shm:
        shutil.rmtree(folder)


def test_eight_writers_adding_fifty_each_lose_nothing(fast_lib_path):
    lib_path = fast_lib_path
    before = lib_path.read_bytes()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(lib_path), f"w{n}",
                               str(PER_WRITER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env=env()) for n in range(WRITERS)]
    for p in procs:
        assert p.stdout.readline() == "started\n"
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    # meanwhile, read the file the way 'pubcli list' does: always a whole document
    reads = 0
    last_count = 20
    while any(p.poll() is None for p in procs):
        text = lib_path.read_bytes().decode("utf-8")
        parsed = bibtex.parse(text)
        assert parsed.failed == [], "a reader saw a half-written file"
        assert len(parsed.records) >= last_count
        last_count = len(parsed.records)
        reads += 1
        time.sleep(0.01)
    assert [p.wait(timeout=300) for p in procs] == [0] * WRITERS
    assert reads > 0

    lib = store.load(lib_path)
    assert lib.problems == []
    keys = lib.keys()
    expected = {f"w{n}x{i}" for n in range(WRITERS) for i in range(PER_WRITER)}
    assert expected <= set(keys)
    assert len(keys) == 20 + WRITERS * PER_WRITER == len(set(keys))
    # each writer's entries are in the order it added them; the old text is untouched
    for n in range(WRITERS):
        mine = [k for k in keys if k.startswith(f"w{n}x")]
        assert mine == [f"w{n}x{i}" for i in range(PER_WRITER)]
    assert lib_path.read_bytes().startswith(before)
    # the fast parser and bibtexparser's splitter agree on the result
    slow = bibtex.parse(lib.text, fast=False)
    assert [(r.key, r.fields) for r in slow.records] == [(r.key, r.fields) for r in lib]


def test_lock_of_a_killed_process_does_not_block(lib_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lib_path), "600"],
                              stdout=subprocess.PIPE, text=True, env=env())
    assert holder.stdout.readline() == "holding\n"
    assert store.lock_path(lib_path).exists()
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    # the lock file is still there; nobody holds it any more
    assert store.lock_path(lib_path).exists()
    start = time.monotonic()
    with store.transaction(lib_path) as lib:
        lib.add(Record("after2024kill", "misc", {"title": "x"}))
    assert time.monotonic() - start < 5
    assert "after2024kill" in store.load(lib_path)


def test_a_waiting_command_says_what_it_waits_for_then_proceeds(lib_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lib_path), "2"],
                              stdout=subprocess.PIPE, text=True, env=env())
    assert holder.stdout.readline() == "holding\n"
    waiter = subprocess.run([sys.executable, "-c", WAITER, str(lib_path)], capture_output=True,
                            text=True, timeout=60, env=env())
    holder.wait(timeout=30)
    assert waiter.returncode == 0, waiter.stderr
    assert waiter.stdout == "done\n"
    said = waiter.stderr.splitlines()
    assert len(said) == 1    # told once, not once per poll
    assert said[0].startswith(f"waiting for another pubcli process to finish with {lib_path}")
    assert ".library.bib.lock" in said[0]
    assert "waited2024" in store.load(lib_path)


def test_a_lock_held_too_long_times_out_with_a_clear_error(lib_path, monkeypatch):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lib_path), "600"],
                              stdout=subprocess.PIPE, text=True, env=env())
    try:
        assert holder.stdout.readline() == "holding\n"
        before = lib_path.read_bytes()
        monkeypatch.setenv("PUBCLI_LOCK_TIMEOUT", "1")
        told = []
        with pytest.raises(LockTimeout) as info:
            with store.transaction(lib_path, on_wait=told.append) as lib:
                lib.add(Record("never2024", "misc", {"title": "x"}))
        assert len(told) == 1
        message = info.value.format()
        assert message.startswith(f"{lib_path}: another process has held the lock ")
        assert "nothing was written" in message
        assert lib_path.read_bytes() == before
    finally:
        holder.kill()
        holder.wait(timeout=30)


def test_a_stopped_holder_blocks_only_until_it_is_gone(lib_path):
    """A holder that is alive (stopped) really holds the lock; once it is killed
    the waiter proceeds at once."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lib_path), "600"],
                              stdout=subprocess.PIPE, text=True, env=env())
    assert holder.stdout.readline() == "holding\n"
    holder.send_signal(signal.SIGSTOP)
    waiter = subprocess.Popen([sys.executable, "-c", WAITER, str(lib_path)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env())
    assert waiter.stderr.readline().startswith("waiting for another pubcli process")
    time.sleep(0.5)
    assert waiter.poll() is None          # still waiting: the lock is really held
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    assert waiter.wait(timeout=30) == 0
    assert "waited2024" in store.load(lib_path)


# ------------------------------------------------------------------ through the real CLI
CLI_PER_WRITER = int(os.environ.get("PUBCLI_CONCURRENT_CLI_ADDS", "25"))


def test_eight_cli_processes_adding_at_once(fast_lib_path):
    """Eight ``pubcli add --from`` processes at once, 25 entries each (50 and more with
    PUBCLI_CONCURRENT_CLI_ADDS; the core test above does 8 x 50 transactions)."""
    lib_path = fast_lib_path
    folder = lib_path.parent
    for n in range(WRITERS):
        (folder / f"w{n}.bib").write_text("".join(
            f"@inproceedings{{cli{n}x{i},\n  author = {{Writer, Number{n}}},\n"
            f"  title = {{Command Line Paper {i} of Writer {n}}},\n"
            f"  booktitle = {{Workshop {n}}},\n  year = {{2024}},\n}}\n\n"
            for i in range(CLI_PER_WRITER)),
            encoding="utf-8")
    procs = [subprocess.Popen([sys.executable, "-m", "pubcli", "add", "--from",
                               str(folder / f"w{n}.bib"), "--force", "--library", str(lib_path)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
             for n in range(WRITERS)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0] * WRITERS, [o[1][-500:] for o in outs]
    lib = store.load(lib_path)
    assert lib.problems == []
    keys = set(lib.keys())
    assert {f"cli{n}x{i}" for n in range(WRITERS) for i in range(CLI_PER_WRITER)} <= keys
    assert len(lib) == 20 + WRITERS * CLI_PER_WRITER


def test_a_waiting_cli_command_says_what_it_waits_for(lib_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lib_path), "3"],
                              stdout=subprocess.PIPE, text=True, env=env())
    assert holder.stdout.readline() == "holding\n"
    proc = subprocess.run([sys.executable, "-m", "pubcli", "tag", "wang2024zero", "--add",
                           "Systems and networking", "--library", str(lib_path)],
                          capture_output=True, text=True, timeout=120, env=env())
    holder.wait(timeout=30)
    assert proc.returncode == 0, proc.stderr
    waiting = [ln for ln in proc.stderr.splitlines() if ln.startswith("waiting for")]
    assert waiting == [f"waiting for another pubcli process to finish with {lib_path} "
                       "(lock .library.bib.lock, up to 60 s)"]
    assert "Systems and networking" in store.load(lib_path)["wang2024zero"].fields["keywords"]


def test_a_cli_command_gives_up_on_a_lock_held_too_long(lib_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lib_path), "600"],
                              stdout=subprocess.PIPE, text=True, env=env())
    try:
        assert holder.stdout.readline() == "holding\n"
        before = lib_path.read_bytes()
        proc = subprocess.run([sys.executable, "-m", "pubcli", "add", "--title", "Never",
                               "--year", "2024", "--no-interactive", "--library", str(lib_path)],
                              capture_output=True, text=True, timeout=120,
                              env=env(PUBCLI_LOCK_TIMEOUT="1"))
        assert proc.returncode == 2
        errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error: ")]
        assert len(errors) == 1 and errors[0].startswith(
            f"error: {lib_path}: another process has held the lock")
        assert lib_path.read_bytes() == before
    finally:
        holder.kill()
        holder.wait(timeout=30)
