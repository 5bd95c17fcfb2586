"""``pubcli fmt`` (issue 24): safety over TeX Live's bibliographies, speed against
bibtex-tidy, and what each tool changes and loses.

    python bench/bench_fmt.py [--cache bench/out/corpus] [--tidy /tmp/tidy/node_modules/.bin/bibtex-tidy]
                              [--sizes 10000] [--seeds 1,2,3] [--runs 5] [--no-corpus] [--no-speed]
                              [--json bench/out/bench_fmt.json] [--before /tmp/base/src]

* Safety (every .bib of the four Debian TeX Live packages, ``bench/corpus.py``), for the
  default form and for a form with every option on (alignment, quotes, no trailing comma,
  a field order, page dashes, bare DOIs, dropped fields, acronym protection, a sort): fmt
  twice = fmt once; the text between entries that is not white space (comments,
  ``@string``, ``@preamble``, unreadable blocks) byte for byte; BibTeX's reading (the real
  ``bibtex``, ``tests/bibtex_oracle.py``) of every entry the same before and after, but for
  the fields the plan names as normalised or dropped; the store's read-back check passes.
* Side by side with bibtex-tidy (npm, default options) on the same files: files it cannot
  read, files changed, comments lost, fields whose ``@string`` macro is gone, entries whose
  field order changed, entries BibTeX reads differently (any field) or no longer reads,
  tool twice = tool once.
* Speed (whole processes, CPU time of the child, medians of ``--runs``), on
  ``bench/gen_library.py N --seed S`` files: ``pubcli fmt --check`` on a formatted file,
  ``pubcli fmt`` and ``bibtex-tidy`` (in place, its defaults) on the same unformatted copy,
  in the same run; the ratio of the medians. With ``--before SRC`` (older code, e.g. from
  ``git archive``) each run of this code is followed by the same run of that code, and
  the ratios this/before are printed too. Bytecode is compiled and written (a user's
  installed pubcli has it): PYTHONDONTWRITEBYTECODE is dropped from the children's
  environment.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from tests import bibtex_oracle as oracle  # noqa: E402

TIDY = "/tmp/tidy/node_modules/.bin/bibtex-tidy"


def forms():
    from pubcli.bibtex import DEFAULT_FORM, Form

    return {"default": DEFAULT_FORM,
            "every option": Form(indent="\t", quotes=True, align=True, trailing_comma=False,
                                 order=("author", "title", "year"), pages=True, bare_doi=True,
                                 drop=("abstract", "file"), protect="acronyms", sort="key")}


# ---------------------------------------------------------------- safety
def safety(files: list[Path]) -> dict:
    from fmt_safety import check_text

    from pubcli.usecases import fmt
    from pubcli import store
    from pubcli.store import read_text

    out: dict = {}
    for name, form in forms().items():
        t = {"files": 0, "refused_not_utf8": 0, "idempotent": 0, "same_via_load": 0,
             "kept_between": 0,
             "reading_kept": 0, "entries": 0, "entries_rewritten": 0, "entries_left_alone": 0,
             "readings_changed_beyond_form": 0, "normalised_fields": 0, "errors": [],
             "examples": []}
        for path in files:
            try:
                _, text, _ = read_text(path)
            except Exception:  # noqa: BLE001 - pubcli refuses files that are not UTF-8
                t["refused_not_utf8"] += 1
                continue
            t["files"] += 1
            try:
                r = check_text(text, form)
            except Exception as exc:  # noqa: BLE001 - counted and shown, never hidden
                t["errors"].append(f"{path.name}: {exc!r}"[:300])
                continue
            # the command's way in: the file loaded with its fields as written kept
            lib = store.load(path, use_cache=False, written=True)
            t["same_via_load"] += fmt.plan(lib, form).apply(text) == r["new"]
            t["idempotent"] += r["idempotent"]
            t["kept_between"] += r["kept_between"]
            t["reading_kept"] += not r["reading_changed"]
            t["entries"] += r["entries"]
            t["entries_rewritten"] += r["changed"]
            t["entries_left_alone"] += sum(1 for s in r["plan"].skipped if s.key is not None)
            t["readings_changed_beyond_form"] += len(r["reading_changed"])
            t["normalised_fields"] += sum(len(c.fields) for c in r["plan"].changes)
            if r["reading_changed"] and len(t["examples"]) < 10:
                t["examples"].append(f"{path.name}: {r['reading_changed'][:3]}")
        out[name] = t
    return out


# ---------------------------------------------------------------- side by side
_MACRO_VALUE = re.compile(r"^(?![0-9\"{])|#")


def _macro_fields(text: str) -> set[tuple[str, str]]:
    """(key, field) of the fields written with an @string macro (or a concatenation)."""
    from pubcli import bibtex

    out = set()
    for rec in bibtex.parse(text).records:
        for name, value in rec.source.fields or ():
            if _MACRO_VALUE.search(value) and value.lower() not in bibtex.MONTH_MACROS:
                out.add((rec.key.lower(), name.lower()))
    return out


def _field_orders(text: str) -> dict[str, list[str]]:
    from pubcli import bibtex

    return {rec.key.lower(): [n.lower() for n, _ in rec.source.fields or ()]
            for rec in bibtex.parse(text).records}


def _comments(text: str) -> list[str]:
    """Comment text (lines outside entries that are not white space), stripped."""
    from fmt_safety import between

    from pubcli import bibtex

    pieces = between(text, bibtex.parse(text).records)
    out = []
    for p in pieces:
        p = re.sub(r"@(?:string|preamble)\s*[{(].*?[})]\s*$", "", p, flags=re.S | re.M | re.I)
        out += [ln.strip() for ln in p.splitlines() if ln.strip()]
    return out


def compare_tools(files: list[Path], tidy: str, tmp: Path) -> dict:
    from pubcli.usecases import fmt
    from pubcli import store
    from pubcli.bibtex import DEFAULT_FORM
    from pubcli.store import read_text

    tools = {name: {"files": 0, "cannot_read": 0, "files_changed": 0, "comments_lost": 0,
                    "macro_fields_lost": 0, "field_order_changed": 0,
                    "entries_read_differently": 0, "of_which_month_only": 0, "entries_gone": 0,
                    "idempotent": 0}
             for name in ("pubcli fmt", "bibtex-tidy")}

    def run_tidy(text: str) -> str | None:
        f, o = tmp / "t.bib", tmp / "t.out.bib"
        f.write_text(text, encoding="utf-8")
        o.unlink(missing_ok=True)
        p = subprocess.run([tidy, str(f), "-o", str(o), "--quiet"], capture_output=True,
                           text=True, timeout=300)
        return o.read_text(encoding="utf-8") if p.returncode == 0 and o.exists() else None

    def run_pubcli(text: str) -> str | None:
        return fmt.plan(store.loads(text), DEFAULT_FORM).apply(text)

    for path in files:
        try:
            _, text, _ = read_text(path)
        except Exception:  # noqa: BLE001
            continue
        before = oracle.read(text)
        macros = _macro_fields(text)
        orders = _field_orders(text)
        comments = _comments(text)
        for name, run in (("pubcli fmt", run_pubcli), ("bibtex-tidy", run_tidy)):
            t = tools[name]
            t["files"] += 1
            new = run(text)
            if new is None:
                t["cannot_read"] += 1
                continue
            t["files_changed"] += new != text
            t["idempotent"] += run(new) == new
            left = list(_comments(new))
            for c in comments:
                if c in left:
                    left.remove(c)
                else:
                    t["comments_lost"] += 1
            t["macro_fields_lost"] += len(macros - _macro_fields(new))
            after_orders = _field_orders(new)
            t["field_order_changed"] += sum(1 for k, o in orders.items()
                                            if k in after_orders and after_orders[k] != o)
            after = oracle.read(new)
            a = {oracle._lower(e.key): e for e in before.entries}
            b = {oracle._lower(e.key): e for e in after.entries}
            t["entries_gone"] += len(a.keys() - b.keys())
            differ = [k for k in a.keys() & b.keys()
                      if (a[k].type, a[k].fields) != (b[k].type, b[k].fields)]
            t["entries_read_differently"] += len(differ)
            t["of_which_month_only"] += sum(
                1 for k in differ if a[k].type == b[k].type and
                {f for f in a[k].fields.keys() | b[k].fields.keys()
                 if a[k].fields.get(f) != b[k].fields.get(f)} == {"month"})
    return tools


# ---------------------------------------------------------------- speed
def _cpu(cmd: list[str], env: dict) -> tuple[float, float, int]:
    """(CPU seconds of the child, wall seconds, exit status)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), wall, p.returncode


