"""Longer fuzzing runs: many more mutated libraries through the loader and the CLI,
and many more hypothesis-generated documents through the round-trip properties.

    python bench/bench_fuzz.py [--loader 200000] [--cli 20000] [--examples 5000] [--seed N]

The CI run does 9,600 loader inputs, 400 CLI inputs and 150 documents per property.
Prints the counts each test reports; a traceback or a changed file fails the run.
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
    ap.add_argument("--loader", type=int, default=200_000, help="inputs through the loader")
    ap.add_argument("--cli", type=int, default=20_000, help="inputs through the commands")
    ap.add_argument("--examples", type=int, default=5000, help="hypothesis examples per property")
    ap.add_argument("--seed", type=int, default=None, help="fuzz seed (default: fixed)")
    args = ap.parse_args()
    env = {**os.environ, "PUBCLI_FUZZ_LOADER": str(args.loader),
           "PUBCLI_FUZZ_CLI": str(args.cli),
           "PUBCLI_HYPOTHESIS_EXAMPLES": str(args.examples)}
    if args.seed is not None:
        env["PUBCLI_FUZZ_SEED"] = str(args.seed)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
                           str(ROOT / "tests" / "test_fuzz.py"),
                           str(ROOT / "tests" / "test_roundtrip_property.py")],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    for line in (proc.stdout + proc.stderr).splitlines():
        if line.startswith(("fuzz:", "FAILED", "E ", "Falsifying")) or " passed" in line \
                or " failed" in line:
            print(line)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
