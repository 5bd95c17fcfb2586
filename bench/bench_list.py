"""Benchmark `pubcli --help` and `pubcli list --by year` (issue: store and list).

    python bench/bench_list.py [--sizes 1000,10000,100000] [--runs 5]

Generates synthetic libraries with bench/gen_library.py (macros, LaTeX, long author
lists) under bench/out/, then times whole `pubcli` processes, to a pipe and to a
terminal (a pseudo-terminal), cold (empty parse cache) and warm (cache filled by a
previous run). Prints medians and writes bench/out/list.json.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
ROOT = HERE.parent
PUBCLI = [sys.executable, "-m", "pubcli"]


def ensure_library(n: int) -> Path:
    sys.path.insert(0, str(HERE))
    from gen_library import ensure_library as generate

    return generate(n, OUT)


def run_pipe(args: list[str], env: dict) -> float:
    t = time.perf_counter()
    p = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"{args} failed: {p.stderr.decode()[:500]}")
    return dt


def run_tty(args: list[str], env: dict) -> float:
    master, slave = pty.openpty()
    env = {**env, "COLUMNS": "120", "LINES": "50", "TERM": "xterm-256color"}
    t = time.perf_counter()
    p = subprocess.Popen(args, env=env, stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)

    def drain():
        while True:
            try:
                if not os.read(master, 65536):
                    break
            except OSError:
                break

    th = threading.Thread(target=drain)
    th.start()
    p.wait()
    dt = time.perf_counter() - t
    th.join()
    os.close(master)
    if p.returncode != 0:
        raise SystemExit(f"{args} failed on a tty")
    return dt


def median_of(fn, runs: int) -> float:
    return statistics.median(fn() for _ in range(runs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    base_env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    base_env.pop("NO_COLOR", None)
    results: dict[str, float] = {}

    results["help"] = median_of(lambda: run_pipe(PUBCLI + ["--help"], base_env), args.runs * 3)
    shipped = ROOT / "data" / "library.bib"
    results["shipped list (pipe)"] = median_of(
        lambda: run_pipe(PUBCLI + ["list", "--by", "year", "-l", str(shipped)], base_env),
        args.runs * 2)
    results["shipped list (tty)"] = median_of(
        lambda: run_tty(PUBCLI + ["list", "--by", "year", "-l", str(shipped)], base_env),
        args.runs * 2)

    for n in [int(s) for s in args.sizes.split(",")]:
        lib = ensure_library(n)
        cmd = PUBCLI + ["list", "--by", "year", "-l", str(lib)]
        runs = max(3, args.runs if n < 100000 else 3)
        for where, runner in (("pipe", run_pipe), ("tty", run_tty)):
            def cold() -> float:
                with tempfile.TemporaryDirectory() as cache:
                    return runner(cmd, {**base_env, "PUBCLI_CACHE_DIR": cache})

            results[f"{n} list cold ({where})"] = median_of(cold, runs)
            with tempfile.TemporaryDirectory() as cache:
                env = {**base_env, "PUBCLI_CACHE_DIR": cache}
                runner(cmd, env)  # fill the cache
                results[f"{n} list warm ({where})"] = median_of(lambda: runner(cmd, env), runs)
        print(f"done {n}", file=sys.stderr)

    width = max(len(k) for k in results)
    for k, v in results.items():
        print(f"{k:<{width}}  {v * 1000:8.0f} ms")
    OUT.mkdir(exist_ok=True)
    (OUT / "list.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
