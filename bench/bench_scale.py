"""The aims of the performance issue, as whole processes: wall time and peak memory.

    python bench/bench_scale.py [--runs 5] [--src DIR] [--only list10k,list100k,...]

Each figure is the median of ``--runs`` runs of a real ``python -m pubcli ...``
process (interpreter start-up included); peak memory is the child's own maximum
resident set (``wait4``), not the sum over children. In the same run, as the
yardstick the issue measures against, a bare ``bibtexparser.parse_file`` of the
100k library (whole process too). Libraries come from bench/gen_library.py
(bench/out/lib-N.bib). ``--src`` points PYTHONPATH at another source tree, to
measure the code before a change against the code after it on the same machine
in the same minutes (e.g. a ``git archive`` of an older commit).

"warm" means the parse cache holds the file: every warm figure is taken after a
previous process read (or wrote) the same bytes at the same path.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SEARCH = "quantum serverless"  # about 1% of the generated entries
SEARCH_YEARS = "1990..2016"    # narrows the search to about 1,000 of 100k


def run(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0,):
        raise SystemExit(f"{' '.join(args[:8])} failed ({proc.returncode}): {err[-800:]}")
    return wall, usage.ru_maxrss / 1024


def summary(samples: list[tuple[float, float]]) -> dict[str, float]:
    walls = [w for w, _ in samples]
    return {"median_s": round(statistics.median(walls), 3), "min_s": round(min(walls), 3),
            "max_s": round(max(walls), 3), "peak_mib": round(max(m for _, m in samples), 1),
            "runs": len(samples)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--src", type=Path, default=ROOT / "src")
    ap.add_argument("--only", default="")
    ap.add_argument("--out", type=Path, default=HERE / "out" / "scale.json")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    from gen_library import ensure_library

    only = set(filter(None, args.only.split(",")))
    want = (lambda name: not only or name in only)
    py = [sys.executable]
    pubcli = py + ["-m", "pubcli"]
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="pubcli-scale-") as tmp:
        tmpd = Path(tmp)
        env = dict(os.environ, PYTHONPATH=str(args.src.resolve()),
                   PUBCLI_CACHE_DIR=str(tmpd / "cache"), NO_COLOR="1")
        env.pop("PUBCLI_NO_CACHE", None)

        def measure(name: str, argv, before=None) -> None:
            if not want(name):
                return
            samples = []
            for k in range(args.runs):
                if before:
                    before()
                samples.append(run(argv(k) if callable(argv) else argv, env))
            results[name] = summary(samples)
            r = results[name]
            print(f"{name:34} {r['median_s']:7.3f} s  (min {r['min_s']:.3f}, max "
                  f"{r['max_s']:.3f})  peak {r['peak_mib']:6.1f} MiB", flush=True)

        measure("help", pubcli + ["--help"])
        for n in (10_000, 100_000):
            src = ensure_library(n)
            lib = tmpd / f"lib-{n}.bib"
            shutil.copy(src, lib)
            argv = pubcli + ["list", "--by", "year", "-l", str(lib)]
            run(argv, env)  # fill the cache
            tag = f"list{n // 1000}k"
            measure(f"{tag} warm", argv)
            if n == 100_000:
                measure("list100k --search warm", argv + ["--search", SEARCH])
                measure("bibtexparser.parse_file 100k",
                        py + ["-c", "import sys, bibtexparser; bibtexparser.parse_file(sys.argv[1])",
                              str(src)])
                # each add appends to the file the previous one wrote (and cached)
                measure("add 100k warm",
                        lambda k: pubcli + ["add", "--type", "inproceedings", "--title",
                                            f"Benchmarking Quixotic Zebras Number {k} Across "
                                            "Frozen Lakes", "--author", "Zed Quill", "--year",
                                            "2025", "--venue", "BenchConf 2025",
                                            "--no-interactive", "-l", str(lib)])
                shutil.copy(src, lib)
                run(argv, env)  # the pristine file is in the cache again
                measure("tag --search --all 100k warm",
                        pubcli + ["tag", "--search", SEARCH, "--year", SEARCH_YEARS, "--add",
                                  "Benchmark area", "--new", "--all", "-l", str(lib)],
                        before=lambda: _restore(src, lib, argv, env))
    if "bibtexparser.parse_file 100k" in results:
        base = results["bibtexparser.parse_file 100k"]["median_s"]
        for name in ("list100k warm", "list100k --search warm", "add 100k warm",
                     "tag --search --all 100k warm"):
            if name in results:
                results[name]["x_bibtexparser"] = round(results[name]["median_s"] / base, 3)
                print(f"{name:34} {results[name]['x_bibtexparser']:.3f}x bibtexparser parse")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")


def _restore(src: Path, lib: Path, warm: list[str], env: dict[str, str]) -> None:
    """The pristine library again, read once so that it is in the cache."""
    shutil.copy(src, lib)
    run(warm, env)


if __name__ == "__main__":
    main()
