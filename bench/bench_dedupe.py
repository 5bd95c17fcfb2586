"""Benchmark and evaluate `pubcli dedupe` on libraries with injected near-duplicates.

    python bench/bench_dedupe.py gen N OUT.bib [--seed S]        # library + OUT.truth.json
    python bench/bench_dedupe.py run 10000 100000 [1000000]      # time, memory, precision, recall
    python bench/bench_dedupe.py sweep LIB.bib                   # precision/recall by threshold
    python bench/bench_dedupe.py devsets ../shared/dedupe-dev    # score + time the labelled sets
    python bench/bench_dedupe.py allpairs LIB.bib                # what blocking loses vs all pairs
    python bench/bench_dedupe.py one LIB.bib [--threshold T]     # one measured run (a child)
    python bench/bench_dedupe.py processes 10000 100000 [--dups 0.05 0.1] [--seeds 1 2 3]
        [--runs 3] [--baseline OTHER_TREE] [--tidy PATH/bibtex-tidy] [--add]
                                   # whole `pubcli dedupe` (and `add --dry-run`) processes:
                                   # CPU medians, warm and cold weights, ratios vs bibtex-tidy
    python bench/bench_dedupe.py matches LIB.bib                 # the duplicate guard, one candidate
    python bench/bench_dedupe.py export-csv LIB.bib OUT.csv      # input for bib-dedupe
    /tmp/bd-venv/bin/python bench/bench_dedupe.py run-bibdedupe OUT.csv CLUSTERS.json
    python bench/bench_dedupe.py score LIB.bib CLUSTERS.json     # bib-dedupe's precision/recall

The generator here is meaner than bench/gen_library.py (which `run --gen-library`
also measures): titles from a Zipf vocabulary (common words collide, as in real
files), a fifth of the base entries given one to three near-duplicates made of
several edits at once (typos, dropped subtitles, reordered words, case, HTML
entities, LaTeX vs Unicode accents, Vancouver or "First Last" or initials-only
author lists, "et al." truncation, a year off by one or missing, arXiv
preprints, abbreviated or missing venues, DOIs written differently or dropped,
authors missing), and hard *non*-duplicates: same title by other authors,
"Part 1"/"Part 2", errata, second editions, generic titles ("Editorial") by
the same editor in the same journal, one word changed by the same authors,
the same title years apart. Truth is written as clusters of keys.

Outputs go to bench/out/. Measurements are wall time and peak RSS
(``ru_maxrss``) of a child process per size, load and detection apart.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import string
import subprocess
import sys
import time
from itertools import combinations
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
sys.path.insert(0, str(HERE.parent / "src"))

# ------------------------------------------------------------------ generator
REAL_WORDS = (
    "analysis of the effect in and for with on a study using based model learning deep "
    "neural network system data patients clinical trial randomized controlled review "
    "systematic meta treatment outcomes risk cancer children adults older women therapy "
    "efficient scalable distributed memory graph training inference language models "
    "evaluation approach method new novel towards framework performance optimization "
    "design application adaptive robust secure privacy energy cloud mobile wireless "
    "images segmentation detection classification prediction cohort association between "
    "factors among after during versus health care quality prevalence incidence "
    "mortality disease chronic acute severe infection virus vaccine response protein "
    "gene expression cell brain cognitive behaviour social public policy economic"
).split()
SYLL = ["ka", "lo", "mi", "ne", "ru", "ta", "vi", "so", "pe", "da", "ri", "no", "xu", "ze",
        "bo", "ga", "fi", "hu", "ja", "qi", "wa", "ye", "tor", "lin", "mar", "sen", "dra",
        "pho", "cy", "gen", "ase", "ion", "ter", "al", "ic", "ol", "um", "ex", "ine", "oid"]
FIRST = ["Ana", "Björn", "Chen", "Dmitri", "Élodie", "Fatima", "Guo", "Hiro", "Inês", "José",
         "Kalin", "Lena", "Müge", "Nikos", "Olatunji", "Priya", "Qiang", "Raúl", "Sören",
         "Tanvi", "Wei", "Xin", "Yuki", "Zoë", "Amir", "Beatriz", "Carlos", "Dana", "Emeka",
         "Farah", "Giulia", "Hamid", "Ingrid", "Jun", "Kwame", "Laila", "Mateo", "Nadia",
         "Omar", "Paula", "Rafael", "Sara", "Tomás", "Uma", "Viktor", "Yara"]
ACCENTS = {"ü": '{\\"u}', "é": "{\\'e}", "í": "{\\'i}", "ø": "{\\o}", "ö": '{\\"o}',
           "á": "{\\'a}", "É": "{\\'E}", "ú": "{\\'u}", "ê": "{\\^e}", "ç": "{\\c{c}}",
           "ë": '{\\"e}', "ó": "{\\'o}"}
STOP = set("a an the of and or in on for to with by at from as is are be its into via vs versus".split())
GENERIC = ["Editorial", "Introduction", "Reply", "Commentary", "Preface", "Letter to the Editor",
           "Erratum", "In this issue", "Book review"]


class World:
    """Vocabulary, names and venues shared by all entries of one library."""

    def __init__(self, rng: random.Random, n: int) -> None:
        self.rng = rng
        nwords = max(2000, min(60000, n // 10))
        made = set()
        while len(made) < nwords:
            w = "".join(rng.choice(SYLL) for _ in range(rng.randint(2, 4)))
            if rng.random() < 0.04:
                w = w[:2] + rng.choice("üéíöáóç") + w[2:]
            made.add(w)
        self.words = REAL_WORDS + sorted(made)
        # Zipf-like weights: common words collide across titles, as in real libraries
        self.cum = []
        total = 0.0
        for rank in range(len(self.words)):
            total += 1.0 / (rank + 2) ** 0.9
            self.cum.append(total)
        nlast = max(3000, min(200000, n // 3))
        lasts = set()
        while len(lasts) < nlast:
            s = "".join(rng.choice(SYLL) for _ in range(rng.randint(2, 3)))
            if rng.random() < 0.05:
                s = s[:1] + rng.choice("üéøöá") + s[1:]
            lasts.add(s.capitalize())
        self.lasts = sorted(lasts)
        self.venues = []
        for _ in range(max(200, min(5000, n // 50))):
            words = [self.word().capitalize() for _ in range(rng.randint(1, 3))]
            full = "Journal of " + " and ".join(words)
            abbrev = "J " + " ".join(w[:4] for w in words)
            self.venues.append((full, abbrev))

    def word(self) -> str:
        import bisect

        r = self.rng.random() * self.cum[-1]
        return self.words[bisect.bisect_left(self.cum, r)]

    def title(self) -> str:
        rng = self.rng
        n = rng.randint(4, 15)
        words = [self.word() for _ in range(n)]
        words[0] = words[0].capitalize()
        if rng.random() < 0.15:
            words.insert(rng.randrange(len(words)), "{" + rng.choice(
                ["GPU", "MRI", "COVID-19", "HIV", "DNA", "CNN", "RNA-seq", "BMI"]) + "}")
        t = " ".join(words)
        if rng.random() < 0.4:
            t += ": " + " ".join(self.word() for _ in range(rng.randint(2, 7)))
        return t

    def person(self) -> tuple[str, str]:
        # a few prolific authors, many occasional ones
        i = int(len(self.lasts) * self.rng.random() ** 1.8)
        return self.lasts[i], self.rng.choice(FIRST)

    def authors(self) -> list[tuple[str, str]]:
        rng = self.rng
        n = rng.randint(30, 80) if rng.random() < 0.01 else min(1 + int(rng.expovariate(0.3)), 15)
        return [self.person() for _ in range(n)]


def latexify(s: str) -> str:
    return "".join(ACCENTS.get(c, c) for c in s)


def fmt_authors(people: list[tuple[str, str]], style: str, rng: random.Random) -> str:
    if style == "bibtex":
        return " and ".join(f"{latexify(l) if rng.random() < 0.5 else l}, {f}" for l, f in people)
    if style == "firstlast":
        return " and ".join(f"{f} {l}" for l, f in people)
    if style == "initials":
        return " and ".join(f"{l}, {f[0]}." for l, f in people)
    if style == "vancouver":
        return ", ".join(f"{l} {f[0]}" for l, f in people)
    if style == "semicolon":
        return "; ".join(f"{l}, {f[0]}." for l, f in people)
    if style == "etal":
        return " and ".join(f"{l}, {f}" for l, f in people[:3]) + " and others"
    raise ValueError(style)


def entry(key: str, etype: str, fields: dict[str, str]) -> str:
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v is not None)
    return f"@{etype}{{{key},\n{body}\n}}\n"


def base_entry(w: World, i: int) -> dict:
    rng = w.rng
    etype = rng.choices(["article", "inproceedings", "misc", "book", "techreport"],
                        [6, 3, 0.6, 0.3, 0.3])[0]
    people = w.authors()
    year = rng.randint(1980, 2025)
    full, abbrev = rng.choice(w.venues)
    rec = {"key": f"b{i}", "type": etype, "title": w.title(), "people": people, "year": year,
           "venue": full, "abbrev": abbrev}
    if rng.random() < 0.5:
        rec["doi"] = f"10.{rng.randint(1000, 9999)}/{rng.choice(string.ascii_lowercase)}{i}"
    if etype == "book" and rng.random() < 0.5:
        rec["edition"] = "1st"
    if etype == "article":
        rec["volume"] = str(rng.randint(1, 120))
        p = rng.randint(1, 2000)
        rec["pages"] = (p, p + rng.randint(3, 30))
    return rec


def render(rec: dict, key: str, *, style: str = "bibtex", title: str | None = None,
           year: int | str | None = "same", venue: str | None = "same", doi: str | None = "same",
           etype: str | None = None, pages_style: str = "full", rng: random.Random,
           drop_authors: bool = False, extra: dict | None = None) -> str:
    t = rec["title"] if title is None else title
    etype = etype or rec["type"]
    f: dict[str, str] = {}
    if not drop_authors:
        f["author"] = fmt_authors(rec["people"], style, rng)
    f["title"] = t
    v = rec["venue"] if venue == "same" else venue
    if v:
        f["journal" if etype == "article" else "booktitle" if etype == "inproceedings" else
          "publisher" if etype == "book" else "howpublished" if etype == "misc" else
          "institution"] = v
    y = rec["year"] if year == "same" else year
    if y:
        f["year"] = str(y)
    if "volume" in rec and etype == "article":
        f["volume"] = rec["volume"]
    if "pages" in rec and etype == "article" and pages_style != "none":
        a, b = rec["pages"]
        f["pages"] = f"{a}--{b}" if pages_style == "full" else short_pages(a, b)
    if "edition" in rec and etype == "book":
        f["edition"] = rec["edition"]
    d = rec.get("doi") if doi == "same" else doi
    if d:
        f["doi"] = d
    if extra:
        f.update(extra)
    return entry(key, etype, f)


def short_pages(a: int, b: int) -> str:
    """Medline style: 123-9 for 123-129."""
    sa, sb = str(a), str(b)
    i = 0
    if len(sa) == len(sb):
        while i < len(sa) - 1 and sa[i] == sb[i]:
            i += 1
    return f"{sa}-{sb[i:]}"


def typo(t: str, rng: random.Random) -> str:
    letters = [i for i, c in enumerate(t) if c.isalpha()]
    if len(letters) < 8:
        return t
    j = rng.choice(letters[2:-2])
    kind = rng.choice(["swap", "drop", "double", "sub"])
    if kind == "swap":
        return t[:j] + t[j + 1] + t[j] + t[j + 2:]
    if kind == "drop":
        return t[:j] + t[j + 1:]
    if kind == "double":
        return t[:j] + t[j] + t[j:]
    return t[:j] + rng.choice("aeiourstn") + t[j + 1:]


def variant_title(t: str, rng: random.Random) -> str:
    kinds = rng.sample(["typo", "subtitle", "reorder", "case", "punct", "html", "bracket",
                        "unaccent", "hyphen", "same", "same"], rng.randint(1, 2))
    for kind in kinds:
        if kind == "typo":
            t = typo(t, rng)
        elif kind == "subtitle" and ": " in t:
            t = t.split(": ")[0]
        elif kind == "reorder":
            ws = t.split(" ")
            if len(ws) > 4:
                k = rng.randrange(1, len(ws) - 2)
                ws[k], ws[k + 1] = ws[k + 1], ws[k]
            t = " ".join(ws)
        elif kind == "case":
            t = t.upper() if rng.random() < 0.3 else t.lower()
        elif kind == "punct":
            t = t.replace(": ", ". ") + "."
        elif kind == "html":
            t = t.replace(" and ", " &amp; ").replace("ü", "&uuml;").replace("é", "&eacute;")
        elif kind == "bracket":
            t = "[" + t + "]."
        elif kind == "unaccent":
            t = latexify(t)
        elif kind == "hyphen":
            ws = t.split(" ")
            if len(ws) > 3:
                k = rng.randrange(1, len(ws) - 1)
                ws[k:k + 2] = [ws[k] + "-" + ws[k + 1]]
            t = " ".join(ws)
    return t


def near_duplicate(rec: dict, key: str, rng: random.Random) -> str:
    arxiv = rec["type"] in ("article", "inproceedings") and rng.random() < 0.12
    style = rng.choice(["bibtex", "firstlast", "initials", "vancouver", "semicolon", "etal"])
    if style == "etal" and len(rec["people"]) <= 3:
        style = "initials"
    year: int | str | None = "same"
    r = rng.random()
    if arxiv:
        year = rec["year"] - rng.choice([0, 1])
    elif r < 0.10:
        year = rec["year"] + rng.choice([-1, 1])
    elif r < 0.13:
        year = None
    venue: str | None = "same"
    r = rng.random()
    if r < 0.3:
        venue = rec["abbrev"]
    elif r < 0.4:
        venue = None
    doi: str | None = "same"
    r = rng.random()
    if "doi" in rec:
        if r < 0.3:
            doi = None
        elif r < 0.5:
            doi = "https://doi.org/" + rec["doi"].upper()
    drop_authors = rng.random() < 0.04 and not arxiv
    title = variant_title(rec["title"], rng)
    if arxiv:
        if "arxiv" not in rec:  # one arXiv id per work, however many copies
            rec["arxiv"] = (f"{(rec['year'] - 2000) % 100:02d}{rng.randint(1, 12):02d}."
                            f"{rng.randint(10000, 99999)}")
        aid = rec["arxiv"]
        return render(rec, key, style=style, title=title, year=year, venue=None, doi=None,
                      etype="misc", rng=rng, drop_authors=drop_authors,
                      extra={"eprint": aid, "archiveprefix": "arXiv"})
    return render(rec, key, style=style, title=title, year=year, venue=venue, doi=doi, rng=rng,
                  pages_style=rng.choice(["full", "short", "none"]), drop_authors=drop_authors)


def _years_on(rec: dict, years: int) -> dict:
    """The same title some years later in the same journal: a later volume, other pages
    (a copy with only the year changed would be a duplicate with a typo in the year)."""
    r2 = dict(rec)
    if str(r2.get("volume", "")).isdigit():
        r2["volume"] = str(int(r2["volume"]) + years)
    if "pages" in r2:
        a, b = r2["pages"]
        r2["pages"] = (a + 50 * years, b + 50 * years)
    return r2


def hard_negative(w: World, rec: dict, key: str) -> str:
    """A different work that looks like ``rec``."""
    rng = w.rng
    kind = rng.choice(["other_authors", "part", "erratum", "edition", "word", "years", "generic"])
    r2 = dict(rec)
    if "doi" in r2:
        r2["doi"] = r2["doi"] + "x"
    if kind == "other_authors":
        taken = {last for last, _ in rec["people"]}
        people: list[tuple[str, str]] = []
        while len(people) < rng.randint(1, 5):
            p = w.person()
            if p[0] not in taken:
                people.append(p)
        r2["people"] = people
        r2["venue"], r2["abbrev"] = rng.choice(w.venues)
        if "pages" in r2:
            a, b = r2["pages"]
            r2["pages"] = (a + 100, b + 100)
        return render(r2, key, year=rec["year"] + rng.choice([0, 0, 1]), rng=rng)
    if kind == "part":
        return render(r2, key, title=rec["title"] + ": Part 2", rng=rng, extra=None) \
            if ": " not in rec["title"] else render(r2, key, title=rec["title"] + " II", rng=rng)
    if kind == "erratum":
        return render(r2, key, title="Erratum: " + rec["title"], rng=rng, doi=None,
                      pages_style="none")
    if kind == "edition":
        if rec["type"] != "book":
            later = rng.choice([3, 5])
            return render(_years_on(r2, later), key, year=rec["year"] + later, rng=rng)
        return render(r2, key, year=rec["year"] + rng.choice([1, 2, 4]), rng=rng,
                      extra={"edition": "2nd"})
    if kind == "word":
        ws = rec["title"].split(" ")
        k = rng.randrange(1, len(ws))
        new = w.word()
        while new in STOP or new.lower() == ws[k].lower():
            new = w.word()
        ws[k] = new
        if "pages" in r2:
            a, b = r2["pages"]
            r2["pages"] = (a + 40, b + 40)
        return render(r2, key, title=" ".join(ws), rng=rng)
    if kind == "years":
        later = rng.choice([3, 4, 6])
        return render(_years_on(r2, later), key, year=rec["year"] + later, rng=rng)
    # generic title by the same editor, same journal and year, other pages
    g = rng.choice(GENERIC)
    r3 = dict(rec, type="article", title=g, people=rec["people"][:1])
    r3.pop("doi", None)
    r3.setdefault("volume", "7")
    a = rng.randint(1, 900)
    r3["pages"] = (a, a + 1)
    return render(r3, key, rng=rng)


def generate(n: int, out: Path, seed: int = 1, dup_rate: float = 0.2,
             neg_rate: float = 0.03) -> Path:
    """Write a library of about ``n`` entries and ``<out>.truth.json`` (clusters)."""
    rng = random.Random(seed)
    w = World(rng, n)
    clusters: list[list[str]] = []
    count = 0
    i = 0
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("% generated by bench/bench_dedupe.py\n\n")
        while count < n:
            rec = base_entry(w, i)
            if rng.random() < 0.01:
                # a generic-title item of its own (editorials are common in real exports)
                rec["title"] = rng.choice(GENERIC)
            fh.write(render(rec, rec["key"], rng=rng) + "\n")
            count += 1
            if rng.random() < dup_rate and rec["title"] not in GENERIC:
                keys = [rec["key"]]
                for d in range(rng.choices([1, 2, 3], [0.8, 0.15, 0.05])[0]):
                    k = f"{rec['key']}d{d}"
                    fh.write(near_duplicate(rec, k, rng) + "\n")
                    keys.append(k)
                    count += 1
                clusters.append(keys)
            if rng.random() < neg_rate and rec["title"] not in GENERIC:
                fh.write(hard_negative(w, rec, f"{rec['key']}n") + "\n")
                count += 1
            i += 1
    truth = out.with_suffix(".truth.json")
    truth.write_text(json.dumps({"clusters": clusters}))
    return truth


# ------------------------------------------------------------------ evaluation
def true_pairs(truth_path: Path) -> set[tuple[str, str]]:
    data = json.loads(truth_path.read_text())
    pairs: set[tuple[str, str]] = set()
    for cl in data.get("clusters", []):
        for a, b in combinations(sorted(cl), 2):
            pairs.add((a, b))
    for a, b in data.get("pairs", []):  # bench/gen_library.py's format
        pairs.add(tuple(sorted((a, b))))  # type: ignore[arg-type]
    return pairs


def group_pairs(groups) -> set[tuple[str, str]]:
    out = set()
    for g in groups:
        for a, b in combinations(sorted(g.keys), 2):
            out.add((a, b))
    return out


def scores(found: set, truth: set) -> dict:
    tp = len(found & truth)
    return {"tp": tp, "fp": len(found - truth), "fn": len(truth - found),
            "precision": tp / len(found) if found else 1.0,
            "recall": tp / len(truth) if truth else 1.0}


def one(lib_path: Path, threshold: float | None, show_errors: int = 0) -> dict:
    """Load, detect, score: one measured run (run as a child so peak memory is its own)."""
    from pubcli import dedupe, store

    t0, c0 = time.perf_counter(), time.process_time()
    lib = store.load(lib_path)
    t1, c1 = time.perf_counter(), time.process_time()
    rss_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    groups = dedupe.find_groups(lib.records, threshold=threshold)
    t2, c2 = time.perf_counter(), time.process_time()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = {"entries": len(lib.records), "load_s": round(t1 - t0, 2),
              "detect_s": round(t2 - t1, 2), "load_cpu_s": round(c1 - c0, 2),
              "detect_cpu_s": round(c2 - c1, 2), "load_avg": os.getloadavg()[0],
              "peak_rss_mb_after_load": rss_load // 1024,
              "peak_rss_mb": rss // 1024, "groups": len(groups)}
    truth = lib_path.with_suffix(".truth.json")
    if truth.exists():
        tp = true_pairs(truth)
        found = group_pairs(groups)
        result.update(scores(found, tp))
        if show_errors:
            by_key = {r.key: r for r in lib.records}
            for kind, pairs in (("FP", sorted(found - tp)), ("FN", sorted(tp - found))):
                for a, b in pairs[:show_errors]:
                    v = dedupe.explain(by_key[a], by_key[b], threshold, records=lib.records)
                    print(f"{kind} {a} / {b}: {v.summary} {v.evidence}", file=sys.stderr)
                    print("   ", by_key[a].fields.get("title"), "|", by_key[a].fields.get("author", "")[:80], by_key[a].fields.get("year"), file=sys.stderr)
                    print("   ", by_key[b].fields.get("title"), "|", by_key[b].fields.get("author", "")[:80], by_key[b].fields.get("year"), file=sys.stderr)
    return result


def lib_for(n: int, seed: int, gen_library: bool) -> Path:
    name = f"{'gl' if gen_library else 'dd'}-{n}-s{seed}.bib"
    path = OUT / name
    if not path.exists():
        if gen_library:
            subprocess.run([sys.executable, str(HERE / "gen_library.py"), str(n), str(path),
                            "--seed", str(seed), "--dups", "0.1", "--truth",
                            str(path.with_suffix(".truth.json"))], check=True)
        else:
            generate(n, path, seed)
    return path


def run(sizes: list[int], threshold: float | None, gen_library: bool, seed: int) -> None:
    rows = []
    for n in sizes:
        path = lib_for(n, seed, gen_library)
        cmd = [sys.executable, __file__, "one", str(path)]
        if threshold is not None:
            cmd += ["--threshold", str(threshold)]
        # first run fills the parse cache, second one is measured warm
        env = dict(os.environ, PUBCLI_CACHE_DIR=str(OUT / "cache"))
        subprocess.run(cmd + ["--quiet"], check=True, env=env, capture_output=True)
        res = json.loads(subprocess.run(cmd, check=True, env=env, capture_output=True,
                                        text=True).stdout)
        res["library"] = path.name
        rows.append(res)
        print(json.dumps(res), flush=True)
    (OUT / f"run-{'gl' if gen_library else 'dd'}.json").write_text(json.dumps(rows, indent=1))


def sweep(lib_path: Path, thresholds: list[float]) -> None:
    """Precision and recall by threshold (match probability, percent), the weights
    estimated once."""
    from pubcli import dedupe, store

    lib = store.load(lib_path)
    tp = true_pairs(lib_path.with_suffix(".truth.json"))
    matcher = dedupe.Matcher(lib.records)
    print(dedupe.model_summary(matcher.model), flush=True)
    for th in thresholds:
        matcher.threshold = th
        found = group_pairs(matcher.groups())
        s = scores(found, tp)
        print(f"threshold {th:5.1f}: precision {s['precision']:.4f} recall {s['recall']:.4f} "
              f"(fp {s['fp']}, fn {s['fn']})", flush=True)


def allpairs(lib_path: Path, threshold: float | None) -> None:
    """Judge every pair whose title passes the blocking cut (no sorted neighbourhood)
    and compare with what blocking finds: the duplicate pairs blocking loses."""
    from rapidfuzz import fuzz, process

    from pubcli import dedupe, store
    from pubcli.dedupe.blocking import BLOCK_CUT

    lib = store.load(lib_path)
    t = time.perf_counter()
    matcher = dedupe.Matcher(lib.records, threshold=threshold)
    feats = matcher.index.feats
    blocked = matcher.pairs()
    cand: set[tuple[int, int]] = set()
    titles = [f.title for f in feats]
    sorted_titles = [f.sorted_title for f in feats]
    for i, f in enumerate(feats):
        for choices, q in ((titles, f.title), (sorted_titles, f.sorted_title)):
            for _, _, j in process.extract(q, choices[i + 1:], scorer=fuzz.ratio,
                                           processor=None, score_cutoff=BLOCK_CUT, limit=None):
                cand.add((i, i + 1 + j))
    cand |= blocked  # the exact keys (identifiers, main titles) are not neighbourhoods
    print(f"all-pairs candidates {len(cand)} vs blocked {len(blocked)} "
          f"({time.perf_counter() - t:.1f} s)", flush=True)
    judged_all = {p for p in cand if matcher.judge(*p).duplicate}
    judged_blk = {p for p in blocked if matcher.judge(*p).duplicate}
    lost = judged_all - judged_blk
    print(f"duplicate pairs: all-pairs {len(judged_all)}, blocking {len(judged_blk)}, "
          f"lost {len(lost)} ({100 * len(lost) / max(1, len(judged_all)):.2f}%)")
    for i, j in sorted(lost)[:10]:
        print("  lost:", feats[i].record.key, feats[j].record.key, "|", feats[i].title, "|",
              feats[j].title)


def devsets(root: Path, repeat: int) -> None:
    """Score every labelled development case under ``root`` (its score.py, running
    ``pubcli dedupe``) and time ``pubcli dedupe --format json`` on it (median wall and
    CPU of ``repeat`` runs). The data stays where it is."""
    for case in sorted(p for p in root.iterdir() if (p / "library.bib").exists()):
        out = subprocess.run([sys.executable, str(root / "score.py"), str(case), "--pubcli"],
                             capture_output=True, text=True, check=True).stdout
        walls, cpus = [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(["pubcli", "dedupe", "-l", str(case / "library.bib"), "--format",
                            "json"], capture_output=True, check=False)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            walls.append(time.perf_counter() - t0)
            cpus.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
        walls.sort()
        cpus.sort()
        print(out.rstrip())
        print(f"  time: median wall {walls[len(walls) // 2]:.2f} s, cpu "
              f"{cpus[len(cpus) // 2]:.2f} s ({repeat} runs, load {os.getloadavg()[0]:.1f})",
              flush=True)


def matches(lib_path: Path, n: int) -> None:
    """The duplicate guard (what `pubcli add`/`import` hold): building it indexes the
    library, each call then judges one candidate. Candidates are copies of random
    entries under a new key."""
    import statistics

    from pubcli import dedupe, store

    lib = store.load(lib_path)
    rng = random.Random(7)
    picks = [rng.choice(lib.records) for _ in range(n + 1)]
    t = time.perf_counter()
    guard = dedupe.Guard(lib.records)
    found = guard.matches(picks[0].copy(key="new-entry"))
    first = time.perf_counter() - t
    times = []
    hits = 0
    for rec in picks[1:]:
        t = time.perf_counter()
        found = guard.matches(rec.copy(key="new-entry"))
        times.append(time.perf_counter() - t)
        hits += any(m.record is rec for m in found)
    print(json.dumps({"entries": len(lib.records), "first_call_s": round(first, 3),
                      "median_call_s": round(statistics.median(times), 4),
                      "max_call_s": round(max(times), 4), "found_itself": f"{hits}/{n}"}))


# ------------------------------------------------------------------ bib-dedupe, side by side
BD_FIELDS = ["ID", "ENTRYTYPE", "title", "author", "year", "journal", "booktitle", "series",
             "volume", "number", "pages", "doi"]


def export_csv(lib_path: Path, out: Path) -> None:
    """The library as bib-dedupe's input table (LaTeX turned into Unicode, as exports are)."""
    import csv

    from pubcli import store
    from pubcli.text.latex import to_text

    lib = store.load(lib_path)
    with open(out, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(BD_FIELDS)
        for r in lib.records:
            row = [r.key, r.type]
            for name in BD_FIELDS[2:]:
                v = r.fields.get(name, "")
                row.append(to_text(v) if name in ("title", "author", "journal", "booktitle")
                           else v)
            w.writerow(row)


def run_bibdedupe(csv_path: Path, out: Path) -> None:
    """Run bib-dedupe (in its own venv: /tmp/bd-venv/bin/python bench/bench_dedupe.py ...)."""
    import pandas as pd
    from bib_dedupe.bib_dedupe import block, cluster, match, prep

    df = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    t0 = time.perf_counter()
    records = prep(df, verbosity_level=0)
    pairs = block(records, verbosity_level=0)
    matched = match(pairs, verbosity_level=0)
    clusters = cluster(matched, verbosity_level=0)
    secs = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    out.write_text(json.dumps({"clusters": [sorted(c) for c in clusters], "seconds": secs,
                               "peak_rss_mb": rss}))
    print(json.dumps({"seconds": round(secs, 2), "peak_rss_mb": rss, "groups": len(clusters)}))


def score_clusters(lib_path: Path, clusters_path: Path) -> None:
    data = json.loads(clusters_path.read_text())
    found = set()
    for cl in data["clusters"]:
        for a, b in combinations(sorted(cl), 2):
            found.add((a, b))
    res = scores(found, true_pairs(lib_path.with_suffix(".truth.json")))
    res.update({k: data[k] for k in ("seconds", "peak_rss_mb") if k in data})
    print(json.dumps(res))


def _child_cpu(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, peak RSS MiB) of one child process, its own."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime, time.perf_counter() - t0, ru.ru_maxrss // 1024


def processes(sizes: list[int], dups: list[float], seeds: list[int], runs: int,
              baseline: Path | None, tidy: str | None, add: bool) -> None:
    """Whole processes as users run them, on bench/gen_library.py's libraries: `pubcli
    dedupe` with the weights and links cached ("warm", a second run on the same file) and
    not ("cold", the first run after a change: the rows and comparisons kept per entry
    text are still there), nor anything but the parse cache ("first": a file never
    seen), optionally a baseline tree's, and
    `bibtex-tidy FILE --no-modify --duplicates` in the same rounds; medians of CPU
    (user + system) and the median of same-round ratios. With ``add``, `pubcli add
    --dry-run` of one new entry (the duplicate guard) after a dedupe."""
    import shutil
    import statistics

    sides = {"new": str(HERE.parent / "src")}
    if baseline is not None:
        sides["base"] = str(baseline / "src" if (baseline / "src" / "pubcli").is_dir()
                            else baseline)
    cache_root = OUT / "proc-cache"
    import compileall

    for src in sides.values():  # as installed: byte code compiled (the environment may
        compileall.compile_dir(src, quiet=1)  # forbid writing it, PYTHONDONTWRITEBYTECODE)
    rows = []
    for n in sizes:
        for d in dups:
            for seed in seeds:
                lib = OUT / f"gl-{n}-d{d}-s{seed}.bib"
                if not lib.exists():
                    OUT.mkdir(exist_ok=True)
                    subprocess.run([sys.executable, str(HERE / "gen_library.py"), str(n),
                                    str(lib), "--seed", str(seed), "--dups", str(d)], check=True)
                res: dict = {"library": lib.name}
                samples: dict[str, list] = {}
                envs = {name: dict(os.environ, PYTHONPATH=src,
                                   PUBCLI_CACHE_DIR=str(cache_root / name))
                        for name, src in sides.items()}
                dedupe = [sys.executable, "-m", "pubcli", "-l", str(lib), "dedupe"]
                adding = [sys.executable, "-m", "pubcli", "-l", str(lib), "add", "--dry-run",
                          "--title", "A study of glacier melt on a new measuring rig",
                          "--author", "Moser, Karin", "--year", "2021", "--venue", "J Glaciol"]
                for name in sides:
                    subprocess.run(dedupe, env=envs[name], capture_output=True)  # parse cache
                for _ in range(runs):
                    for name in sides:
                        samples.setdefault(name + " warm", []).append(_child_cpu(dedupe, envs[name]))
                        if add:
                            samples.setdefault(name + " add", []).append(
                                _child_cpu(adding, envs[name]))
                        for kind in ("weights", "links"):  # what depends on the bytes
                            for w in (cache_root / name).glob(f"{kind}-*"):
                                w.unlink()
                        samples.setdefault(name + " cold", []).append(_child_cpu(dedupe, envs[name]))
                        # and the first run on a file never seen: no per-entry rows or
                        # per-pair comparisons kept either, nor blocking (only the parse cache)
                        for kind in ("weights", "links", "entries", "pairs", "library",
                                     "blocks", "blockbase"):
                            for w in (cache_root / name).glob(f"{kind}-*"):
                                w.unlink()
                        samples.setdefault(name + " first", []).append(
                            _child_cpu(dedupe, envs[name]))
                    if tidy:
                        copy = OUT / "tidy-input.bib"
                        shutil.copyfile(lib, copy)
                        samples.setdefault("tidy", []).append(
                            _child_cpu([tidy, str(copy), "--no-modify", "--duplicates"]))
                for name, got in samples.items():
                    res[name + " cpu"] = round(statistics.median(x[0] for x in got), 2)
                    res[name + " rss"] = max(x[2] for x in got)
                    if tidy and name != "tidy":
                        res[name + " / tidy"] = round(statistics.median(
                            a[0] / b[0] for a, b in zip(got, samples["tidy"], strict=False)), 3)
                rows.append(res)
                print(json.dumps(res), flush=True)
    (OUT / "processes.json").write_text(json.dumps(rows, indent=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("n", type=int)
    g.add_argument("out", type=Path)
    g.add_argument("--seed", type=int, default=1)
    r = sub.add_parser("run")
    r.add_argument("sizes", type=int, nargs="+")
    r.add_argument("--threshold", type=float)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--gen-library", action="store_true",
                   help="use bench/gen_library.py's libraries instead of this generator")
    s = sub.add_parser("sweep")
    s.add_argument("lib", type=Path)
    s.add_argument("--thresholds", type=float, nargs="+",
                   default=[50, 70, 80, 90, 95, 96, 97, 98, 99, 99.5])
    dv = sub.add_parser("devsets")
    dv.add_argument("root", type=Path)
    dv.add_argument("--repeat", type=int, default=5)
    a = sub.add_parser("allpairs")
    a.add_argument("lib", type=Path)
    a.add_argument("--threshold", type=float)
    m = sub.add_parser("matches")
    m.add_argument("lib", type=Path)
    m.add_argument("-n", type=int, default=50)
    e = sub.add_parser("export-csv")
    e.add_argument("lib", type=Path)
    e.add_argument("out", type=Path)
    b = sub.add_parser("run-bibdedupe")
    b.add_argument("csv", type=Path)
    b.add_argument("out", type=Path)
    sc = sub.add_parser("score")
    sc.add_argument("lib", type=Path)
    sc.add_argument("clusters", type=Path)
    o = sub.add_parser("one")
    o.add_argument("lib", type=Path)
    o.add_argument("--threshold", type=float)
    o.add_argument("--quiet", action="store_true")
    o.add_argument("--errors", type=int, default=0, help="explain this many FP and FN pairs")
    pr = sub.add_parser("processes")
    pr.add_argument("sizes", type=int, nargs="+")
    pr.add_argument("--dups", type=float, nargs="+", default=[0.05, 0.1])
    pr.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    pr.add_argument("--runs", type=int, default=3)
    pr.add_argument("--baseline", type=Path, help="another source tree, measured alike")
    pr.add_argument("--tidy", help="the bibtex-tidy executable (npm), measured alike")
    pr.add_argument("--add", action="store_true", help="also time `pubcli add --dry-run`")
    args = ap.parse_args()
    if args.cmd == "processes":
        processes(args.sizes, args.dups, args.seeds, args.runs, args.baseline, args.tidy,
                  args.add)
    elif args.cmd == "gen":
        print(generate(args.n, args.out, args.seed))
    elif args.cmd == "run":
        run(args.sizes, args.threshold, args.gen_library, args.seed)
    elif args.cmd == "sweep":
        sweep(args.lib, args.thresholds)
    elif args.cmd == "allpairs":
        allpairs(args.lib, args.threshold)
    elif args.cmd == "devsets":
        devsets(args.root, args.repeat)
    elif args.cmd == "matches":
        matches(args.lib, args.n)
    elif args.cmd == "export-csv":
        export_csv(args.lib, args.out)
    elif args.cmd == "run-bibdedupe":
        run_bibdedupe(args.csv, args.out)
    elif args.cmd == "score":
        score_clusters(args.lib, args.clusters)
    else:
        res = one(args.lib, args.threshold, args.errors)
        if not args.quiet:
            print(json.dumps(res))


if __name__ == "__main__":
    main()
