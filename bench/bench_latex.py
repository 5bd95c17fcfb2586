"""Per-call cost of LaTeX to text (``to_text``) and of the search fold, before/after.

    python bench/bench_latex.py [--ref REV] [--runs 5] [--n 10000]
                                [--cli 10000,100000] [--pairs 5]

Values: every title, author, editor, journal and booktitle of the real corpus (the
.bib files bench/corpus.py fetches, when present under bench/out/corpus) and of a
bench/gen_library.py library of N entries. "before" is ``src/pubcli/text/latex.py`` at git
revision REV (default: b83817a, the last one before the fast path), loaded as a module
of its own; "after" is the working tree's. Caches are bypassed (``__wrapped__``) so each
call is a first call. Prints, per set, the median over runs of the mean cost per call
(microseconds), the after/before ratio, and the search fold (``fold(to_text(v))`` before,
``search_fold(v)`` after) the same way. Writes bench/out/latex.json.

With --cli SIZES, also times whole processes on generated libraries, warm parse cache:
``list --by year``, ``list --search learning --format keys`` and ``tag --search "deep
learning" --add Bench --new --all --dry-run``, in interleaved before/after pairs ("before"
runs this tree's src with latex.py taken from REV). Prints medians, the
median of the per-pair ratios and the peak RSS (MiB).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
FIELDS = ("title", "author", "editor", "journal", "booktitle")


def reference_module(rev: str):
    src = subprocess.run(["git", "show", f"{rev}:src/pubcli/text/latex.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    path = OUT / f"latex_{rev}.py"
    OUT.mkdir(exist_ok=True)
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(f"latex_{rev}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def values_of(paths: list[Path]) -> list[str]:
    from pubcli import store
    from pubcli.errors import PubcliError

    out = []
    for p in paths:
        try:
            lib = store.load(p, use_cache=False)
        except PubcliError:
            continue
        for r in lib.records:
            out += [r.fields[f] for f in FIELDS if r.fields.get(f)]
    return out


def per_call(fn, values: list[str], runs: int) -> float:
    """Median over runs of the mean microseconds per call."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        for v in values:
            fn(v)
        times.append((time.perf_counter() - t) / len(values) * 1e6)
    return statistics.median(times)


COMMANDS = {
    "list --by year": ["list", "--by", "year"],
    "list --search": ["list", "--search", "learning", "--format", "keys"],
    "tag --search -n": ["tag", "--search", "deep learning", "--add", "Bench", "--new", "--all",
                        "--dry-run"],
}


def before_tree(rev: str) -> Path:
    """This tree's src with latex.py as it was at ``rev`` (plus a ``search_fold`` written
    the old way, fold(to_text(v)), for today's grouping.py to import)."""
    dest = OUT / f"before-{rev}"
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(ROOT / "src", dest / "src")
    text = subprocess.run(["git", "show", f"{rev}:src/pubcli/text/latex.py"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    if "def search_fold" not in text:
        text += ("\n\ndef search_fold(raw: str) -> str:\n"
                 "    return fold(to_text(raw)) if raw else \"\"\n")
    (dest / "src" / "pubcli" / "latex.py").write_text(text)
    return dest / "src"


def cli_pairs(rev: str, sizes: list[int], pairs: int) -> dict:
    sys.path.insert(0, str(HERE))
    from gen_library import ensure_library

    old_src, new_src = before_tree(rev), ROOT / "src"
    for src in (old_src, new_src):  # byte-compiled, as an installed pubcli is
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True)
    cache = OUT / "latex-cache"
    out: dict = {}
    for n in sizes:
        lib = ensure_library(n, OUT)
        for label, args in COMMANDS.items():
            for src in (old_src, new_src):  # warm the parse cache
                timed(src, args, lib, cache)
            before, after, ratios, rss_b, rss_a = [], [], [], [], []
            for _ in range(pairs):
                b, mb = timed(old_src, args, lib, cache)
                a, ma = timed(new_src, args, lib, cache)
                before.append(b), after.append(a), ratios.append(a / b)
                rss_b.append(mb), rss_a.append(ma)
            row = {"before_s": round(statistics.median(before), 3),
                   "after_s": round(statistics.median(after), 3),
                   "ratio": round(statistics.median(ratios), 3),
                   "before_rss_mib": round(statistics.median(rss_b)),
                   "after_rss_mib": round(statistics.median(rss_a))}
            out[f"{label} @{n}"] = row
            print(f"{label:16s} n={n:<7d} before {row['before_s']:7.2f} s "
                  f"({row['before_rss_mib']} MiB)  after {row['after_s']:6.2f} s "
                  f"({row['after_rss_mib']} MiB)  after/before {row['ratio']:.3f}")
    return out


def timed(src: Path, args: list[str], lib: Path, cache: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one whole pubcli process."""
    env = {**os.environ, "PYTHONPATH": str(src), "PUBCLI_CACHE_DIR": str(cache)}
    t = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "pubcli", *args, "--library", str(lib)],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert p.stderr is not None
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"pubcli {' '.join(args)} failed ({code}): {err.decode()[-400:]}")
    return dt, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref", default="b83817a")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--cli", help="library sizes for whole-process pairs, e.g. 10000,100000")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--no-calls", action="store_true", help="skip the per-call figures")
    args = ap.parse_args()
    report = {}
    if not args.no_calls:
        report["calls"] = per_call_report(args)
    if args.cli:
        report["cli"] = cli_pairs(args.ref, [int(x) for x in args.cli.split(",")], args.pairs)
    (OUT / "latex.json").write_text(json.dumps(report, indent=2))


def per_call_report(args: argparse.Namespace) -> dict:

    sys.path.insert(0, str(HERE))
    from gen_library import ensure_library

    from pubcli.text import latex as new

    old = reference_module(args.ref)
    sets = {}
    corpus = sorted((OUT / "corpus" / "x").rglob("*.bib"))
    if corpus:
        sets["corpus"] = values_of(corpus)
    sets[f"gen{args.n}"] = values_of([ensure_library(args.n, OUT)])

    old_text, new_text = old.to_text.__wrapped__, new.to_text.__wrapped__
    old_fold, new_fold = old.fold.__wrapped__, new.fold.__wrapped__

    def old_search(v: str) -> str:
        return old_fold(old_text(v))

    def new_search(v: str) -> str:
        return new_fold(new_text(v)) if v else ""

    # first use: build pylatexenc's context once for each side, outside the timing
    old_text("\\'e"), new_text("\\ensuremath{x}")
    report = {}
    for name, values in sets.items():
        row = {"values": len(values),
               "with_backslash": sum("\\" in v for v in values)}
        for label, fn_old, fn_new in (("to_text", old_text, new_text),
                                      ("search_fold", old_search, new_search)):
            b = per_call(fn_old, values, args.runs)
            a = per_call(fn_new, values, args.runs)
            row[label] = {"before_us": round(b, 2), "after_us": round(a, 2),
                          "ratio": round(a / b, 3)}
        report[name] = row
        print(f"{name}: {row['values']} values ({row['with_backslash']} with a backslash)")
        for label in ("to_text", "search_fold"):
            r = row[label]
            print(f"  {label:12s} before {r['before_us']:8.2f} us/call   after "
                  f"{r['after_us']:7.2f} us/call   after/before {r['ratio']:.3f}")
    return report


if __name__ == "__main__":
    main()
