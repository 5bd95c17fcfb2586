"""The aims of the performance issue, as whole processes: wall time and peak memory.

    python bench/bench_scale.py [--runs 5] [--baseline DIR] [--only NAME,NAME...]

Each figure is the median of ``--runs`` runs of a real ``python -m pubcli ...``
process (interpreter start-up included); peak memory is the child's own maximum
resident set (``wait4``). In the same run, as the yardstick the issue measures
against, a bare ``bibtexparser.parse_file`` of the 100k library (a whole process
too), and every figure is also given as a ratio to it.

``--baseline DIR`` is another source tree (e.g. ``git archive OLD src | tar -x -C
DIR``; DIR or DIR/src must hold the pubcli package): each measurement then runs A
(the baseline) and B (this tree) in
alternating pairs, A B A B ..., each with its own cache folder, so that both see
the same machine load; the ratio B/A of the medians is printed beside them.

"warm" means the parse cache holds the file: each warm figure is taken after a
previous process read (or wrote) the same bytes at the same path. Libraries come
from bench/gen_library.py (bench/out/lib-N.bib).
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
from collections.abc import Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SEARCH = "quantum serverless"  # about 1.5% of the generated entries
SEARCH_YEARS = "1990..2016"    # narrows the search to 1,095 of 100k
PY = [sys.executable]
PUBCLI = PY + ["-m", "pubcli"]


def run(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(args[:8])} failed ({code}): {err[-800:]}")
    return wall, usage.ru_maxrss / 1024


def summary(samples: list[tuple[float, float]]) -> dict[str, float]:
    walls = [w for w, _ in samples]
    return {"median_s": round(statistics.median(walls), 3), "min_s": round(min(walls), 3),
            "max_s": round(max(walls), 3), "peak_mib": round(max(m for _, m in samples), 1),
            "runs": len(samples)}


class Side:
    """One source tree with its own temp folder (library copies, cache)."""

    def __init__(self, name: str, src: Path, tmp: Path) -> None:
        self.name = name
        self.tmp = tmp / name
        self.tmp.mkdir()
        self.env = dict(os.environ, PYTHONPATH=str(src.resolve()),
                        PUBCLI_CACHE_DIR=str(self.tmp / "cache"), NO_COLOR="1")
        self.env.pop("PUBCLI_NO_CACHE", None)

    def lib(self, n: int) -> Path:
        return self.tmp / f"lib-{n}.bib"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline", type=Path, help="source tree to compare against (A)")
    ap.add_argument("--only", default="", help="comma-separated measurement names")
    ap.add_argument("--out", type=Path, default=HERE / "out" / "scale.json")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    from gen_library import ensure_library

    only = set(filter(None, args.only.split(",")))
    results: dict[str, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="pubcli-scale-") as tmp:
        sides = [Side("B", ROOT / "src", Path(tmp))]
        if args.baseline:
            base = args.baseline
            if (base / "src" / "pubcli").is_dir():  # the tree's root rather than its src
                base = base / "src"
            if not (base / "pubcli").is_dir():  # else A would silently import this tree
                raise SystemExit(f"--baseline {args.baseline}: no pubcli package there")
            sides.insert(0, Side("A", base, Path(tmp)))

        def measure(name: str, argv: Callable[[Side, int], list[str]],
                    before: Callable[[Side], None] | None = None, both: bool = True) -> None:
            if only and name not in only:
                return
            samples: dict[str, list[tuple[float, float]]] = {s.name: [] for s in sides}
            for k in range(args.runs):
                for side in (sides if both else sides[-1:]):
                    if before:
                        before(side)
                    samples[side.name].append(run(argv(side, k), side.env))
            results[name] = {s: summary(v) for s, v in samples.items() if v}
            line = f"{name:30}"
            for s, r in results[name].items():
                line += f"  {s}: {r['median_s']:7.3f} s ({r['min_s']:.3f}-{r['max_s']:.3f}) " \
                        f"{r['peak_mib']:6.0f} MiB"
            if len(results[name]) == 2:
                ratio = results[name]["B"]["median_s"] / results[name]["A"]["median_s"]
                results[name]["B/A"] = {"median": round(ratio, 3)}
                line += f"  B/A {ratio:.2f}"
            print(line, flush=True)

        measure("help", lambda s, k: PUBCLI + ["--help"])
        for n in (10_000, 100_000):
            src = ensure_library(n)
            for side in sides:
                shutil.copy(src, side.lib(n))
                run(PUBCLI + ["list", "--by", "year", "-l", str(side.lib(n))], side.env)

            def listing(s: Side, k: int, n: int = n) -> list[str]:
                return PUBCLI + ["list", "--by", "year", "-l", str(s.lib(n))]

            measure(f"list {n // 1000}k warm", listing)
        n = 100_000
        src = ensure_library(n)
        measure("bibtexparser.parse_file 100k",
                lambda s, k: PY + ["-c", "import sys, bibtexparser; "
                                         "bibtexparser.parse_file(sys.argv[1])", str(src)],
                both=False)
        measure("list 100k --search warm",
                lambda s, k: PUBCLI + ["list", "--search", SEARCH, "-l", str(s.lib(n))])
        # each add appends to the file the previous one wrote (and cached)
        measure("add 100k warm",
                lambda s, k: PUBCLI + ["add", "--type", "inproceedings", "--title",
                                       f"Benchmarking Quixotic Zebras Number {k} Across Frozen "
                                       "Lakes", "--author", "Zed Quill", "--year", "2025",
                                       "--venue", "BenchConf 2025", "--no-interactive",
                                       "-l", str(s.lib(n))])

        def no_cache(s: Side) -> None:
            shutil.rmtree(s.tmp / "cache", ignore_errors=True)

        measure("add 100k cold",
                lambda s, k: PUBCLI + ["add", "--type", "misc", "--title",
                                       f"Cold Benchmark Entry Number {k} About Frozen Lakes",
                                       "--author", "Zed Quill", "--year", "2025",
                                       "--no-interactive", "-l", str(s.lib(n))],
                before=no_cache)

        def pristine(s: Side) -> None:
            """The generated library again, read once so that it is in the cache."""
            shutil.copy(src, s.lib(n))
            run(PUBCLI + ["list", "--by", "year", "-l", str(s.lib(n))], s.env)

        measure("tag --search --all 100k warm",
                lambda s, k: PUBCLI + ["tag", "--search", SEARCH, "--year", SEARCH_YEARS,
                                       "--add", "Benchmark area", "--new", "--all",
                                       "-l", str(s.lib(n))],
                before=pristine)
    base = results.get("bibtexparser.parse_file 100k", {}).get("B", {}).get("median_s")
    if base:
        for name, r in results.items():
            if "100k" in name and not name.startswith("bibtexparser"):
                for s in ("A", "B"):
                    if s in r:
                        r[s]["x_bibtexparser"] = round(r[s]["median_s"] / base, 3)
                print(f"{name:30}  " + "  ".join(f"{s}: {r[s]['x_bibtexparser']:.3f}x "
                                                 "bibtexparser" for s in ("A", "B") if s in r))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
