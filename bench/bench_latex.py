"""Per-call cost of LaTeX to text (``to_text``) and of the search fold, before/after.

    python bench/bench_latex.py [--ref REV] [--runs 5] [--n 10000]

Values: every title, author, editor, journal and booktitle of the real corpus (the
.bib files bench/corpus.py fetches, when present under bench/out/corpus) and of a
bench/gen_library.py library of N entries. "before" is ``src/pubcli/latex.py`` at git
revision REV (default: b83817a, the last one before the fast path), loaded as a module
of its own; "after" is the working tree's. Caches are bypassed (``__wrapped__``) so each
call is a first call. Prints, per set, the median over runs of the mean cost per call
(microseconds), the after/before ratio, and the search fold (``fold(to_text(v))`` before,
``search_fold(v)`` after) the same way. Writes bench/out/latex.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
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
    src = subprocess.run(["git", "show", f"{rev}:src/pubcli/latex.py"], cwd=ROOT, check=True,
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref", default="b83817a")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--n", type=int, default=10000)
    args = ap.parse_args()

    sys.path.insert(0, str(HERE))
    from gen_library import ensure_library

    from pubcli import latex as new

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
    (OUT / "latex.json").write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
