"""Wall time of `pubcli add` (one entry) and `pubcli tag` (1,000 entries) on a big library.

    python bench/bench_add_tag.py [--entries 100000] [--repeat 5] [--out bench/out]
    python bench/bench_add_tag.py --series 10000 100000 --seeds 1 2 3 --dups 0.05 \
        [--baseline OTHER_TREE] [--out bench/out]

``--series``: for each size and seed (bench/gen_library.py N OUT --seed S --dups D),
three real adds one after another on a fresh copy with an empty cache (cold: the
weights are estimated; warm, warm2: each on the file the add before wrote, as a user
adding papers one by one), then on the file they left ``tag`` of 1,000 keys spread
over the file (``--add AREA --new``) and ``edit KEY --set note=...`` of one entry in
the middle, CPU time of each whole process, with this tree and the ``--baseline``
tree (a checkout of main) in the same rounds; medians over the seeds and the
same-round ratios (``--no-edits``: the adds only).

Generates the library once with bench/gen_library.py (kept in --out), then for
each repeat works on a fresh copy and runs the real command line in a
subprocess (interpreter start-up included), timing:

* add, cold: no parse cache for the file (a new, empty PUBCLI_CACHE_DIR);
* add, warm: the same again on the file the cold add just wrote (the store
  writes its parse cache after each save, so this load is a cache hit);
* tag 1,000 keys spread over the whole file (every Nth entry), cold and warm,
  with ``--add AREA`` (each of the 1,000 entries' text is rewritten).

Medians (and min/max) of wall time and of CPU time (user + system of the
child process: other work on a busy machine inflates wall time, not CPU time)
go to stdout and to OUT/bench_add_tag.json. Another in-process run breaks the
warm add and tag down into phases (load, plan, apply, save; wall and CPU) so
a slow phase can be found. Target: under 3 s each on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AREA = "Computer vision"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def pubcli(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run pubcli; (wall seconds, CPU seconds of the process)."""
    cpu0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pubcli", *args], env=env,
                          capture_output=True, text=True)
    elapsed, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if proc.returncode != 0:
        raise SystemExit(f"pubcli {' '.join(args[:6])}... failed ({proc.returncode}):\n"
                         f"{proc.stderr}")
    return elapsed, cpu


def generate(n: int, out: Path) -> Path:
    path = out / f"library-{n}.bib"
    if not path.exists():
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen_library.py"), str(n),
                        str(path)], check=True)
    return path


def stats(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3),
            "max": round(max(values), 3), "runs": len(values)}


def add_args(lib: Path, i: int) -> list[str]:
    return ["add", "--type", "inproceedings", "--title",
            f"Benchmarking Quixotic Zebras Number {i} Across Frozen Lakes",
            "--author", "Zed Quill", "--author", "Olatunji Ruwase", "--year", "2025",
            "--venue", "BenchConf 2025", "--no-interactive", "-l", str(lib)]


def tag_keys(n: int, count: int = 1000) -> list[str]:
    step = max(1, n // count)
    return [f"gen{i}" for i in range(0, n, step)][:count]


def run_cli(source: Path, n: int, repeat: int) -> dict[str, dict[str, dict[str, float]]]:
    times: dict[str, list[tuple[float, float]]] = {
        k: [] for k in ("add_cold", "add_warm", "tag_cold", "tag_warm")}
    keys = tag_keys(n)
    for r in range(repeat):
        with tempfile.TemporaryDirectory(prefix="pubcli-bench-") as tmp:
            env = dict(os.environ, PUBCLI_CACHE_DIR=str(Path(tmp) / "cache"),
                       PYTHONPATH=str(ROOT / "src"))
            env.pop("PUBCLI_NO_CACHE", None)
            lib = Path(tmp) / "library.bib"
            shutil.copy(source, lib)
            times["add_cold"].append(pubcli(add_args(lib, 2 * r), env))
            times["add_warm"].append(pubcli(add_args(lib, 2 * r + 1), env))
            shutil.copy(source, lib)
            shutil.rmtree(Path(tmp) / "cache", ignore_errors=True)
            times["tag_cold"].append(pubcli(["tag", *keys, "--add", AREA, "--new", "-l",
                                             str(lib)], env))
            times["tag_warm"].append(pubcli(["tag", *keys, "--remove", AREA, "-l", str(lib)],
                                            env))
            print(f"  run {r + 1}/{repeat}: " + ", ".join(
                f"{k} {v[-1][0]:.2f}s (cpu {v[-1][1]:.2f}s)" for k, v in times.items()),
                flush=True)
    return {k: {"wall": stats([w for w, _ in v]), "cpu": stats([c for _, c in v])}
            for k, v in times.items()}


def phases(source: Path, n: int) -> dict[str, dict[str, float]]:
    """One warm add and one warm tag, in process, split into phases: wall and CPU
    seconds of each (the plan is the core function the command calls)."""
    sys.path.insert(0, str(ROOT / "src"))
    from pubcli.usecases import areas, adding as entries
    from pubcli.usecases import newentry
    from pubcli.local import config
    from pubcli import store

    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="pubcli-bench-") as tmp:
        os.environ["PUBCLI_CACHE_DIR"] = str(Path(tmp) / "cache")
        lib_path = Path(tmp) / "library.bib"
        shutil.copy(source, lib_path)
        store.save(store.load(lib_path), lib_path)  # writes the parse cache
        cfg = config.load_config(lib_path)

        def clock(name, fn):
            c0, t0 = time.process_time(), time.perf_counter()
            value = fn()
            out[name] = {"wall": round(time.perf_counter() - t0, 3),
                         "cpu": round(time.process_time() - c0, 3)}
            return value

        lib = clock("add.load", lambda: store.load(lib_path))
        opts = newentry.EntryOptions(
            type="inproceedings", title="Benchmarking Quixotic Zebras Across Frozen Lakes",
            authors=["Zed Quill"], year="2025", venue="BenchConf 2025")
        plan = clock("add.plan", lambda: entries.plan_add(lib.records, opts, cfg))
        clock("add.apply", lambda: [lib.add(rec) for rec in plan.records])
        clock("add.save", lambda: store.save(lib))

        lib = clock("tag.load", lambda: store.load(lib_path))
        keys = tag_keys(n)
        plan = clock("tag.plan_1000", lambda: areas.plan_tag(lib.records, cfg, keys=keys,
                                                             add=[AREA], allow_new=True))
        clock("tag.replace_1000",
              lambda: [lib.replace(old, new) for old, new in plan.changes])
        clock("tag.save", lambda: store.save(lib))
    return out