def speed(sizes: list[int], seeds: list[int], runs: int, tidy: str, tmp: Path,
          before: str | None = None) -> list[dict]:
    """With ``before`` (a source folder of older code), each run of the current code is
    followed by the same run of that code, and the row also holds its medians."""
    import compileall

    pubcli = shutil.which("pubcli") or "pubcli"
    versions = {"": str(ROOT / "src")}
    if before:
        versions["before_"] = before
    for src in versions.values():
        compileall.compile_dir(src, quiet=1)  # as installed: with its bytecode
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = []
    for n in sizes:
        for seed in seeds:
            src = tmp / f"gen-{n}-{seed}.bib"
            subprocess.run([sys.executable, str(HERE / "gen_library.py"), str(n), str(src),
                            "--seed", str(seed)], check=True)
            times: dict[str, list[float]] = {}
            envs, dones = {}, {}
            for v, code in versions.items():
                env = dict(base_env, PYTHONPATH=code,
                           PUBCLI_CACHE_DIR=str(tmp / f"cache-{v}{n}-{seed}"))
                done = tmp / f"done-{v}{n}-{seed}.bib"
                shutil.copy(src, done)
                subprocess.run([pubcli, "-l", str(done), "fmt"], env=env, check=True,
                               stderr=subprocess.DEVNULL)
                # a warm parse cache, as any earlier pubcli command leaves it
                subprocess.run([pubcli, "-l", str(done), "list", "--format", "keys"], env=env,
                               stdout=subprocess.DEVNULL, check=True)
                envs[v], dones[v] = env, done
            tid = times.setdefault("tidy", [])
            for _ in range(runs):
                for v in versions:
                    env, done = envs[v], dones[v]
                    cpu, wall, rc = _cpu([pubcli, "-l", str(done), "fmt", "--check"], env)
                    assert rc == 0, "a formatted file must pass --check"
                    times.setdefault(v + "check", []).append(cpu)
                    for warm in (False, True):
                        work = tmp / f"work-{v}{n}-{seed}.bib"
                        shutil.copy(src, work)
                        wcache = tmp / f"wcache-{v}{n}-{seed}-{warm}"
                        wenv = dict(env, PUBCLI_CACHE_DIR=str(wcache))
                        if warm:
                            subprocess.run([pubcli, "-l", str(work), "list", "--format", "keys"],
                                           env=wenv, stdout=subprocess.DEVNULL, check=True)
                        else:
                            shutil.rmtree(wcache, ignore_errors=True)
                        cpu, wall, rc = _cpu([pubcli, "-l", str(work), "fmt"], wenv)
                        assert rc == 0 and work.read_bytes() == done.read_bytes()
                        times.setdefault(v + ("warm" if warm else "cold"), []).append(cpu)
                work = tmp / f"tidy-{n}-{seed}.bib"
                shutil.copy(src, work)
                cpu, wall, rc = _cpu([tidy, str(work), "--modify", "--quiet"], base_env)
                assert rc == 0
                tid.append(cpu)
            row: dict = {"entries": n, "seed": seed, "runs": runs}
            for v in versions:
                row[v + "check_s"] = statistics.median(times[v + "check"])
                row[v + "fmt_cold_cache_s"] = statistics.median(times[v + "cold"])
                row[v + "fmt_warm_cache_s"] = statistics.median(times[v + "warm"])
            row["tidy_s"] = statistics.median(tid)
            for v in versions:
                row[v + "ratio_cold"] = row[v + "fmt_cold_cache_s"] / row["tidy_s"]
                row[v + "ratio_warm"] = row[v + "fmt_warm_cache_s"] / row["tidy_s"]
            if before:
                for k in ("check_s", "fmt_cold_cache_s", "fmt_warm_cache_s"):
                    row["after_over_before_" + k] = row[k] / row["before_" + k]
            out.append(row)
            print(json.dumps(row), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, default=HERE / "out" / "corpus")
    ap.add_argument("--tidy", default=TIDY)
    ap.add_argument("--sizes", default="10000")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--no-safety", action="store_true")
    ap.add_argument("--json", type=Path, default=HERE / "out" / "bench_fmt.json")
    ap.add_argument("--before", metavar="SRC",
                    help="source folder of older code, run after each run of this code "
                         "(e.g. git archive <commit> src | tar -x -C /tmp/base)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="pubcli-bench-fmt-"))
    os.environ.setdefault("PUBCLI_CACHE_DIR", str(tmp / "cache"))
    result: dict = {}
    t0, c0 = time.perf_counter(), time.process_time()
    if not args.no_corpus:
        if not oracle.available():
            sys.exit("error: the bibtex program is not installed")
        from corpus import fetch

        files = fetch(args.cache)
        if not args.no_safety:
            result["safety"] = safety(files)
            _print_safety(result["safety"], len(files))
        if shutil.which(args.tidy) or Path(args.tidy).exists():
            result["side_by_side"] = compare_tools(files, args.tidy, tmp)
            _print_tools(result["side_by_side"])
    if not args.no_speed:
        result["speed"] = speed([int(s) for s in args.sizes.split(",")],
                                [int(s) for s in args.seeds.split(",")], args.runs, args.tidy,
                                tmp, args.before)
        _print_speed(result["speed"])
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2, default=str))
    print(f"\nwhole run: {time.perf_counter() - t0:.0f} s wall, "
          f"{time.process_time() - c0:.0f} s CPU (this process); figures in {args.json}")
    shutil.rmtree(tmp, ignore_errors=True)


