"""Start-up time of `pubcli --help` and `pubcli sync --help`: median of N runs.

    python bench/bench_startup.py                      # 20 runs each
    python bench/bench_startup.py --before /tmp/base/src   # interleaved before/after

Each run is a fresh process (``python -m pubcli``), so the figure includes the
interpreter's start-up, as a user sees it. With ``--before SRC`` every run of the
current code alternates with a run of the code in SRC (put first on PYTHONPATH,
e.g. ``git archive <commit> src | tar -x -C /tmp/base``), so that a busy machine
slows both alike; the ratio after/before is printed. Also reports whether the
network modules are imported by ``--help`` (they must not be).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time


def once(args: list[str], pythonpath: str | None) -> tuple[float, float]:
    """(wall ms, CPU ms) of one run; CPU time (user + system of the child) is what a
    busy machine disturbs least."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pubcli", *args], capture_output=True, env=env,
                   check=False)
    wall = (time.perf_counter() - t) * 1000
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000
    return wall, cpu


def network_modules_loaded() -> list[str]:
    code = ("import sys; sys.argv=['pubcli','--help']\n"
            "from pubcli.cli import app\n"
            "try:\n    app()\nexcept SystemExit:\n    pass\n"
            "print('LOADED', *[m for m in ('urllib.request', 'http.client', 'ssl',"
            " 'pubcli.online') if m in sys.modules], file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)
    line = [ln for ln in out.stderr.splitlines() if ln.startswith("LOADED")]
    return line[-1].split()[1:] if line else ["(could not tell)"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--before", metavar="SRC", help="source folder of the code to compare with")
    ns = ap.parse_args()
    for args in (["--help"], ["sync", "--help"]):
        once(args, None)  # warm the OS caches
        after, before = [], []
        for _ in range(ns.runs):
            after.append(once(args, None))
            if ns.before and args == ["--help"]:  # the old code may lack the command
                before.append(once(args, ns.before))
        for i, what in ((0, "wall"), (1, "cpu")):
            a = statistics.median(x[i] for x in after)
            line = f"pubcli {' '.join(args)}: median {what} {a:.1f} ms"
            if before:
                b = statistics.median(x[i] for x in before)
                line += f" (before: {b:.1f} ms, after/before {a / b:.2f})"
            print(f"{line} over {ns.runs} runs", flush=True)
    loaded = network_modules_loaded()
    print("network modules imported by --help:", ", ".join(loaded) or "none")


if __name__ == "__main__":
    main()
