"""Benchmark `pubcli export html|markdown` on a 10k-entry library.

    python bench/bench_export.py [--size 10000] [--runs 5] [--style apa] [--style-runs 1]

Aims (issues 13, 15): html under 1 s and 20 MB (under 2 KB per entry); with
--style, a re-run (formatted references cached) under 5 s.

Generates the library with bench/gen_library.py under bench/out/ if missing, then
times whole `pubcli export FORMAT -o bench/out/export-N.FORMAT` processes, cold
(empty caches) and warm (caches filled by a previous run). Wall time is noisy
on a shared 2-core machine, so the child's CPU time (user + sys) is reported too.
An in-process run splits the time into load / style step / template rendering.
With --style (empty string to skip), `export html --style S` is timed cold (no
formatted references cached: pandoc formats every year; --style-runs runs)
and warm (--runs runs). Prints medians and writes bench/out/export.json.
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
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
PUBCLI = [sys.executable, "-m", "pubcli"]
SUFFIX = {"html": "html", "markdown": "md"}


def ensure_library(n: int) -> Path:
    sys.path.insert(0, str(HERE))
    from gen_library import ensure_library as generate

    return generate(n, OUT)


def timed(args: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds, child CPU seconds) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def in_process(path: Path, fmt: str) -> dict[str, float]:
    from pubcli.local import config
    from pubcli import store
    from pubcli.exporters import build_page, get

    t0 = time.perf_counter()
    lib = store.load(path)
    t1 = time.perf_counter()
    cfg = config.load_config(path)
    page = build_page(lib.records, source_text=lambda r: store.source_text(lib, r),
                      owner=cfg.owner or "Olatunji Ruwase", role=cfg.role,
                      area_order=cfg.areas)
    t2 = time.perf_counter()
    text = get(fmt).render(page)
    t3 = time.perf_counter()
    return {"load": t1 - t0, "style": t2 - t1, "render": t3 - t2, "mb": len(text) / 1e6}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--style", default="apa", help="citation style to time ('' to skip)")
    ap.add_argument("--style-runs", type=int, default=1,
                    help="cold styled runs (each formats every entry: about a minute at 10k)")
    args = ap.parse_args()
    lib = ensure_library(args.size)
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PUBCLI_CACHE_DIR": cache}
        for fmt in ("html", "markdown"):
            target = OUT / f"export-{args.size}.{SUFFIX[fmt]}"
            cmd = PUBCLI + ["export", fmt, "-l", str(lib), "-o", str(target)]
            cold = []
            for _ in range(args.runs):
                for f in Path(cache).iterdir():
                    f.unlink()
                cold.append(timed(cmd, env))
            timed(cmd, env)  # fill the cache
            warm = [timed(cmd, env) for _ in range(args.runs)]
            os.environ["PUBCLI_CACHE_DIR"] = cache
            parts = [in_process(lib, fmt) for _ in range(3)]
            results[fmt] = {
                "cold_wall": statistics.median(w for w, _ in cold),
                "cold_cpu": statistics.median(c for _, c in cold),
                "warm_wall": statistics.median(w for w, _ in warm),
                "warm_cpu": statistics.median(c for _, c in warm),
                "bytes_per_entry": target.stat().st_size / args.size,
                **{k: statistics.median(p[k] for p in parts) for k in parts[0]},
            }
        if args.style:
            target = OUT / f"export-{args.size}-{args.style}.html"
            cmd = PUBCLI + ["export", "html", "--style", args.style, "-l", str(lib),
                            "-o", str(target)]
            cold = []
            for _ in range(args.style_runs):
                for f in Path(cache).iterdir():
                    f.unlink()
                cold.append(timed(cmd, env))
            warm = [timed(cmd, env) for _ in range(args.runs)]
            results[f"html --style {args.style}"] = {
                "cold_wall": statistics.median(w for w, _ in cold),
                "cold_cpu": statistics.median(c for _, c in cold),
                "warm_wall": statistics.median(w for w, _ in warm),
                "warm_cpu": statistics.median(c for _, c in warm),
                "bytes_per_entry": target.stat().st_size / args.size,
            }
    print(f"pubcli export, {args.size} entries, median of {args.runs} runs (seconds):")
    for fmt, r in results.items():
        line = (f"  {fmt:8}  cold {r['cold_wall']:.2f} wall / {r['cold_cpu']:.2f} cpu   "
                f"warm {r['warm_wall']:.2f} wall / {r['warm_cpu']:.2f} cpu   "
                f"{r['bytes_per_entry']:.0f} B/entry")
        if "load" in r:
            line += (f"   [in-process: load {r['load']:.2f}, style {r['style']:.2f}, "
                     f"render {r['render']:.2f}; {r['mb']:.1f} MB]")
        print(line)
    (OUT / "export.json").write_text(json.dumps({"size": args.size, "runs": args.runs,
                                                 "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
