"""TAB completion of a citation key, as the shell runs it: a whole ``pubcli`` process
with the completion variables set (bash protocol), CPU time (user + system) of the
child, median of N runs.

    python bench/bench_completion.py                    # 100k entries, seeds 1 and 2
    python bench/bench_completion.py --sizes 1000 100000 --runs 15

For each generated library (bench/gen_library.py N, several seeds) it measures:

* warm: the key index is kept (the usual TAB; the store refreshes it after each save);
* cold: the index removed before each run (the first TAB after an outside edit:
  a scan of the ``@type{key`` heads, no parse);
* slow path: no kept grammar either (the first TAB after pubcli itself changed),
  answered by the full CLI;

beside, in the same run, ``python -c pass`` (the interpreter alone) and
``pubcli --help`` (the CLI's own start-up), with the ratios.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PUBCLI = [sys.executable, "-c", "from pubcli.__main__ import main; main()"]


def once(cmd: list[str], env: dict, before=None) -> tuple[float, float, str]:
    """(CPU ms, wall ms, stdout) of one whole process."""
    if before:
        before()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False).stdout
    wall = (time.perf_counter() - t) * 1000
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000, wall, out


def median(cmd, env, runs, before=None) -> tuple[float, float, str]:
    got = [once(cmd, env, before) for _ in range(runs)]
    return (statistics.median(g[0] for g in got), statistics.median(g[1] for g in got),
            got[-1][2])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[100000])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--runs", type=int, default=11)
    ns = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pubcli-bench-completion-"))
    cache = work / "cache"
    env = {**os.environ, "PUBCLI_CACHE_DIR": str(cache)}
    env.pop("PUBCLI_NO_CACHE", None)
    base = median([sys.executable, "-c", "pass"], env, ns.runs)[0]
    help_cpu = median(PUBCLI + ["--help"], env, ns.runs)[0]
    print(f"python -c pass: {base:.0f} ms CPU; pubcli --help: {help_cpu:.0f} ms CPU "
          f"(medians of {ns.runs})")
    print(f"{'entries':>8} {'seed':>4} {'warm':>8} {'cold':>8} {'slow':>8} {'warm/help':>9} "
          f"{'cands':>6}")
    try:
        for n in ns.sizes:
            for seed in ns.seeds:
                bib = work / f"lib-{n}-{seed}.bib"
                subprocess.run([sys.executable, str(HERE / "gen_library.py"), str(n), str(bib),
                                "--seed", str(seed)], check=True, capture_output=True)
                prefix = "gen1234"  # gen_library's keys: gen0, gen1, ...: 11 start so
                words = f"pubcli show -l {bib} {prefix}"
                tab = {**env, "_PUBCLI_COMPLETE": "complete_bash", "COMP_WORDS": words,
                       "COMP_CWORD": "4"}
                once(PUBCLI, tab)  # keeps the grammar and the index
                index = next(cache.glob("*.keys"))
                grammar = cache / "grammar.marshal"
                warm, _, out = median(PUBCLI, tab, ns.runs)
                cold = median(PUBCLI, tab, ns.runs, before=lambda: index.unlink(missing_ok=True))[0]
                once(PUBCLI, tab)
                slow = median(PUBCLI, tab, ns.runs,
                              before=lambda: grammar.unlink(missing_ok=True))[0]
                cands = len(out.split())
                print(f"{n:>8} {seed:>4} {warm:>6.0f}ms {cold:>6.0f}ms {slow:>6.0f}ms "
                      f"{warm / help_cpu:>9.2f} {cands:>6}", flush=True)
                for f in cache.glob("*.keys"):
                    f.unlink()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
