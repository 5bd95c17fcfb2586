"""Crash safety: a writing process killed with SIGKILL at any moment leaves the
library as the old or the new version, byte for byte, and leaves no temp file
that the next run does not clean up.

The core run forks writers from a warm "zygote" process (imports done once),
so hundreds of kills fit in a few seconds; half the kills are aimed at the
window in which the file is written and renamed, the others anywhere. A second
run kills the real CLI (``python -m pubcli ...``). Counts: CI-sized by default,
``PUBCLI_LONG=1`` (or ``PUBCLI_CRASH_KILLS=N``) for more; bench/bench_crash.py
runs the same thing for as long as you like.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from pubcli import store

from .conftest import ROOT

LONG = bool(os.environ.get("PUBCLI_LONG"))
KILLS = int(os.environ.get("PUBCLI_CRASH_KILLS", 2000 if LONG else 240))
CLI_KILLS = int(os.environ.get("PUBCLI_CRASH_CLI_KILLS", 200 if LONG else 12))
TIME_BUDGET = float(os.environ.get("PUBCLI_CRASH_SECONDS", 600 if LONG else 60))

# The edit step N makes, as source text: the zygote's children run it, and the
# test runs it too (in memory) to know the exact bytes of the "new" version.
EDIT = r'''
from pubcli.schema.model import Record

def edit(lib, step):
    kind = step % 4
    recs = lib.records
    if kind == 0 or len(recs) < 30:
        lib.add(Record(f"crash{step}", "misc", {
            "author": 'Crash, Test and M{\\"u}ller, J.',
            "title": f"Entry written at step {step} " + "x" * (step % 97),
            "year": str(2000 + step % 25), "keywords": "Artificial intelligence"}))
    elif kind == 1:
        rec = recs[(step * 7919) % len(recs)]
        fields = dict(rec.fields)
        fields["note"] = f"edited at step {step}" + " more" * (step % 13)
        lib.replace(rec.key, rec.copy(fields=fields))
    elif kind == 2:
        rec = recs[(step * 104729) % len(recs)]
        lib.remove(rec.key)
    else:
        rec = recs[(step * 31) % len(recs)]
        fields = dict(rec.fields)
        fields.pop("month", None)
        fields["title"] = fields.get("title", "") + f" (v{step})"
        lib.replace(rec.key, rec.copy(key=f"{rec.key}v{step}", fields=fields))
'''

ZYGOTE = EDIT + r'''
import os, signal, sys, time
from pubcli import store

path = sys.argv[1]
marks_r, marks_w = os.pipe()
_real_write = store.atomic_write

def timed_write(p, data):  # tells the parent when the write starts and ends
    os.write(marks_w, f"{time.monotonic()}\n".encode())
    _real_write(p, data)
    os.write(marks_w, f"{time.monotonic()}\n".encode())

store.atomic_write = timed_write
print("ready", flush=True)
for line in sys.stdin:
    step, delay = line.split()
    step, delay = int(step), float(delay)
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            with store.transaction(path) as lib:
                edit(lib, step)
        except BaseException:
            os._exit(3)
        os._exit(0)
    if delay >= 0:
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    marks = []
    if delay < 0:
        data = os.read(marks_r, 4096).split()
        marks = [float(x) - t0 for x in data]
    print(status, time.monotonic() - t0, *marks, flush=True)
'''


def make_library(path: Path, n: int, seed: int = 1) -> None:
    subprocess.run([sys.executable, str(ROOT / "bench" / "gen_library.py"), str(n), str(path),
                    "--seed", str(seed)], check=True, capture_output=True)
    # a comment, a macro and the shipped entries: things a rewrite must not touch
    text = path.read_text(encoding="utf-8")
    shipped = (ROOT / "data" / "library.bib").read_text(encoding="utf-8")
    path.write_text("% kept verbatim: {braces} and @ signs\n@string{acm = {ACM}}\n" + text
                    + "\n" + shipped, encoding="utf-8")


def expected_after(path: Path, step: int, ns: dict) -> bytes:
    lib = store.load(path, use_cache=False)
    ns["edit"](lib, step)
    return (store.UTF8_BOM if lib.bom else b"") + store.render(lib).encode("utf-8")


def temp_files(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"*{store.TEMP_SUFFIX}"))


class Zygote:
    def __init__(self, path: Path):
        env = {**os.environ, "PUBCLI_NO_CACHE": "1"}
        self.proc = subprocess.Popen([sys.executable, "-c", ZYGOTE, str(path)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=env)
        assert self.proc.stdout.readline() == "ready\n"

    def run(self, step: int, delay: float) -> tuple[int, float, list[float]]:
        self.proc.stdin.write(f"{step} {delay}\n")
        self.proc.stdin.flush()
        parts = self.proc.stdout.readline().split()
        return int(parts[0]), float(parts[1]), [float(x) for x in parts[2:]]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def test_sigkill_at_random_moments_leaves_old_or_new(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "library.bib"
    make_library(path, 60)
    ns: dict = {}
    exec(EDIT, ns)
    rng = random.Random(int(os.environ.get("PUBCLI_CRASH_SEED", "20240607")))
    zygote = Zygote(path)
    outcomes = {"old": 0, "new": 0, "temp-left": 0, "in-window": 0}
    step = 0
    deadline = time.monotonic() + TIME_BUDGET
    try:
        # calibrate: how long a whole write takes, and when the file is written
        durations, windows = [], []
        for _ in range(5):
            status, took, marks = zygote.run(step, -1)
            assert status == 0
            durations.append(took)
            windows.append(marks)
            step += 1
        total = sorted(durations)[2]
        w0 = sorted(m[0] for m in windows)[2]
        w1 = sorted(m[1] for m in windows)[2]

        kills = 0
        while kills < KILLS and time.monotonic() < deadline:
            old = path.read_bytes()
            new = expected_after(path, step, ns)
            assert new != old
            if kills % 2:
                delay = rng.uniform(0, total * 1.2)
            else:
                delay = rng.uniform(max(0.0, w0 - 0.002), w1 + 0.002)
            status, _, _ = zygote.run(step, delay)
            kills += 1
            now = path.read_bytes()
            # the one promise: old or new, byte for byte
            assert now in (old, new), f"kill {kills} (step {step}, delay {delay:.4f}s) " \
                                      "left a file that is neither the old nor the new version"
            if now == new:
                outcomes["new"] += 1
                step += 1          # the next edit starts from the new version
            else:
                outcomes["old"] += 1
            outcomes["in-window"] += w0 <= delay <= w1
            left = temp_files(folder)
            outcomes["temp-left"] += bool(left)
            if kills % 25 == 0:
                # a run that is not killed cleans what the killed ones left
                status, _, _ = zygote.run(step, -1)
                assert status == 0
                step += 1
                assert temp_files(folder) == []
        status, _, _ = zygote.run(step, -1)
        assert status == 0
    finally:
        zygote.close()

    assert kills >= min(KILLS, 200), f"only {kills} kills fitted in {TIME_BUDGET:g} s"
    assert temp_files(folder) == []
    lib = store.load(path, use_cache=False)
    # the only problem: BibTeX reads the comment's '@ signs' as a command and errs
    assert [p.kind for p in lib.problems] == ["bibtex"] and len(lib) >= 30
    assert lib.macros.get("acm") == "ACM"
    assert path.read_text(encoding="utf-8").startswith("% kept verbatim: {braces} and @ signs\n")
    # the kills really landed on both sides of the rename
    assert outcomes["old"] > 0 and outcomes["new"] > 0, outcomes
    print(f"\ncrash: {kills} SIGKILLs survived: {outcomes}", file=sys.stderr)


def _cli_step(step: int, path: Path, records: list) -> list[str]:
    """The command for this step: an add (appends) or a tag (patches one entry)."""
    if step % 3 == 0 or not records:
        return ["add", "--library", str(path), "--title", f"Killed While Adding {step}",
                "--author", "Ada Lovelace", "--year", "2024", "--no-interactive", "--force"]
    rec = records[(step * 7919) % len(records)]
    if step % 3 == 1:
        return ["tag", rec.key, "--add", f"Area {step}", "--new", "--library", str(path)]
    return ["tag", rec.key, "--not-featured" if rec.featured else "--featured",
            "--library", str(path)]


def test_sigkill_of_the_real_cli_leaves_old_or_new(tmp_path):
    """Kill ``python -m pubcli add/tag`` itself (imports, load, write: all of it)."""
    from typer.testing import CliRunner

    from pubcli.cli import app

    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "library.bib"
    make_library(path, 60, seed=3)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    shadow = scratch / "library.bib"
    env = {**os.environ, "PUBCLI_NO_CACHE": "1"}
    runner = CliRunner()
    rng = random.Random(7)

    def expected(step: int) -> tuple[list[str], bytes]:
        """The bytes the command writes when nothing stops it (run in-process on a copy)."""
        shadow.write_bytes(path.read_bytes())
        records = store.load(shadow, use_cache=False).records
        args = _cli_step(step, path, records)
        result = runner.invoke(app, [a if a != str(path) else str(shadow) for a in args],
                               catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return args, shadow.read_bytes()

    # how long a whole command takes here, start-up included
    args, _ = expected(0)
    start = time.monotonic()
    assert subprocess.run([sys.executable, "-m", "pubcli", *args], env=env,
                          capture_output=True, timeout=120).returncode == 0
    whole = time.monotonic() - start
    step, kills, seen = 1, 0, {"old": 0, "new": 0}
    deadline = time.monotonic() + TIME_BUDGET / 2
    while kills < CLI_KILLS and time.monotonic() < deadline:
        old = path.read_bytes()
        args, new = expected(step)
        assert new != old
        proc = subprocess.Popen([sys.executable, "-m", "pubcli", *args], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(whole * 0.5, whole * 1.2))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        kills += 1
        now = path.read_bytes()
        assert now in (old, new), f"kill {kills}: pubcli {' '.join(args[:2])} left a third version"
        if now == new:
            seen["new"] += 1
            step += 1
        else:
            seen["old"] += 1
    assert kills >= min(CLI_KILLS, 8), f"only {kills} kills fitted in the time budget"
    args, new = expected(step)
    assert subprocess.run([sys.executable, "-m", "pubcli", *args], env=env, capture_output=True,
                          timeout=120).returncode == 0
    assert path.read_bytes() == new
    assert temp_files(folder) == []
    assert [p.kind for p in store.load(path).problems] == ["bibtex"]  # the comment's "@ signs"
    print(f"\ncrash: {kills} SIGKILLs of the real CLI survived: {seen}", file=sys.stderr)
