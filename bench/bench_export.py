"""Benchmark `pubcli export html|markdown` on a 10k-entry library.

    python bench/bench_export.py [--size 10000] [--runs 5] [--style apa] [--style-runs 1]
    python bench/bench_export.py --memory [--baseline SRC] [--sizes 10000,100000]
                                 [--seeds 1,2,3] [--runs 1] [--warm-only]

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

``--memory`` (issue 22: ``export html`` and ``export csl-json`` of 100k entries under
600 MiB): peak RSS and CPU time (user + system: the child's own ``wait4`` figures) of
whole processes, for each size and seed a library from ``gen_library.py N --seed S
--dups 0.05``: ``export html`` cold (its first run fills the caches) and warm, and
``export csl-json`` warm, of this tree (B) and, with ``--baseline SRC`` (a tree whose
SRC or SRC/src holds the pubcli package), of the baseline (A), interleaved A B A B so
that both see the same machine load; A's and B's outputs are compared byte for byte.
Prints medians over seeds and runs, B/A, and writes bench/out/export-memory-SIZES.json.
Bytecode is written, as for an installed pubcli (PYTHONDONTWRITEBYTECODE is dropped).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import procs
from procs import timed

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
PUBCLI = [sys.executable, "-m", "pubcli"]
SUFFIX = {"html": "html", "markdown": "md"}


def ensure_library(n: int) -> Path:
    sys.path.insert(0, str(HERE))
    from gen_library import ensure_library as generate

    return generate(n, OUT)


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


def cpu_run(args: list[str], env: dict) -> tuple[float, float]:
    """(CPU seconds, peak RSS MiB) of one whole process (its own wait4 figures)."""
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(args[:8])} failed: {err[-800:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _digest(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def memory_main(args: argparse.Namespace) -> None:
    sides = procs.sides(HERE.parent / "src", args.baseline)
    env0 = procs.child_env()
    samples: dict[tuple[int, str, str], list[tuple[float, float]]] = {}
    differ: list[str] = []
    with tempfile.TemporaryDirectory(prefix="pubcli-export-memory-") as tmp:
        for n in [int(x) for x in args.sizes.split(",")]:
            for seed in [int(x) for x in args.seeds.split(",")]:
                lib = Path(tmp) / f"gen-{n}-{seed}.bib"
                subprocess.run([sys.executable, str(HERE / "gen_library.py"), str(n), str(lib),
                                "--seed", str(seed), "--dups", "0.05"], check=True,
                               stdout=subprocess.DEVNULL)
                envs = {side: {**env0, "PYTHONPATH": str(src),
                               "PUBCLI_CACHE_DIR": str(Path(tmp) / f"cache-{side}-{n}-{seed}")}
                        for side, src in sides.items()}

                def cmd(fmt: str, side: str) -> list[str]:
                    suffix = "json" if fmt == "csl-json" else fmt
                    return PUBCLI + ["export", fmt, "-l", str(lib), "-o",
                                     str(Path(tmp) / f"out-{side}.{suffix}")]
                if args.warm_only:  # the caches filled by a cheaper first run
                    for side in sides:
                        cpu_run(PUBCLI + ["list", "--format", "keys", "-l", str(lib)],
                                envs[side])
                runs = [] if args.warm_only else [("html cold", "html")]
                runs += [("html warm", "html"), ("csl-json warm", "csl-json")] * args.runs
                for name, fmt in runs:
                    for side in sides:
                        got = cpu_run(cmd(fmt, side), envs[side])
                        samples.setdefault((n, name, side), []).append(got)
                        print(f"{n} seed {seed} {name} {side}: {got[0]:.2f} s CPU, "
                              f"{got[1]:.0f} MiB", file=sys.stderr, flush=True)
                    if len(sides) == 2:
                        suffix = "json" if fmt == "csl-json" else fmt
                        a, b = (_digest(Path(tmp) / f"out-{s}.{suffix}") for s in ("A", "B"))
                        if a != b:
                            differ.append(f"{n} seed {seed} {fmt}")
                for f in Path(tmp).glob("out-*"):
                    f.unlink()
                lib.unlink()
    med = statistics.median
    out: dict[str, dict] = {}
    print(f"export, seeds {args.seeds}: medians of CPU seconds (user+sys) and peak RSS")
    for (n, name, side), got in samples.items():
        row = out.setdefault(f"{n} {name}", {})
        row[side] = {"cpu_s": round(med(c for c, _ in got), 3),
                     "peak_mib": round(med(m for _, m in got), 1), "runs": len(got)}
    for name, row in out.items():
        line = f"{name:24}"
        for side in sides:
            line += f"  {side}: {row[side]['cpu_s']:7.2f} s {row[side]['peak_mib']:6.0f} MiB"
        if "A" in row:
            row["B/A cpu"] = round(row["B"]["cpu_s"] / row["A"]["cpu_s"], 3)
            row["B/A peak"] = round(row["B"]["peak_mib"] / row["A"]["peak_mib"], 3)
            line += f"  B/A cpu {row['B/A cpu']:.2f} peak {row['B/A peak']:.2f}"
        print(line, flush=True)
    if len(sides) == 2:
        print("A and B wrote the same bytes" if not differ else
              f"A and B differ: {', '.join(differ)}")
    OUT.mkdir(exist_ok=True)
    (OUT / f"export-memory-{args.sizes.replace(',', '-')}.json").write_text(json.dumps(
        {"seeds": args.seeds, "runs": args.runs, "results": out, "outputs_differ": differ},
        indent=2) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memory", action="store_true",
                    help="peak RSS and CPU of export html / csl-json (issue 22)")
    ap.add_argument("--baseline", type=Path, help="--memory: source tree to compare against (A)")
    ap.add_argument("--sizes", default="10000,100000", help="--memory: library sizes")
    ap.add_argument("--seeds", default="1,2,3", help="--memory: generator seeds")
    ap.add_argument("--warm-only", action="store_true",
                    help="--memory: no cold html run (the caches filled by 'list' instead)")
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--style", default="apa", help="citation style to time ('' to skip)")
    ap.add_argument("--style-runs", type=int, default=1,
                    help="cold styled runs (each formats every entry: about a minute at 10k)")
    args = ap.parse_args()
    if args.memory:
        memory_main(args)
        return
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
