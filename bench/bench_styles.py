"""How many of pubcli's styled references equal pandoc --citeproc reading the .bib itself.

    python bench/bench_styles.py [--style apa ...] [--max-entries 500] [--diff N] [BIB ...]
    python bench/bench_styles.py --timing 200 10000 [--style apa] [--runs 3] [--seed 1 ...]

For each shipped style and each .bib file (default: every file under tests/corpus
of at most --max-entries entries, plus data/library.bib), the reference is
`pandoc --citeproc --bibliography FILE.bib --csl STYLE` (pandoc's own BibTeX
reader); pubcli's is its own reading of the file (store.load, crossref/xdata
inherited) turned into CSL-JSON and formatted in one bibliography. Both are
compared as the HTML of each entry with links, spans and the numeric label
removed and white space collapsed (italic, bold, MathML kept: math is MathML on
both sides). Entries whose key occurs twice in a file are left out (pandoc keeps
one of them). Prints agreement per style and writes bench/out/styles.json;
--diff N prints the first N differences per style.

--timing times whole `pubcli export html --style S` processes on generated
libraries (bench/gen_library.py): cold (empty cache), warm, and re-exported after
one entry changed; CPU seconds include pandoc's (aims: 200 entries < 2 s cold,
< 0.5 s warm; 10k with one entry changed < 5 s).
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
sys.path.insert(0, str(ROOT / "src"))

from pubcli import store  # noqa: E402
from pubcli.exporters import pandoc  # noqa: E402
from pubcli.schema.inherit import publications  # noqa: E402
from pubcli.exporters.styles import STYLE_DIR, STYLES  # noqa: E402

_ENTRY = re.compile(r'<div id="ref-([^"]*)" class="csl-entry"[^>]*>(.*?)</div>\s*(?=<div id="ref-|</div>\s*$)',
                    re.S)
_MARGIN = re.compile(r'<div class="csl-left-margin">.*?</div>', re.S)
_DROP_TAGS = re.compile(r"</?(?:a|span|div)\b[^>]*>")


def normal(fragment: str) -> str:
    text = _MARGIN.sub("", fragment)
    text = _DROP_TAGS.sub("", text)
    text = re.sub(r"</(em|strong)><\1>", "", text)  # adjacent runs of one style
    text = html.unescape(text).replace("\u00a0", " ").replace("\u00ad", "")  # invisible
    return " ".join(text.split())


def pandoc_refs(bib: Path, style: Path) -> dict[str, str]:
    doc = "---\nnocite: '@*'\n---\n"
    out = pandoc.run(["--citeproc", "-f", "markdown", "-t", "html", "--mathml",
                      "--wrap=none", "--bibliography", str(bib), "--csl", str(style),
                      "-M", "link-bibliography=false"], doc)
    return {m.group(1): normal(m.group(2)) for m in _ENTRY.finditer(out + "\n")}


def runs_html(runs, math) -> str:
    out = []
    for r in runs:
        text = math.get(r.text, html.escape(r.text, quote=False)) if r.math \
            else html.escape(r.text, quote=False)
        if r.strong:
            text = f"<strong>{text}</strong>"
        if r.em:
            text = f"<em>{text}</em>"
        out.append(text)
    return "".join(out)


def pubcli_refs(bib: Path, style: Path) -> dict[str, str]:
    from pubcli.exporters import cslstyle

    lib = store.load(bib, use_cache=False, write_cache=False, display=True)
    recs = publications(lib.records)
    counts = Counter(r.key for r in recs)
    recs = [r for r in recs if counts[r.key] == 1]
    styler = cslstyle.Styler(style, cache=False)
    [unit] = styler.bibliographies([recs], owner=None)
    from pubcli.exporters import mathml

    tex = sorted({s.text for _, c in unit for part in c for s in part if s.math})
    math = dict(zip(tex, mathml.to_mathml(tex), strict=True))
    return {rec.key: normal(runs_html([s for part in c for s in part], math))
            for rec, c in unit}


def corpus_files(max_entries: int) -> list[Path]:
    files = sorted((ROOT / "tests" / "corpus").rglob("*.bib")) + [ROOT / "data" / "library.bib"]
    out = []
    for f in files:
        n = len(re.findall(r"(?m)^\s*@(?!string|comment|preamble)", f.read_text("utf-8", "replace"),
                           re.I))
        if 0 < n <= max_entries:
            out.append(f)
    return out


def agreement(files: list[Path], styles: list[str], show: int) -> dict:
    result = {}
    for name in styles:
        style = STYLE_DIR / STYLES[name]
        same = total = 0
        diffs = []
        t0 = time.perf_counter()
        for f in files:
            try:
                ref = pandoc_refs(f, style)
            except pandoc.PandocFailed as exc:
                print(f"  skip {f.relative_to(ROOT)}: {exc.message[:100]}", file=sys.stderr)
                continue
            mine = pubcli_refs(f, style)
            for key, want in ref.items():
                if key not in mine:
                    continue
                total += 1
                if mine[key] == want:
                    same += 1
                else:
                    diffs.append((str(f.relative_to(ROOT)), key, want, mine[key]))
        result[name] = {"equal": same, "total": total,
                        "percent": round(100 * same / total, 1) if total else None,
                        "seconds": round(time.perf_counter() - t0, 1),
                        "differences": diffs}
        print(f"{name:8} {same:4}/{total:<4} equal ({result[name]['percent']}%)")
        for f, key, want, got in diffs[:show]:
            print(f"   {f} {key}\n     pandoc: {want}\n     pubcli: {got}")
    return result


def _timed(args: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its pandoc children)."""
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def timings(sizes: list[int], styles: list[str], runs: int, seeds: list[int]) -> dict:
    """Whole `pubcli export html --style S` processes: cold (empty cache), warm (cache
    filled), and after one entry changed (its year formatted again); medians of CPU
    seconds over ``runs`` runs and the generator ``seeds``."""
    import statistics
    import subprocess

    out: dict = {}
    OUT.mkdir(exist_ok=True)
    for n in sizes:
        for seed in seeds:
            lib = OUT / f"styles-{n}-s{seed}.bib"
            if not lib.exists():
                subprocess.run([sys.executable, str(HERE / "gen_library.py"), str(n), str(lib),
                                "--seed", str(seed)], check=True)
            text = lib.read_text(encoding="utf-8")
            for name in styles:
                cold, warm, changed = [], [], []
                for r in range(runs):
                    with tempfile.TemporaryDirectory() as tmp:
                        env = dict(os.environ, PUBCLI_CACHE_DIR=tmp, PYTHONPATH=str(ROOT / "src"))
                        work = Path(tmp) / "lib.bib"
                        work.write_text(text, encoding="utf-8")
                        cmd = [sys.executable, "-m", "pubcli", "export", "html", "--style", name,
                               "-o", str(Path(tmp) / "page.html"), "-l", str(work)]
                        cold.append(_timed(cmd, env))
                        warm.append(_timed(cmd, env))
                        # one entry changed: the first title gets a word more
                        m = re.search(r"title\s*=\s*\{", text)
                        assert m
                        work.write_text(text[:m.end()] + f"Changed{r} " + text[m.end():],
                                        encoding="utf-8")
                        changed.append(_timed(cmd, env))
                key = f"{name} n={n} seed={seed}"
                out[key] = {k: {"wall": round(statistics.median(w for w, _ in v), 2),
                                "cpu": round(statistics.median(c for _, c in v), 2)}
                            for k, v in (("cold", cold), ("warm", warm), ("one_changed", changed))}
                print(f"{key:28} " + "  ".join(f"{k} {v['cpu']:.2f} s cpu ({v['wall']:.2f} wall)"
                                                 for k, v in out[key].items()), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bib", nargs="*", type=Path)
    ap.add_argument("--style", action="append", choices=list(STYLES))
    ap.add_argument("--max-entries", type=int, default=500)
    ap.add_argument("--diff", type=int, default=0)
    ap.add_argument("--timing", type=int, nargs="*", metavar="N",
                    help="time styled exports of generated libraries of N entries "
                         "(e.g. --timing 200 10000) instead of measuring agreement")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, action="append")
    args = ap.parse_args()
    exe = pandoc.find()
    print(f"pandoc {exe.version_text} ({exe.path})", flush=True)
    if args.timing is not None:
        result = timings(args.timing or [200], args.style or ["apa"], args.runs,
                         args.seed or [1])
        OUT.mkdir(exist_ok=True)
        (OUT / "styles-timing.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
        return
    files = [b.resolve() for b in args.bib] or corpus_files(args.max_entries)
    print(f"{len(files)} files")
    result = agreement(files, args.style or list(STYLES), args.diff)
    OUT.mkdir(exist_ok=True)
    (OUT / "styles.json").write_text(json.dumps({"pandoc": exe.version_text, "styles": result},
                                                ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
