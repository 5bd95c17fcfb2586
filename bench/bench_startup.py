"""Start-up time of the CLI: median wall time of `pubcli ARGS` over N runs.

    python bench/bench_startup.py              # pubcli --help, 20 runs
    python bench/bench_startup.py -n 30 --version
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time


def main(argv: list[str]) -> None:
    runs = 20
    if argv[:1] == ["-n"]:
        runs, argv = int(argv[1]), argv[2:]
    args = argv or ["--help"]
    cmd = [sys.executable, "-m", "pubcli", *args]
    subprocess.run(cmd, capture_output=True)  # warm the file cache and .pyc files
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True)
        times.append(time.perf_counter() - t0)
    print(f"pubcli {' '.join(args)}: median {statistics.median(times) * 1000:.1f} ms "
          f"over {runs} runs (min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})")


if __name__ == "__main__":
    main(sys.argv[1:])
