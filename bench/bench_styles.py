"""How many of pubcli's styled references equal pandoc --citeproc reading the .bib itself.

    python bench/bench_styles.py [--style apa ...] [--max-entries 500] [--diff N]
                                 [--texlive K] [--sample-seed S] [--cache DIR]
                                 [--show-class NAME ...] [--pandoc PATH] [BIB ...]
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
--diff N prints the first N differences per style. Every difference is put in a
class (bench/style_whys.py: the test, and why one side is right); the table per style gives
count, one example and the reason, and the agreement is printed again without the
classes where pandoc misreads the .bib. --texlive K adds up to K entries of each
common type from every TeX Live bibliography (bench/corpus.py fetches them into
--cache, default bench/out/corpus). --show-class NAME prints every difference of
that class (bench/style_whys.py's names, or "unexplained").
pandoc's references are cached in bench/out/pandoc-refs (they depend on the file,
the style and pandoc only). The pandoc measured: --pandoc PATH, else $PUBCLI_PANDOC,
else the styles extra's (pypandoc-binary, pandoc 3.x), else the one on PATH (pubcli's
own order puts PATH first; Debian's 2.17 formats Chicago some 30 times slower and
reads .bib files otherwise, so the figures are pandoc 3.x's). Both sides use it.
`python bench/style_whys.py` prints docs/style-agreement.md's table again from
bench/out/styles.json.

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
from pubcli.errors import PubcliError  # noqa: E402
from pubcli.exporters import pandoc  # noqa: E402
from pubcli.schema.inherit import publications  # noqa: E402
from pubcli.exporters.styles import STYLE_DIR, STYLES  # noqa: E402
from style_whys import print_why_table, why, why_table  # noqa: E402
from procs import timed  # noqa: E402

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
    """pandoc's references for ``bib`` in ``style``, cached under bench/out by the
    digest of the file, the style and pandoc (they do not depend on pubcli)."""
    import hashlib

    exe = pandoc.find()
    digest = hashlib.sha256(bib.read_bytes() + style.read_bytes() + exe.identity.encode())
    cached = OUT / "pandoc-refs" / f"{digest.hexdigest()[:32]}.json"
    if cached.exists():
        return json.loads(cached.read_text(encoding="utf-8"))
    refs = _pandoc_refs(bib, style)
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(refs, ensure_ascii=False), encoding="utf-8")
    return refs


def _pandoc_refs(bib: Path, style: Path) -> dict[str, str]:
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


def measured_records(bib: Path) -> list:
    """pubcli's reading of ``bib`` (crossref/xdata inherited), keys used once only."""
    lib = store.load(bib, use_cache=False, write_cache=False, display=True)
    recs = publications(lib.records)
    counts = Counter(r.key for r in recs)
    return [r for r in recs if counts[r.key] == 1]


def pubcli_refs(units: list[list], style: Path) -> list[dict[str, str]]:
    """pubcli's references of each unit (one file's records) in ``style``: one
    bibliography per unit."""
    from pubcli.exporters import cslstyle, mathml

    styler = cslstyle.Styler(style, cache=False)
    # one call per unit: formatted together, two files' references of one author and
    # year would get year suffixes from each other
    done = [styler.bibliographies([unit], owner=None)[0] for unit in units]
    tex = sorted({s.text for unit in done for _, c in unit for part in c for s in part
                  if s.math})
    math = dict(zip(tex, mathml.to_mathml(tex), strict=True))
    return [{rec.key: normal(runs_html([s for part in c for s in part], math))
             for rec, c in unit} for unit in done]


def corpus_files(max_entries: int) -> list[Path]:
    files = sorted((ROOT / "tests" / "corpus").rglob("*.bib")) + [ROOT / "data" / "library.bib"]
    out = []
    for f in files:
        n = len(re.findall(r"(?m)^\s*@(?!string|comment|preamble)", f.read_text("utf-8", "replace"),
                           re.I))
        if 0 < n <= max_entries:
            out.append(f)
    return out


# Entry types sampled from TeX Live's bibliographies: the common ones of BibTeX and biblatex.
COMMON_TYPES = ("article", "inproceedings", "incollection", "inbook", "book", "proceedings",
                "techreport", "report", "phdthesis", "mastersthesis", "thesis", "misc",
                "manual", "unpublished", "online", "collection", "booklet")


