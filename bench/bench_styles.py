"""How many of pubcli's styled references equal pandoc --citeproc reading the .bib itself.

    python bench/bench_styles.py [--style apa ...] [--max-entries 500] [--diff N]
                                 [--texlive K] [--sample-seed S] [BIB ...]
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
class (WHYS: the test, and why one side is right); the table per style gives
count, one example and the reason, and the agreement is printed again without the
classes where pandoc misreads the .bib. --texlive K adds up to K entries of each
common type from every TeX Live bibliography (bench/corpus.py fetches them).
pandoc's references are cached in bench/out/pandoc-refs (they depend on the file,
the style and pandoc only); PUBCLI_PANDOC=... picks the pandoc (the styles extra's
is 3.x; Debian's 2.17 formats Chicago some 30 times slower).

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
import unicodedata
from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
sys.path.insert(0, str(ROOT / "src"))

from pubcli import store  # noqa: E402
from pubcli.errors import PubcliError  # noqa: E402
from pubcli.exporters import csl, csltables, pandoc  # noqa: E402
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


def texlive_sample(per_type: int, seed: int, skip: set[Path]) -> list[Path]:
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
    for src in corpus.fetch(OUT / "corpus"):
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


# ---------------------------------------------------------------- why references differ
class Why(NamedTuple):
    """A class of differences: its name, the test that puts a difference in it (the
    record as pubcli read it, pandoc's text, pubcli's), the reason one side is right,
    and whether pandoc misreads the .bib there (True) or pubcli differs (False)."""

    name: str
    test: Callable[[Any, str, str], bool]
    reason: str
    pandoc_misreads: bool


_SUFFIX = re.compile(r"(?<=\d{4})[a-z](?=[).,;:\s])|(?<=n\.d\.)-[a-z](?=[).,;:\s])")
_MONTH_WORD = re.compile(r"\b(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|"
                         r"July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|"
                         r"Dec(?:ember)?)\b")


_RAW_TEX = re.compile(r"\\[A-Za-z]|``|''|[{}]|\d--\d")


def _only_added(want: str, got: str) -> bool:
    """Whether pubcli's text is pandoc's with characters added (none taken away)."""
    import difflib

    # in any case: a title-casing style capitalises the word after what pandoc dropped
    ops = difflib.SequenceMatcher(None, want.lower(), got.lower(), autojunk=False).get_opcodes()
    # (where pandoc keeps the space after a command, TeX's own rule eats it)
    return all(op in ("equal", "insert") or (op == "replace" and not want[i:j].strip())
               for op, i, j, _, _ in ops)


def _composed(text: str) -> str:
    """NFC, with a dotless i and an accent as the accented i they print as."""
    text = re.sub("\u0131(?=[\u0300-\u036f])", "i", unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFC", text)


def _only_given_names(rec, want: str, got: str) -> bool:
    """Whether the words pandoc has and pubcli lacks are all given names of the entry."""
    given = {g for role in ("author", "editor", "translator", "bookauthor")
             for n in csl.names(rec.fields.get(role)) for g in n.get("given", "").split()}
    lacking = set(want.split()) - set(got.split())
    return bool(lacking) and all(w.strip(".,;:()") in given for w in lacking)


def _fields(rec, *names: str) -> str:
    return " ".join(rec.fields.get(n, "") for n in names)


def _people(rec) -> str:
    return _fields(rec, "author", "editor", "translator", "bookauthor")


WHYS: tuple[Why, ...] = (
    Why("crossref", lambda r, w, g: bool(r.fields.get("crossref") or r.fields.get("xdata")),
        "BibTeX copies every field an entry lacks from its crossref parent (btxdoc, "
        "'Cross-referencing'); biblatex does too, renaming titles; pandoc inherits "
        "only some fields or none, so its reference lacks the journal, book or publisher",
        True),
    Why("year suffix only", lambda r, w, g: w == g,
        "the texts are the same but for a year suffix (2010a): another reference of the "
        "same author and year reads differently (crossref, a date), and disambiguation "
        "counts the whole bibliography", True),
    Why("TeX left raw by pandoc",
        lambda r, w, g: bool(_RAW_TEX.search(w)) and not _RAW_TEX.search(g),
        "pandoc prints TeX it does not read as text (\\noopsort, \\unskip, ``quotes'', "
        "--, {braces} of a type field); BibTeX typesets it: pubcli prints what TeX "
        "prints", True),
    Why("DOI written as a URL", lambda r, w, g: bool(re.match(
        r"(?i)\s*(?:https?://|doi:)", r.fields.get("doi", ""))),
        "doi = {https://doi.org/10...}: the DOI is the part after the resolver "
        "(schema.values.parse_doi); pandoc puts the resolver in front a second time", True),
    Why("Unicode composition", lambda r, w, g: _composed(w) == _composed(g),
        "the same characters, composed differently ({\\'\\i} is one í to pubcli, "
        "a dotless i and a combining accent to pandoc): they print alike", True),
    Why("upper-case AND between names", lambda r, w, g: bool(re.search(r"\sAND\s", _people(r))),
        "BibTeX and biber split name lists at 'and' in any case (AND, And); pandoc only "
        "at lower-case 'and', so it reads two people as one", True),
    Why("biblatex subtitle fields", lambda r, w, g: bool(_fields(r, "booksubtitle",
        "mainsubtitle", "journalsubtitle", "booktitleaddon", "maintitleaddon").strip()),
        "biblatex prints booksubtitle, mainsubtitle, journalsubtitle and the title "
        "addons after their titles; pandoc drops them", True),
    Why("argument of a TeX command dropped by pandoc",
        lambda r, w, g: _only_added(w, g) and bool(re.search(r"\\(?:mbox|hbox|BibTeX|TeX|LaTeX|METAFONT|MF|"
                                       r"AMS|emdash|endash|textemdash|---)",
                                       _fields(r, "title", "journal", "booktitle",
                                               "howpublished", "note", "series",
                                               "publisher"))),
        "\\mbox{G-Animal's} prints its argument and \\BibTeX, \\METAFONT, \\TeX print "
        "their logos' letters; pandoc drops what such commands print", True),
    Why("issue field", lambda r, w, g: bool(r.fields.get("issue")) and not r.fields.get("number"),
        "biblatex's issue (an article's issue) is CSL's issue; pandoc drops it", True),
    Why("language of a non-English work",
        lambda r, w, g: bool(csl.language(r)) and not csl.language(r).startswith("en")
        and w.lower() == g.lower(),
        "the entry's langid/hyphenation/language names another language: CSL changes "
        "the case of English titles only (CSL 1.0.2, 'Text-case'), so pubcli passes the "
        "language and keeps the case (German nouns stay capitalised); pandoc takes a "
        "language field as English", True),
    Why("biblatex localisation key", lambda r, w, g: (w.lower() == g.lower() and (
        r.fields.get("series", "").strip().lower() in csltables.SERIES_STRINGS
        or r.fields.get("type", "").strip().lower() in csltables.BIBSTRINGS))
        or ("country" in r.fields.get("location", "").lower() and _only_added(w, g)),
        "series = {newseries}, location = {countryfr}: biblatex prints its English "
        "strings ('new series' in lower case inside a sentence, 'France'); pandoc "
        "capitalises the one and drops the other", True),
    Why("———: another reference before", lambda r, w, g: w.startswith("———")
        != g.startswith("———"),
        "MLA's ——— stands for the author of the reference before: where another "
        "reference of the author reads differently (\\BibTeX in its title), the order "
        "and so the ——— change", True),
    Why("emphasis inside an italic title", lambda r, w, g: "<em><em>" in w
        or bool(re.search(r"<em>[^<]*<em>", w)),
        "\\emph inside an italic title turns upright, as LaTeX's \\emph and CSL's "
        "flip-flop formatting do; pandoc nests one italic in another, which shows "
        "nothing", True),
    Why("text of a TeX command dropped by pandoc", lambda r, w, g: _only_added(w, g)
        and bool(re.search(r"\\[A-Za-z]{2,}", _fields(r, "title", "journal", "booktitle",
                                                      "howpublished", "note", "series",
                                                      "publisher", "address", "type"))),
        "pubcli's reference holds pandoc's and more, and the entry uses a TeX command "
        "(\\PS, \\MP, \\EPIC, a logo defined in @preamble): BibTeX prints what the "
        "command prints, pandoc drops it", True),
    Why("month pandoc cannot read", lambda r, w, g: bool(r.fields.get("month")) and
        not re.fullmatch(r"\s*(?:\d{1,2}|[A-Za-z]{3})\s*", r.fields["month"])
        and _only_added(w, g) and bool(_MONTH_WORD.search(g)) and not _MONTH_WORD.search(w),
        "month = \"November\", nov # \", \" # dec, sep # \"/\" # oct: BibTeX prints the "
        "month as written; pandoc reads only a lone macro or number and drops the month; "
        "pubcli reads the (first) month", True),
    Why("initial of a braced letter",
        lambda r, w, g: bool(re.search(r"(?:^|[\s,{])\{\\", _people(r)))
        and _only_given_names(r, w, g),
        "BibTeX abbreviates {\\'E}douard to {\\'E}. (a braced special character is one "
        "letter, btxdoc 'Names'); pandoc keeps the given name whole", True),
    Why("Master's thesis", lambda r, w, g: "Master's" in w and "Master\u2019s" in g,
        "TeX typesets ' as a closing quote (’): pandoc's default genre keeps a straight "
        "apostrophe", True),
    Why("arXiv preprint", lambda r, w, g: bool(csl.arxiv_id(r)) and (
        ("arXiv:" in g and "arXiv:" not in w) or ("arxiv.org" in g and "arxiv.org" not in w)),
        "an arXiv preprint is mapped as Zotero maps one (publisher arXiv, number "
        "arXiv:ID, from eprint/archiveprefix or the URL); pandoc ignores eprint", True),
    Why("biblatex punctuation command", lambda r, w, g: bool(re.search(
        r"\\(?:psq|psqq|adddot|addcomma|addspace|addcolon|addsemicolon|addperiod)\b",
        " ".join(r.fields.values()))),
        "pubcli is wrong: biblatex's \\psq (et seq.) and \\adddot are read as their "
        "letters (98psq, Westfadddot); the rule belongs to pubcli.text.latex", False),
    Why("parenthesised full name", lambda r, w, g: bool(re.search(r"\(", _people(r))),
        "both are wrong: an author written 'Goudy, Frederic W. (Frederic William)' is no "
        "BibTeX name; pandoc and pubcli split it differently", False),
    Why("sentence case after an abbreviation", lambda r, w, g: w.lower() == g.lower()
        and not r.fields.get("langid"),
        "pubcli differs: pandoc's sentence case lowers or keeps a capitalised word after "
        "an abbreviation ('Proc. Int. Conf. commun.', 'donald E. knuth') by a rule "
        "pubcli.exporters.cslmarkup does not follow yet; the title as written is kept "
        "by BibTeX", False),
    Why("url pubcli does not link",
        lambda r, w, g: bool(r.fields.get("url")) and _only_added(g, w),
        "pubcli differs by choice: its CSL-JSON and page carry only an http(s) address "
        "without spaces, percent-encoded (schema.values.web_link: ftp:, mailto:, file:, "
        "two URLs in one field, 'url = {-}' are left out); pandoc prints any url field", False),
)


def why(rec, want: str, got: str) -> Why | None:
    """The first class whose test the difference passes, else None (unexplained). Year
    suffixes are set aside first: they differ whenever another reference of the same
    author and year does."""
    want, got = _SUFFIX.sub("", want), _SUFFIX.sub("", got)
    for w in WHYS:
        if w.test(rec, want, got):
            return w
    return None


def why_table(name: str, diffs: list[tuple]) -> dict:
    """The differences of one style by class: count, one example, the reason."""
    table: dict[str, dict] = {}
    for f, rec, want, got in diffs:
        w = why(rec, want, got)
        label = w.name if w else "unexplained"
        row = table.setdefault(label, {"count": 0, "pandoc_misreads": bool(w and w.pandoc_misreads),
                                       "reason": w.reason if w else "",
                                       "example": {"file": f, "key": rec.key,
                                                   "pandoc": want, "pubcli": got}})
        row["count"] += 1
    return table


def print_why_table(name: str, table: dict) -> None:
    print(f"  {name}: differences by class")
    for label, row in sorted(table.items(), key=lambda kv: -kv[1]["count"]):
        ex = row["example"]
        side = "pandoc misreads" if row["pandoc_misreads"] else "pubcli differs"
        print(f"    {row['count']:4}  {label} ({side}): {row['reason']}")
        print(f"          e.g. {Path(ex['file']).name} {ex['key']}\n"
              f"            pandoc: {ex['pandoc'][:160]}\n            pubcli: {ex['pubcli'][:160]}")


def agreement(files: list[Path], styles: list[str], show: int) -> dict:
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
    ap.add_argument("--texlive", type=int, default=0, metavar="K",
                    help="also measure up to K sampled entries of each common type from "
                         "every TeX Live bibliography (bench/corpus.py fetches them)")
    ap.add_argument("--sample-seed", type=int, default=1)
    ap.add_argument("--timing", type=int, nargs="*", metavar="N",
                    help="time styled exports of generated libraries of N entries "
                         "(e.g. --timing 200 10000) instead of measuring agreement")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, action="append")
    args = ap.parse_args()
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
        files += texlive_sample(args.texlive, args.sample_seed, set(files))
    print(f"{len(files)} files")
    result = agreement(files, args.style or list(STYLES), args.diff)
    OUT.mkdir(exist_ok=True)
    (OUT / "styles.json").write_text(json.dumps({"pandoc": version, "styles": result},
                                                ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