def _print_safety(s: dict, n: int) -> None:
    print(f"\nSafety over {n} TeX Live .bib files (BibTeX as the judge)")
    for name, t in s.items():
        f = t["files"]
        print(f"  form '{name}': {f} files read ({t['refused_not_utf8']} not UTF-8, refused); "
              f"fmt twice = once {t['idempotent']}/{f}; same text through the "
              f"command's load {t['same_via_load']}/{f}; comments/@string/@preamble kept "
              f"{t['kept_between']}/{f}; BibTeX reading kept beyond the form "
              f"{t['reading_kept']}/{f} files, {t['readings_changed_beyond_form']} field "
              f"readings changed beyond it; {t['entries_rewritten']}/{t['entries']} entries "
              f"rewritten, {t['entries_left_alone']} left alone (read-only), "
              f"{t['normalised_fields']} fields normalised; errors {len(t['errors'])}")
        for e in t["errors"][:5] + t["examples"][:5]:
            print("     ", e)


def _print_tools(tools: dict) -> None:
    names = list(tools)
    rows = list(tools[names[0]])
    print("\nSide by side on the corpus (default options of each)")
    print(f"  {'':28}" + "".join(f"{n:>14}" for n in names))
    for r in rows:
        print(f"  {r:28}" + "".join(f"{tools[n][r]:>14}" for n in names))


