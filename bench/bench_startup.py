"""Start-up time of the CLI: median wall time of `pubcli ARGS` over N runs.

    python bench/bench_startup.py                       # pubcli --help, 20 runs
    python bench/bench_startup.py -n 30 --version
    python bench/bench_startup.py --against OLD/src     # interleaved with another tree

With --against, runs of this tree and of the other source tree (PYTHONPATH) are
interleaved, so a busy machine slows both alike; the ratio is after/before.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def _time(cmd: list[str], src: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run; CPU time suffers less from a busy machine."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, capture_output=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str]) -> None:
    runs = 20
    other: Path | None = None
    while argv[:1] in (["-n"], ["--against"]):
        if argv[0] == "-n":
            runs = int(argv[1])
        else:
            other = Path(argv[1]).resolve()
        argv = argv[2:]
    args = argv or ["--help"]
    cmd = [sys.executable, "-m", "pubcli", *args]
    trees = {"this tree": SRC, **({"other tree": other} if other else {})}
    for src in trees.values():
        _time(cmd, src)  # warm the file cache and .pyc files
    times: dict[str, list[float]] = {name: [] for name in trees}
    cpu: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(runs):
        for name, src in trees.items():
            wall, used = _time(cmd, src)
            times[name].append(wall)
            cpu[name].append(used)
    medians = {name: statistics.median(t) * 1000 for name, t in times.items()}
    cpu_medians = {name: statistics.median(t) * 1000 for name, t in cpu.items()}
    for name, t in times.items():
        print(f"pubcli {' '.join(args)} ({name}): median {medians[name]:.1f} ms wall "
              f"(min {min(t) * 1000:.1f}, max {max(t) * 1000:.1f}), "
              f"{cpu_medians[name]:.1f} ms CPU, over {runs} runs")
    if other:
        print(f"ratio this/other: wall {medians['this tree'] / medians['other tree']:.2f}, "
              f"CPU {cpu_medians['this tree'] / cpu_medians['other tree']:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