def _compiled(tree: Path) -> None:
    import compileall

    compileall.compile_dir(tree / "src", quiet=1)


def series(sizes: list[int], seeds: list[int], dups: float, baseline: Path | None,
           out: Path, edits: bool = True) -> dict:
    """Successive real adds (cold, warm, warm2), then a tag and an edit, per size and
    seed, per tree."""
    trees = {"this": ROOT, **({"baseline": baseline} if baseline else {})}
    for tree in trees.values():
        _compiled(tree)
    result: dict = {}
    for n in sizes:
        samples: dict[str, dict[str, list[float]]] = {t: {} for t in trees}
        for seed in seeds:
            source = out / f"library-{n}-s{seed}-d{dups}.bib"
            if not source.exists():
                subprocess.run([sys.executable, str(ROOT / "bench" / "gen_library.py"),
                                str(n), str(source), "--seed", str(seed), "--dups",
                                str(dups)], check=True, capture_output=True)
            for name, tree in trees.items():
                with tempfile.TemporaryDirectory(prefix="pubcli-bench-") as tmp:
                    env = dict(os.environ, PUBCLI_CACHE_DIR=str(Path(tmp) / "cache"),
                               PYTHONPATH=str(tree / "src"))
                    for k in ("PUBCLI_NO_CACHE", "PYTHONDONTWRITEBYTECODE"):
                        env.pop(k, None)
                    lib = Path(tmp) / "library.bib"
                    shutil.copy(source, lib)
                    for i, phase in enumerate(("cold", "warm", "warm2")):
                        _, cpu = pubcli(add_args(lib, seed * 10 + i), env)
                        samples[name].setdefault(phase, []).append(cpu)
                    if edits:
                        _, cpu = pubcli(["tag", *tag_keys(n), "--add", AREA, "--new", "-l",
                                         str(lib)], env)
                        samples[name].setdefault("tag1000", []).append(cpu)
                        _, cpu = pubcli(["edit", f"gen{n // 2}", "--set",
                                         f"note={{Seen {seed}}}", "-l", str(lib)], env)
                        samples[name].setdefault("edit", []).append(cpu)
            print(f"  {n} seed {seed}: " + "; ".join(
                f"{t} " + " ".join(f"{p} {v[-1]:.2f}" for p, v in samples[t].items())
                for t in trees), flush=True)
        result[str(n)] = {t: {p: stats(v) for p, v in ph.items()} for t, ph in samples.items()}
        if baseline:
            result[str(n)]["ratio"] = {
                p: round(statistics.median(a / b for a, b in zip(
                    samples["this"][p], samples["baseline"][p], strict=True)), 3)
                for p in samples["this"]}
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    ap.add_argument("--no-phases", action="store_true")
    ap.add_argument("--series", type=int, nargs="+", metavar="N")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--dups", type=float, default=0.05)
    ap.add_argument("--baseline", type=Path)
    ap.add_argument("--no-edits", action="store_true",
                    help="--series: the adds only (no tag, no edit)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.series:
        got = series(args.series, args.seeds, args.dups, args.baseline, args.out,
                     edits=not args.no_edits)
        for n, r in got.items():
            for t, ph in r.items():
                print(f"{n:>7} {t:9} " + "  ".join(
                    f"{p} {v if isinstance(v, float) else v['median']:.2f}"
                    for p, v in ph.items()))
        (args.out / "bench_add_series.json").write_text(json.dumps(got, indent=2) + "\n")
        return
    source = generate(args.entries, args.out)
    print(f"library: {source} ({source.stat().st_size / 1e6:.1f} MB, {args.entries} entries); "
          f"cpus: {os.cpu_count()}")
    result = {"entries": args.entries, "cpus": os.cpu_count(),
              "cli": run_cli(source, args.entries, args.repeat)}
    if not args.no_phases:
        result["phases_warm"] = phases(source, args.entries)
    for name, r in result["cli"].items():
        w, c = r["wall"], r["cpu"]
        flag = "ok" if w["median"] < 3.0 else "OVER 3 s"
        print(f"{name:9} wall median {w['median']:.2f}s (min {w['min']:.2f}, max "
              f"{w['max']:.2f}); cpu median {c['median']:.2f}s  {flag}")
    if "phases_warm" in result:
        print("phases (warm, in process; wall/cpu): " + ", ".join(
            f"{k} {v['wall']:.2f}/{v['cpu']:.2f}s" for k, v in result["phases_warm"].items()))
    (args.out / "bench_add_tag.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
