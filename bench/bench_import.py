"""CPU time of `pubcli import FILE.bib --dry-run` into a library, this tree against another.

    python bench/bench_import.py [--baseline /work/main/src] [--repeat 3] [--out bench/out]

For each setting (ENTRIES in the library, ITEMS in the input, a tenth of them
near-duplicates: bench/gen_library.py --dups) and each seed, the library and the
input are generated once; then each tree (this one, and ``--baseline``: another
checkout's ``src``, e.g. main before a change) runs the real command line in a
subprocess, interpreter start-up included, with a fresh cache directory each time.
The median CPU time (user + system of the child: a busy machine inflates wall time,
not CPU time) of each tree and their ratio go to stdout and OUT/bench_import.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = [(1000, 300), (2000, 1000)]  # (library entries, input items)
SEEDS = [1, 2]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(src: Path, lib: Path, items: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(src), "PUBCLI_CACHE_DIR": tempfile.mkdtemp()}
    before = _cpu()
    subprocess.run([sys.executable, "-m", "pubcli", "import", str(items), "--dry-run",
                    "-l", str(lib)], env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    return _cpu() - before


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", type=Path, default=Path("/work/main/src"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    gen = ROOT / "bench" / "gen_library.py"
    trees = {"this": ROOT / "src", "baseline": args.baseline}
    results = []
    for entries, items in SETTINGS:
        for seed in SEEDS:
            d = Path(tempfile.mkdtemp())
            lib, inp = d / "library.bib", d / "in.bib"
            subprocess.run([sys.executable, str(gen), str(entries), str(lib), "--seed",
                            str(seed)], check=True, stdout=subprocess.DEVNULL)
            subprocess.run([sys.executable, str(gen), str(items), str(inp), "--seed",
                            str(seed + 100), "--dups", "0.1", "--truth", str(d / "t.json")],
                           check=True, stdout=subprocess.DEVNULL)
            times: dict[str, list[float]] = {name: [] for name in trees}
            for _ in range(args.repeat):
                for name, src in trees.items():  # interleaved: load drifts hit both
                    times[name].append(_run(src, lib, inp))
            row = {"entries": entries, "items": items, "seed": seed,
                   **{f"{n}_cpu_median": round(statistics.median(t), 3)
                      for n, t in times.items()}}
            row["ratio"] = round(row["this_cpu_median"] / row["baseline_cpu_median"], 3)
            results.append(row)
            print(f"{entries:>6} entries, {items:>5} items, seed {seed}: this "
                  f"{row['this_cpu_median']:.2f} s, baseline {row['baseline_cpu_median']:.2f} s "
                  f"CPU (median of {args.repeat}), ratio {row['ratio']:.3f}", flush=True)
    (args.out / "bench_import.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