def texlive_sample(per_type: int, seed: int, skip: set[Path],
                   cache: Path = OUT / "corpus") -> list[Path]:
    """Real entries of common types from TeX Live's bibliographies (bench/corpus.py
    fetches them into bench/out/corpus): from each file not already measured, up to
    ``per_type`` entries of each type in COMMON_TYPES, chosen at random (``seed``), with
    the crossref/xdata parents they name and all the file's text between entries
    (@string, @preamble), written as one .bib per source file under
    bench/out/texlive-sample (kept: later runs reuse it)."""
    import random

    import corpus

    folder = OUT / f"texlive-sample-{per_type}-s{seed}"
    if (folder / ".done").exists():
        return sorted(folder.glob("*.bib"))
    folder.mkdir(parents=True, exist_ok=True)
    skipped = {p.name for p in skip}
    out = []
    for src in corpus.fetch(cache):
        if src.name in skipped or src.stat().st_size < 200:
            continue
        try:
            lib = store.load(src, use_cache=False, write_cache=False)
        except PubcliError as exc:  # a file pubcli cannot read (not UTF-8) is not sampled
            print(f"  sample: skip {src.name}: {exc}", file=sys.stderr)
            continue
        text = lib.document.text
        recs = [r for r in lib.records if r.source is not None]
        counts = Counter(r.key.casefold() for r in recs)
        recs = [r for r in recs if counts[r.key.casefold()] == 1]
        by_key = {r.key.casefold(): r for r in recs}
        rng = random.Random(f"{seed}:{src.name}")
        chosen: dict[str, object] = {}
        for kind in COMMON_TYPES:
            of_kind = [r for r in recs if r.type == kind]
            for r in rng.sample(of_kind, min(per_type, len(of_kind))):
                chosen[r.key.casefold()] = r
                for ref in ("crossref", "xdata"):
                    for parent in r.fields.get(ref, "").split(","):
                        if parent.strip().casefold() in by_key:
                            chosen[parent.strip().casefold()] = by_key[parent.strip().casefold()]
        if not chosen:
            continue
        spans = sorted((r.source.start, r.source.end) for r in recs)
        between, pos = [], 0
        for start, end in spans:
            between.append(text[pos:start])
            pos = end
        between.append(text[pos:])
        strings = "\n".join(_string_blocks("".join(between)))
        body = "\n\n".join(text[r.source.start:r.source.end]
                            for r in sorted(chosen.values(), key=lambda r: r.source.start))
        name = f"{src.parent.name}-{src.stem}.bib"
        (folder / name).write_text(strings + "\n\n" + body + "\n", encoding="utf-8")
        out.append(folder / name)
    (folder / ".done").write_text("ok\n")
    return sorted(out)


def _string_blocks(text: str) -> list[str]:
    """The @string and @preamble blocks of ``text``, each as written."""
    out = []
    for m in re.finditer(r"(?i)@\s*(?:string|preamble)\s*([{(])", text):
        close = "}" if m.group(1) == "{" else ")"
        depth, i = 0, m.end()
        while i < len(text):
            c = text[i]
            if c == "{":
                depth += 1
            elif c == "}" and depth:
                depth -= 1
            elif c == close and depth == 0:
                out.append(text[m.start():i + 1])
                break
            i += 1
    return out