def _print_speed(rows: list[dict]) -> None:
    print("\nSpeed (CPU s of the whole process, medians)")
    for prefix, who in (("", "this code"), ("before_", "before")):
        if prefix + "check_s" not in rows[0]:
            continue
        print(f"  {who}:")
        print(f"  {'entries':>8} {'seed':>5} {'fmt --check':>12} {'fmt cold':>9} "
              f"{'fmt warm':>9} {'tidy':>7} {'cold/tidy':>10} {'warm/tidy':>10}")
        for r in rows:
            print(f"  {r['entries']:>8} {r['seed']:>5} {r[prefix + 'check_s']:>12.3f} "
                  f"{r[prefix + 'fmt_cold_cache_s']:>9.3f} "
                  f"{r[prefix + 'fmt_warm_cache_s']:>9.3f} {r['tidy_s']:>7.3f} "
                  f"{r[prefix + 'ratio_cold']:>10.3f} {r[prefix + 'ratio_warm']:>10.3f}")
    if "after_over_before_check_s" in rows[0]:
        print("  this code / before (same run): " + "; ".join(
            f"{r['entries']}/{r['seed']}: check {r['after_over_before_check_s']:.2f}, cold "
            f"{r['after_over_before_fmt_cold_cache_s']:.2f}, warm "
            f"{r['after_over_before_fmt_warm_cache_s']:.2f}" for r in rows))


if __name__ == "__main__":
    main()
