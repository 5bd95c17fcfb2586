"""CPU time of styled exports (pandoc's citeproc): cold, warm, one entry changed.

    python bench/bench_style_timing.py [--size 200 --size 10000] [--style apa ...]
                                       [--runs 3] [--seed 1 ...] [--src DIR]

Times whole `pubcli export html --style S` processes on libraries from
bench/gen_library.py (each size and seed): **cold** (an empty cache folder: the
library parsed and every reference formatted), **warm** (the cache filled) and
**one changed** (the cache filled, then one entry's title edited, an entry in
the middle of the file: the style's cache serves the others). CPU seconds are
those of the whole process and its pandoc children (RUSAGE_CHILDREN); medians
over --runs runs. Child processes run with byte-code caching on (the machine's
PYTHONDONTWRITEBYTECODE is unset for them), as a user's would.

A 10k cold run costs minutes of CPU: it is run once per size, seed and style
(to fill the cache the warm and changed runs copy) and reported as a single
figure; --cold-runs changes that. --src DIR times another checkout's src/ (a
"before" in the same run); given twice or more, the checkouts' runs are
interleaved. Aims (issue 20): 200 entries < 2 s cold, < 0.5 s
warm; 10k with one entry changed < 5 s. Writes bench/out/style-timing.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from procs import timed

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
STYLES = ["apa", "ieee", "acm", "chicago", "mla"]


def library(n: int, seed: int) -> Path:
    OUT.mkdir(exist_ok=True)
    path = OUT / f"styles-{n}-s{seed}.bib"
    if not path.exists():
        subprocess.run([sys.executable, str(HERE / "gen_library.py"), str(n), str(path),
                        "--seed", str(seed)], check=True)
    return path


def changed(text: str, run: int) -> str:
    """``text`` with the title of the entry in the middle of the file edited."""
    starts = [m.end() for m in re.finditer(r"(?m)^\s*title\s*=\s*\{", text)]
    at = starts[len(starts) // 2]
    return text[:at] + f"Changed{run} " + text[at:]


def environment(src: Path, cache: str) -> dict:
    env = dict(os.environ, PUBCLI_CACHE_DIR=cache, PYTHONPATH=str(src))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _cmd(base: Path, work: Path, style: str) -> list[str]:
    return [sys.executable, "-m", "pubcli", "export", "html", "--style", style,
            "-o", str(base / "page.html"), "-l", str(work)]


def measure(srcs: list[Path], lib: Path, style: str, runs: int, cold_runs: int) -> list[dict]:
    """Per src, its medians; the warm and changed runs of the srcs interleaved (run r
    of each src one after the other), so a busy machine weighs on all alike."""
    text = lib.read_text(encoding="utf-8")
    times: list[dict[str, list[tuple[float, float]]]] = [
        {"cold": [], "warm": [], "one_changed": []} for _ in srcs]
    with tempfile.TemporaryDirectory(prefix="pubcli-timing-") as tmp:
        base = Path(tmp)
        for r in range(max(cold_runs, 1)):
            for n, src in enumerate(srcs):
                cache = base / f"cold{n}-{r}"
                work = base / f"lib-cold{r}.bib"
                work.write_text(text, encoding="utf-8")
                times[n]["cold"].append(timed(_cmd(base, work, style),
                                              environment(src, str(cache))))
                if r == 0:
                    # the library's own parse cache is keyed on its path: keep one path
                    shutil.copytree(cache, base / f"filled{n}")
                shutil.rmtree(cache)
        work = base / "lib.bib"
        for r in range(runs):
            for n, src in enumerate(srcs):
                cache = base / f"run{n}-{r}"
                shutil.copytree(base / f"filled{n}", cache)
                work.write_text(text, encoding="utf-8")
                env = environment(src, str(cache))
                timed(_cmd(base, work, style), env)  # the parse cache for this path
                times[n]["warm"].append(timed(_cmd(base, work, style), env))
                work.write_text(changed(text, r), encoding="utf-8")
                times[n]["one_changed"].append(timed(_cmd(base, work, style), env))
                shutil.rmtree(cache)
    return [{k: {"cpu": round(statistics.median(c for _, c in v), 2),
                 "wall": round(statistics.median(w for w, _ in v), 2), "runs": len(v)}
             for k, v in t.items()} for t in times]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, action="append")
    ap.add_argument("--style", action="append", choices=STYLES)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cold-runs", type=int, default=None,
                    help="cold runs (default: --runs below 2,000 entries, else 1)")
    ap.add_argument("--seed", type=int, action="append")
    ap.add_argument("--src", type=Path, action="append",
                    help="the src/ folder of a pubcli to time (repeatable: each is timed, "
                         "their runs interleaved; default: this checkout's)")
    args = ap.parse_args()
    result: dict = {}
    for n in args.size or [200]:
        for seed in args.seed or [1]:
            lib = library(n, seed)
            for style in args.style or ["apa"]:
                cold_runs = args.cold_runs if args.cold_runs is not None else \
                    (args.runs if n < 2000 else 1)
                srcs = [s.resolve() for s in args.src or [ROOT / "src"]]
                for src, got in zip(srcs, measure(srcs, lib, style, args.runs, cold_runs),
                                    strict=True):
                    key = f"{style} n={n} seed={seed}" + (f" {src}" if len(srcs) > 1 else "")
                    result[key] = got
                    print(f"{key:26} " + "  ".join(
                        f"{k} {v['cpu']:6.2f} s cpu ({v['wall']:.2f} wall)"
                        for k, v in got.items()), flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "style-timing.json").write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