def agreement(files: list[Path], styles: list[str], show: int,
              show_classes: tuple[str, ...] = ()) -> dict:
    result = {}
    units = {}
    for f in files:
        try:
            units[f] = measured_records(f)
        except PubcliError as exc:  # not UTF-8: pubcli says so and reads nothing
            print(f"  skip {f.relative_to(ROOT)}: {exc}"[:160], file=sys.stderr)
    files = list(units)
    for name in styles:
        style = STYLE_DIR / STYLES[name]
        same = total = 0
        diffs = []
        t0 = time.perf_counter()
        refs = {}
        for f in files:
            try:
                refs[f] = pandoc_refs(f, style)
            except pandoc.PandocFailed as exc:
                print(f"  skip {f.relative_to(ROOT)}: {exc.message[:100]}", file=sys.stderr)
        mine_all = pubcli_refs([units[f] for f in refs], style)
        by_key = {f: {r.key: r for r in units[f]} for f in refs}
        for (f, ref), mine in zip(refs.items(), mine_all, strict=True):
            for key, want in ref.items():
                if key not in mine:
                    continue
                total += 1
                if mine[key] == want:
                    same += 1
                else:
                    diffs.append((str(f.relative_to(ROOT)), by_key[f][key], want, mine[key]))
        table = why_table(name, diffs)
        misread = sum(row["count"] for row in table.values() if row["pandoc_misreads"])
        rest = total - misread
        result[name] = {"equal": same, "total": total,
                        "percent": round(100 * same / total, 1) if total else None,
                        "pandoc_misreads": misread,
                        "percent_without_misreads": round(100 * same / rest, 1) if rest else None,
                        "seconds": round(time.perf_counter() - t0, 1),
                        "classes": table,
                        "differences": [(f, r.key, want, got) for f, r, want, got in diffs]}
        print(f"{name:8} {same:4}/{total:<4} equal ({result[name]['percent']}%); "
              f"without the {misread} pandoc misreads: {same}/{rest} "
              f"({result[name]['percent_without_misreads']}%)", flush=True)
        print_why_table(name, table)
        for f, rec, want, got in diffs[:show]:
            print(f"   {f} {rec.key}\n     pandoc: {want}\n     pubcli: {got}")
        for f, rec, want, got in diffs:
            w = why(rec, want, got)
            if (w.name if w else "unexplained") in show_classes:
                print(f"   [{w.name if w else 'unexplained'}] {f} {rec.key}\n"
                      f"     pandoc: {want}\n     pubcli: {got}")
    return result


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
                        cold.append(timed(cmd, env))
                        warm.append(timed(cmd, env))
                        # one entry changed: the first title gets a word more
                        m = re.search(r"title\s*=\s*\{", text)
                        assert m
                        work.write_text(text[:m.end()] + f"Changed{r} " + text[m.end():],
                                        encoding="utf-8")
                        changed.append(timed(cmd, env))
                key = f"{name} n={n} seed={seed}"
                out[key] = {k: {"wall": round(statistics.median(w for w, _ in v), 2),
                                "cpu": round(statistics.median(c for _, c in v), 2)}
                            for k, v in (("cold", cold), ("warm", warm), ("one_changed", changed))}
                print(f"{key:28} " + "  ".join(f"{k} {v['cpu']:.2f} s cpu ({v['wall']:.2f} wall)"
                                                 for k, v in out[key].items()), flush=True)
    return out


def _extra_pandoc() -> str | None:
    """The pandoc of the styles extra (the pypandoc-binary wheel), if installed."""
    from importlib.util import find_spec

    spec = find_spec("pypandoc")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        exe = Path(folder) / "files" / "pandoc"
        if exe.is_file() and os.access(exe, os.X_OK):
            return str(exe)
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bib", nargs="*", type=Path)
    ap.add_argument("--style", action="append", choices=list(STYLES))
    ap.add_argument("--max-entries", type=int, default=500)
    ap.add_argument("--diff", type=int, default=0)
    ap.add_argument("--texlive", type=int, default=0, metavar="K",
                    help="also measure up to K sampled entries of each common type from "
                         "every TeX Live bibliography (bench/corpus.py fetches them)")
    ap.add_argument("--sample-seed", type=int, default=1)
    ap.add_argument("--cache", type=Path, default=OUT / "corpus",
                    help="where bench/corpus.py keeps the TeX Live packages")
    ap.add_argument("--show-class", action="append", default=[], metavar="NAME",
                    help="print every difference of this class (or 'unexplained')")
    ap.add_argument("--pandoc", help="the pandoc to measure (default: $PUBCLI_PANDOC, "
                                     "else the styles extra's, else PATH's)")
    ap.add_argument("--timing", type=int, nargs="*", metavar="N",
                    help="time styled exports of generated libraries of N entries "
                         "(e.g. --timing 200 10000) instead of measuring agreement")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, action="append")
    args = ap.parse_args()
    chosen = args.pandoc or os.environ.get("PUBCLI_PANDOC") or _extra_pandoc()
    if chosen:  # both sides (pubcli's styled export runs pandoc too) use this one
        os.environ["PUBCLI_PANDOC"] = chosen
    exe = pandoc.find()
    version = ".".join(map(str, exe.version))
    print(f"pandoc {version} ({exe.path})", flush=True)
    if args.timing is not None:
        result = timings(args.timing or [200], args.style or ["apa"], args.runs,
                         args.seed or [1])
        OUT.mkdir(exist_ok=True)
        (OUT / "styles-timing.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
        return
    files = [b.resolve() for b in args.bib] or corpus_files(args.max_entries)
    if args.texlive:
        files += texlive_sample(args.texlive, args.sample_seed, set(files), args.cache)
    print(f"{len(files)} files")
    result = agreement(files, args.style or list(STYLES), args.diff, tuple(args.show_class))
    OUT.mkdir(exist_ok=True)
    (OUT / "styles.json").write_text(json.dumps({"pandoc": version, "styles": result},
                                                ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
