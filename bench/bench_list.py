"""Benchmark `pubcli --help` and `pubcli list --by year` (issue: store and list).

    python bench/bench_list.py [--sizes 1000,10000,100000] [--runs 5]
    python bench/bench_list.py --ratio [--baseline SRC] [--seeds 1,2,3] [--runs 3] [--n 100000]
                               [--only "list --by year,list --format json"]

Generates synthetic libraries with bench/gen_library.py (macros, LaTeX, long author
lists) under bench/out/, then times whole `pubcli` processes, to a pipe and to a
terminal (a pseudo-terminal), cold (empty parse cache) and warm (cache filled by a
previous run). Prints medians and writes bench/out/list.json.

``--ratio`` (issue 22): CPU time (user + system, the child's own ``wait4`` figures) and
peak RSS of whole processes, for each seed a library of ``--n`` entries with 5%
near-duplicates: a bare ``bibtexparser.parse_file`` as the yardstick, and warm listings
(``--by year``, ``--format json/csl-json/line/csv/keys``, ``--by area``, and ``--by year`` with an
owner to highlight) of this tree (B) and, with ``--baseline SRC`` (a tree whose SRC or
SRC/src holds the pubcli package), of the baseline (A), run in the order A B
bibtexparser, A B bibtexparser... so that all see the same machine load. Prints medians
over runs and seeds, the ratios B/A and each listing's ratio to bibtexparser measured in
the same rounds; writes bench/out/list-ratio.json. Bytecode is written (a user's
installed pubcli has it): PYTHONDONTWRITEBYTECODE is dropped from the children's
environment.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
ROOT = HERE.parent
PUBCLI = [sys.executable, "-m", "pubcli"]


def ensure_library(n: int) -> Path:
    sys.path.insert(0, str(HERE))
    from gen_library import ensure_library as generate

    return generate(n, OUT)


def run_pipe(args: list[str], env: dict) -> float:
    t = time.perf_counter()
    p = subprocess.run(args, env=env, capture_output=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"{args} failed: {p.stderr.decode()[:500]}")
    return dt


def run_tty(args: list[str], env: dict) -> float:
    master, slave = pty.openpty()
    env = {**env, "COLUMNS": "120", "LINES": "50", "TERM": "xterm-256color"}
    t = time.perf_counter()
    p = subprocess.Popen(args, env=env, stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)

    def drain():
        while True:
            try:
                if not os.read(master, 65536):
                    break
            except OSError:
                break

    th = threading.Thread(target=drain)
    th.start()
    p.wait()
    dt = time.perf_counter() - t
    th.join()
    os.close(master)
    if p.returncode != 0:
        raise SystemExit(f"{args} failed on a tty")
    return dt


def median_of(fn, runs: int) -> float:
    return statistics.median(fn() for _ in range(runs))


def cpu_run(args: list[str], env: dict, cwd: Path | None = None) -> tuple[float, float]:
    """(CPU seconds, peak RSS MiB) of one whole process, its output thrown away."""
    proc = subprocess.Popen(args, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(args[:8])} failed: {err[-800:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


LISTINGS = {  # name -> pubcli arguments after "list"; "owner" runs beside a pubcli.toml
    "list --by year": ["--by", "year"],
    "list --format json": ["--format", "json"],
    "list --format csl-json": ["--format", "csl-json"],
    "list --format line": ["--format", "line"],
    "list --format csv": ["--format", "csv"],
    "list --format keys": ["--format", "keys"],
    "list --by area": ["--by", "area"],
    "list --by year (owner)": ["--by", "year"],
}


def ratio_main(args: argparse.Namespace) -> None:
    import shutil

    listings = LISTINGS if not args.only else \
        {name: LISTINGS[name] for name in (n.strip() for n in args.only.split(","))}
    import procs

    sides = procs.sides(ROOT / "src", args.baseline)
    env0 = procs.child_env()
    env0["NO_COLOR"] = "1"
    cpu: dict[str, dict[str, list[float]]] = {}
    rss: dict[str, dict[str, list[float]]] = {}
    ratios: dict[str, dict[str, list[float]]] = {}  # per round: listing / bibtexparser

    def note(name: str, side: str, sample: tuple[float, float]) -> None:
        cpu.setdefault(name, {}).setdefault(side, []).append(sample[0])
        rss.setdefault(name, {}).setdefault(side, []).append(sample[1])

    with tempfile.TemporaryDirectory(prefix="pubcli-list-ratio-") as tmp:
        for seed in [int(x) for x in args.seeds.split(",")]:
            gen = Path(tmp) / f"gen-{seed}.bib"
            subprocess.run([sys.executable, str(HERE / "gen_library.py"), str(args.n), str(gen),
                            "--seed", str(seed), "--dups", "0.05", "--truth",
                            str(Path(tmp) / f"truth-{seed}.json")], check=True)
            envs, libs = {}, {}
            for side, src in sides.items():
                for where in ("plain", "owner"):
                    folder = Path(tmp) / f"{side}-{seed}" / where / "lib"
                    folder.mkdir(parents=True)
                    shutil.copy(gen, folder / "library.bib")
                    libs[side, where] = folder / "library.bib"
                    if where == "owner":
                        (folder / "pubcli.toml").write_text('owner = "Olatunji Ruwase"\n')
                envs[side] = {**env0, "PYTHONPATH": str(src),
                              "PUBCLI_CACHE_DIR": str(Path(tmp) / f"cache-{side}-{seed}")}
                for where in ("plain", "owner"):  # cold: fills the caches
                    lib = libs[side, where]
                    note("list --by year cold", side, cpu_run(
                        PUBCLI + ["list", "--by", "year", "-l", str(lib)], envs[side]))
            bare = [sys.executable, "-c", "import sys, bibtexparser; "
                    "bibtexparser.parse_file(sys.argv[1])", str(gen)]
            for _ in range(args.runs):
                round_cpu: dict[tuple[str, str], float] = {}
                for name, extra in listings.items():
                    where = "owner" if "owner" in name else "plain"
                    for side in sides:
                        sample = cpu_run(PUBCLI + ["list", *extra, "-l",
                                                   str(libs[side, where])], envs[side])
                        note(name + " warm", side, sample)
                        round_cpu[name, side] = sample[0]
                sample = cpu_run(bare, {**env0, "PYTHONPATH": ""})
                note("bibtexparser.parse_file", "-", sample)
                for (name, side), value in round_cpu.items():
                    ratios.setdefault(name + " warm", {}).setdefault(side, []).append(
                        value / sample[0])
                print(f"seed {seed}: bibtexparser {sample[0]:.2f} s; " + "; ".join(
                    f"{name} {side} {value:.2f} s ({value / sample[0]:.3f}x)"
                    for (name, side), value in round_cpu.items()), file=sys.stderr, flush=True)
            print(f"seed {seed} done", file=sys.stderr, flush=True)

    med = statistics.median
    out: dict[str, dict] = {}
    print(f"{args.n} entries, seeds {args.seeds}, {args.runs} runs each: medians of CPU "
          "seconds (user+sys) and of peak RSS")
    for name in cpu:
        row = {side: {"cpu_s": round(med(v), 3), "peak_mib": round(med(rss[name][side]), 1),
                      "runs": len(v)} for side, v in cpu[name].items()}
        line = f"{name:34}"
        for side, r in row.items():
            line += f"  {side}: {r['cpu_s']:7.3f} s {r['peak_mib']:6.0f} MiB"
        if "A" in row and "B" in row:
            row["B/A"] = round(row["B"]["cpu_s"] / row["A"]["cpu_s"], 3)
            line += f"  B/A {row['B/A']:.2f}"
        for side, values in ratios.get(name, {}).items():
            row[side]["x_bibtexparser"] = round(med(values), 3)
            line += f"  {side}: {med(values):.3f}x bibtexparser"
        out[name] = row
        print(line, flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "list-ratio.json").write_text(json.dumps(out, indent=2) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ratio", action="store_true", help="CPU and memory against bibtexparser")
    ap.add_argument("--baseline", type=Path, help="--ratio: source tree to compare against (A)")
    ap.add_argument("--seeds", default="1,2,3", help="--ratio: generator seeds")
    ap.add_argument("--n", type=int, default=100_000, help="--ratio: entries per library")
    ap.add_argument("--only", help="--ratio: the listings to run, comma-separated names "
                                   "(default: all)")
    args = ap.parse_args()
    if args.ratio:
        ratio_main(args)
        return
    base_env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    base_env.pop("NO_COLOR", None)
    results: dict[str, float] = {}

    results["help"] = median_of(lambda: run_pipe(PUBCLI + ["--help"], base_env), args.runs * 3)
    shipped = ROOT / "data" / "library.bib"
    results["shipped list (pipe)"] = median_of(
        lambda: run_pipe(PUBCLI + ["list", "--by", "year", "-l", str(shipped)], base_env),
        args.runs * 2)
    results["shipped list (tty)"] = median_of(
        lambda: run_tty(PUBCLI + ["list", "--by", "year", "-l", str(shipped)], base_env),
        args.runs * 2)

    for n in [int(s) for s in args.sizes.split(",")]:
        lib = ensure_library(n)
        cmd = PUBCLI + ["list", "--by", "year", "-l", str(lib)]
        runs = max(3, args.runs if n < 100000 else 3)
        for where, runner in (("pipe", run_pipe), ("tty", run_tty)):
            def cold() -> float:
                with tempfile.TemporaryDirectory() as cache:
                    return runner(cmd, {**base_env, "PUBCLI_CACHE_DIR": cache})

            results[f"{n} list cold ({where})"] = median_of(cold, runs)
            with tempfile.TemporaryDirectory() as cache:
                env = {**base_env, "PUBCLI_CACHE_DIR": cache}
                runner(cmd, env)  # fill the cache
                results[f"{n} list warm ({where})"] = median_of(lambda: runner(cmd, env), runs)
        print(f"done {n}", file=sys.stderr)

    width = max(len(k) for k in results)
    for k, v in results.items():
        print(f"{k:<{width}}  {v * 1000:8.0f} ms")
    OUT.mkdir(exist_ok=True)
    (OUT / "list.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
