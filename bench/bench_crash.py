"""Longer crash-safety runs: SIGKILL writers at random moments, many more times.

    python bench/bench_crash.py [--kills 5000] [--cli-kills 300] [--seconds 1800] [--seed N]

Runs tests/test_crash.py with larger counts (the CI run does 240 core kills and 12 of
the real CLI) and prints what the kills hit: how many left the old version, how
many the new one, how many left a temp file for the next run to clean. Any
version that is neither old nor new fails the run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=5000, help="SIGKILLs of forked writers")
    ap.add_argument("--cli-kills", type=int, default=300, help="SIGKILLs of python -m pubcli")
    ap.add_argument("--seconds", type=float, default=1800, help="time budget per test")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: fixed)")
    args = ap.parse_args()
    env = {**os.environ, "PUBCLI_CRASH_KILLS": str(args.kills),
           "PUBCLI_CRASH_CLI_KILLS": str(args.cli_kills),
           "PUBCLI_CRASH_SECONDS": str(args.seconds)}
    if args.seed is not None:
        env["PUBCLI_CRASH_SEED"] = str(args.seed)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
                           str(ROOT / "tests" / "test_crash.py")], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    for line in (proc.stdout + proc.stderr).splitlines():
        if line.startswith(("crash:", "FAILED", "E ")) or " passed" in line or " failed" in line:
            print(line)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
