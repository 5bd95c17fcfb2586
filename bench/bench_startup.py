"""Start-up time of `pubcli --help` (and of `pubcli sync --help`): median of N runs.

    python bench/bench_startup.py            # 20 runs each
    python bench/bench_startup.py --runs 50

Each run is a fresh process (the installed console script's interpreter running
``-m pubcli``), so the figure includes interpreter start-up, as a user sees it.
Also reports whether the network modules were imported by ``--help``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def run(args: list[str], runs: int) -> float:
    cmd = [sys.executable, "-m", "pubcli", *args]
    subprocess.run(cmd, capture_output=True, check=True)  # warm the OS caches
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def network_modules_loaded() -> list[str]:
    code = ("import sys; sys.argv=['pubcli','--help']\n"
            "import pubcli.cli\n"
            "print(' '.join(m for m in ('urllib.request','http.client','ssl','pubcli.online')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return out.stdout.split()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ns = ap.parse_args()
    for args in (["--help"], ["sync", "--help"]):
        try:
            ms = run(args, ns.runs)
        except subprocess.CalledProcessError:
            print(f"pubcli {' '.join(args)}: not available")
            continue
        print(f"pubcli {' '.join(args)}: median {ms:.1f} ms over {ns.runs} runs")
    loaded = network_modules_loaded()
    print("network modules imported at start-up:", ", ".join(loaded) or "none")


if __name__ == "__main__":
    main()
