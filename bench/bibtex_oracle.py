"""pubcli's reading and writing against BibTeX's own (issue 18), with the real ``bibtex``
program as the judge (``tests/bibtex_oracle.py``).

    python bench/bibtex_oracle.py [--cache bench/out/corpus] [--generated 10000]
                                  [--seed 1] [--per-doc 20] [--edits 3] [--examples 10]
                                  [--only SUBSTRING] [--json bench/out/bibtex_oracle.json]

* Reading, over every .bib of the four Debian TeX Live packages (fetched by
  ``bench/corpus.py``) and over ``--generated`` adversarial entries (seeded, in documents of
  ``--per-doc`` entries): entries pubcli reads differently from BibTeX, by category
  (``READ_DIFFERENTLY`` of the oracle), files affected, examples; apart, entries pubcli keeps
  unread, undefined macros and repeated keys (not misreadings).
* Editing: for ``--edits`` entries of each file and document (seeded sample of the entries
  pubcli can edit: not read-only, key used once), a note and a changed title written
  through ``pubcli.store.transaction`` (as ``bench/corpus.py`` edits) must leave BibTeX's
  reading of every other entry as it was, and BibTeX must read the edited entry as meant.

Prints a table and writes the figures, with examples, as JSON. One bibtex run reads a
whole file; whole process, wall and CPU time are printed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from tests import bibtex_oracle as oracle  # noqa: E402


# ---------------------------------------------------------------- the generator
# The constructs of tests/test_bibtex_oracle.py's hypothesis generator, drawn from a seeded
# random.Random: values balanced by BibTeX's count (every brace counts) with \{ \}, {"},
# '@', '%', '#', '"' (in quoted values only inside braces), concatenation, @string and
# month macros, parentheses, '{' on the next line, keys with '=' ':' "'" and more, text
# and @comment between entries.
TEXT_ATOMS = ["Deep", " ", "learning", "caf\u00e9", "50\\%", "100%", "a@b.org", "@", "#",
              "C#", "\\", "\\\\", "\\&", "x=y", "(", ")", ",", "'", "~", "$x^2$", "\\'e", "\n",
              "  ", "\t", "A,B", "Widgets", "of", "the"]
MONTHS = ["jan", "Feb", "MAR", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
FIELDS = ["title", "Author", "JOURNAL", "year", "note", "booktitle", "pages", "x-custom",
          "url", "month", "keywords", "abstract"]
TYPES = ["article", "Article", "INPROCEEDINGS", "book", "misc", "techreport", "FAKE-ENTRY",
         "online"]
BETWEEN = ["\n", "\n\n", "\n% a comment with 100% of it\n", "\nfree text, no entry here\n",
           "\n@comment{ a remark }\n", "\nContact: jane@example.org\n", "\n% @misc{ghost}\n"]
WS = ["", " ", "\n", "  ", "\t", "\n  "]
KEY_SEPS = [":", "_", ".", "/", "+", "=", "'", "-", ""]


def _body(rng: random.Random, quoted: bool, depth: int = 0) -> str:
    out = []
    for _ in range(rng.randint(0, 6)):
        r = rng.random()
        if depth < 3 and r < 0.25:
            inner = _body(rng, quoted, depth + 1)
            out.append(rng.choice(["{" + inner + "}", "\\{" + inner + "\\}", "{\\" + inner + "}",
                                   '{"' + inner + '"}', '{"}', '{\\"o}', '{\\"u}']))
        elif not quoted and r < 0.3:
            out.append(rng.choice(['"', '\\"']))
        else:
            out.append(rng.choice(TEXT_ATOMS))
    return "".join(out)


def _token(rng: random.Random, defined: list[str]) -> str:
    r = rng.random()
    if r < 0.45:
        return "{" + _body(rng, False) + "}"
    if r < 0.8:
        return '"' + _body(rng, True) + '"'
    if r < 0.9:
        return str(rng.randint(0, 3000))
    return rng.choice(MONTHS + defined)


def _value(rng: random.Random, defined: list[str]) -> str:
    parts = [_token(rng, defined) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
    return "".join(p if i == 0 else rng.choice(WS) + "#" + rng.choice(WS) + p
                   for i, p in enumerate(parts))


def _key(rng: random.Random, n: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    key = rng.choice(letters) + "".join(rng.choice(letters + "0123456789")
                                        for _ in range(rng.randint(0, 6)))
    if rng.random() < 0.4:
        key += rng.choice(KEY_SEPS) + rng.choice(letters) + str(rng.randint(0, 99))
    return f"{key}{n}"  # unique in its document


def _entry(rng: random.Random, key: str, defined: list[str]) -> str:
    opening, closing = ("(", ")") if rng.random() < 0.25 else ("{", "}")
    names = rng.sample(FIELDS, rng.randint(0, 5))
    fields = [f"{rng.choice(WS)}{n}{rng.choice(WS)}={rng.choice(WS)}{_value(rng, defined)}"
              for n in names]
    sep = "," + rng.choice(["\n  ", " ", "\n"])
    trailing = rng.choice(["", ",", ",\n"]) if fields else ""
    head = rng.choice(["", "", "", " ", "\n"])
    # a key in "(" entries ends at white space or a comma only: "(key)" has key "key)"
    end = rng.choice(WS) if fields or opening == "{" else rng.choice(WS[1:])
    return (f"@{rng.choice(TYPES)}{head}{opening}{rng.choice(WS)}{key}"
            + (sep + sep.join(fields) if fields else "") + trailing + end + closing)


def generate(rng: random.Random, entries: int) -> str:
    """A document of ``entries`` adversarial entries (keys unique, any case)."""
    out: list[str] = []
    defined: list[str] = []
    for n in range(entries):
        if rng.random() < 0.15:
            name = rng.choice(["ieee", "acm", "jcss"])
            out.append(f"@string{{{name} = {_value(rng, defined)}}}\n")
            defined.append(name)
        if rng.random() < 0.05:
            out.append('@preamble{ "\\newcommand{\\noop}[1]{}" }\n')
        out.append(_entry(rng, _key(rng, n), defined))
        out.append(rng.choice(BETWEEN))
    return "".join(out)


# ---------------------------------------------------------------- reading
def read_check(text: str) -> dict:
    from pubcli import bibtex

    got, parsed = oracle.read(text), bibtex.parse(text)
    diffs = oracle.compare_readings(text, got, parsed)
    mis = oracle.misread(diffs)
    entries = {(d.key.lower(), d.line) for d in mis}
    return {"oracle": got, "parsed": parsed, "diffs": diffs, "misread": mis,
            "misread_entries": len(entries), "categories": oracle.summary(diffs),
            "entries_bibtex": len(got.entries), "entries_pubcli": len(parsed.records)}


# ---------------------------------------------------------------- editing
def edit_check(text: str, read: dict, rng: random.Random, edits: int, misread: int,
               tmp: Path) -> list[dict]:
    """Edit ``edits`` sampled entries and up to ``misread`` of those pubcli reads
    differently from BibTeX, one at a time on a fresh copy of ``text``, through
    store.transaction; what BibTeX reads before (``read``, of read_check) and after."""
    from pubcli import store
    from pubcli.errors import PubcliError

    parsed, before = read["parsed"], read["oracle"]
    counts = Counter(r.key.lower() for r in parsed.records)
    editable = [r for r in parsed.records if not r.source.read_only and counts[r.key.lower()] == 1]
    if not editable:
        return []
    out = []
    wrong = {(d.key, d.line) for d in read["misread"]}
    risky = [r for r in editable if (r.key, r.line) in wrong]
    chosen = [(r, False) for r in rng.sample(editable, min(edits, len(editable)))]
    chosen += [(r, True) for r in rng.sample(risky, min(misread, len(risky)))]
    for rec, is_misread in chosen:
        copy = tmp / "library.bib"
        copy.write_bytes(text.encode("utf-8"))
        fields = dict(rec.fields)
        fields["note"] = "Checked by pubcli's oracle run: 50% {sure} @home"
        fields["title"] = fields.get("title", "Untitled") + " (edited)"
        try:
            with store.transaction(copy) as lib:
                (target,) = [r for r in lib.records if r.key == rec.key]
                lib.replace(target, target.copy(fields=fields))
        except PubcliError as e:
            out.append({"key": rec.key, "line": rec.line, "misread": is_misread,
                        "refused": str(e)[:200]})
            continue
        after = oracle.read(copy.read_text(encoding="utf-8"))
        outside = oracle.untouched_changes(before, after, [rec.key])
        got = after.by_key().get(rec.key.lower())
        was = before.by_key().get(rec.key.lower())
        # meant: the fields BibTeX read before, with the two the edit set
        want = None if was is None else {**was.fields, "note": oracle.compress(fields["note"]),
                                         "title": oracle.compress(fields["title"])}
        as_meant = None if want is None else (got is not None and got.fields == want)
        out.append({"key": rec.key, "line": rec.line, "misread": is_misread, "refused": None,
                    "outside_changed": outside[:5], "as_meant": as_meant,
                    "read": None if got is None else got.fields, "meant": want})
    return out


# ---------------------------------------------------------------- main
def _tally(into: dict, r: dict) -> None:
    into["entries_bibtex"] += r["entries_bibtex"]
    into["entries_pubcli"] += r["entries_pubcli"]
    into["entries_read_differently"] += r["misread_entries"]
    into["files_affected"] += 1 if r["misread"] else 0
    for cat, n in r["categories"].items():
        into["categories"][cat] = into["categories"].get(cat, 0) + n


def _edit_tally(into: dict, results: list[dict], where: str, examples: list) -> None:
    for e in results:
        into["edits"] += 1
        into["edits_of_misread_entries"] += e["misread"]
        if e["refused"]:
            into["edits_refused"] += 1
            continue
        if e["outside_changed"]:
            into["edits_changed_outside"] += 1
            into["edits_of_misread_entries_changed_outside"] += e["misread"]
            examples.append({"where": where, "key": e["key"], "line": e["line"],
                             "outside": e["outside_changed"]})
        if e["as_meant"] is None:
            into["edits_of_entries_bibtex_does_not_read"] += 1
        elif not e["as_meant"]:
            into["edits_not_as_meant"] += 1
            examples.append({"where": where, "key": e["key"], "line": e["line"],
                             "read": e["read"], "meant": e["meant"]})


def _new_tally(**extra) -> dict:
    return {**extra, "entries_bibtex": 0, "entries_pubcli": 0, "entries_read_differently": 0,
            "files_affected": 0, "categories": {}, "edits": 0, "edits_refused": 0,
            "edits_changed_outside": 0, "edits_not_as_meant": 0,
            "edits_of_entries_bibtex_does_not_read": 0, "edits_of_misread_entries": 0,
            "edits_of_misread_entries_changed_outside": 0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, default=HERE / "out" / "corpus")
    ap.add_argument("--json", type=Path, default=HERE / "out" / "bibtex_oracle.json")
    ap.add_argument("--generated", type=int, default=10_000, help="adversarial entries")
    ap.add_argument("--per-doc", type=int, default=20, help="generated entries per document")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--edits", type=int, default=3, help="edits per file and document")
    ap.add_argument("--edits-misread", type=int, default=10,
                    help="edits of entries pubcli misreads, per file and document")
    ap.add_argument("--only", help="only corpus files whose path contains this")
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--examples", type=int, default=10)
    args = ap.parse_args()
    if not oracle.available():
        sys.exit("error: the bibtex program is not installed (apt-get install texlive-binaries)")
    os.environ.setdefault("PUBCLI_CACHE_DIR", tempfile.mkdtemp(prefix="pubcli-oracle-cache-"))

    from corpus import fetch

    from pubcli import store
    from pubcli.errors import PubcliError

    t0, c0 = time.perf_counter(), time.process_time()
    rng = random.Random(args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="pubcli-oracle-"))
    corpus = _new_tally(files=0, files_refused=0, entries_in_refused_files=0)
    per_file: dict[str, dict] = {}
    gen = _new_tally(documents=0)
    read_examples: dict[str, list] = {"corpus": [], "generated": []}
    edit_examples: dict[str, list] = {"corpus": [], "generated": []}
    refused: list[str] = []
    affected: dict[str, int] = {}

    files = [] if args.no_corpus else fetch(args.cache)
    if args.only:
        files = [p for p in files if args.only in str(p)]
    for i, path in enumerate(files, 1):
        rel = path.relative_to(args.cache).as_posix()
        print(f"[{i}/{len(files)}] {rel}", file=sys.stderr)
        corpus["files"] += 1
        try:
            text = store.decode(path.read_bytes(), path)[0]
        except PubcliError as e:
            corpus["files_refused"] += 1
            n = len(oracle.read(path.read_bytes().decode("latin-1")).entries)
            corpus["entries_in_refused_files"] += n
            refused.append(f"{rel}: {n} entries: {str(e).split(': ', 1)[-1][:100]}")
            continue
        r = read_check(text)
        _tally(corpus, r)
        per_file[rel] = {"bibtex": r["entries_bibtex"], "pubcli": r["entries_pubcli"],
                         "misread": r["misread_entries"], **r["categories"]}
        if r["misread"]:
            affected[rel] = r["misread_entries"]
        read_examples["corpus"] += [{"file": rel, **_diff(d)} for d in r["misread"][:3]]
        _edit_tally(corpus, edit_check(text, r, rng, args.edits, args.edits_misread, tmp), rel, edit_examples["corpus"])

    done = 0
    while done < args.generated:
        n = min(args.per_doc, args.generated - done)
        doc = generate(rng, n)
        done += n
        gen["documents"] += 1
        r = read_check(doc)
        gen["entries_generated"] = done
        _tally(gen, r)
        read_examples["generated"] += [{"doc": gen["documents"], **_diff(d),
                                        "text": _around(doc, d.line)} for d in r["misread"][:1]]
        _edit_tally(gen, edit_check(doc, r, rng, args.edits, args.edits_misread, tmp), f"doc {gen['documents']}",
                    edit_examples["generated"])
    shutil.rmtree(tmp, ignore_errors=True)

    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    _print(corpus, gen, affected, refused, read_examples, edit_examples, args.examples)
    print(f"\nwall {wall:.1f} s, CPU {cpu:.1f} s (this process; bibtex runs are child processes)")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({
        "args": {k: str(v) for k, v in vars(args).items()},
        "corpus": corpus, "generated": gen, "files_affected": affected, "refused": refused,
        "per_file": per_file,
        "read_examples": read_examples, "edit_examples": edit_examples,
        "seconds": round(wall, 1)}, indent=1, ensure_ascii=False))


def _diff(d) -> dict:
    return {"category": d.category, "line": d.line, "key": d.key, "field": d.field,
            "bibtex": None if d.bibtex is None else d.bibtex[:300],
            "pubcli": None if d.pubcli is None else d.pubcli[:300]}


def _around(text: str, line: int) -> str:
    lines = text.split("\n")
    return "\n".join(lines[max(0, line - 1):line + 5])[:600]


def _print(corpus, gen, affected, refused, read_examples, edit_examples, k) -> None:
    rows = [("entries BibTeX reads", "entries_bibtex"), ("records pubcli reads", "entries_pubcli"),
            ("entries read differently", "entries_read_differently"),
            ("files / documents affected", "files_affected"),
            ("edits", "edits"), ("  of them of entries pubcli misreads", "edits_of_misread_entries"),
            ("edits refused (nothing written)", "edits_refused"),
            ("edits that changed BibTeX's reading outside the entry", "edits_changed_outside"),
            ("  of them edits of misread entries", "edits_of_misread_entries_changed_outside"),
            ("edits BibTeX does not read as meant", "edits_not_as_meant"),
            ("edits of an entry BibTeX does not read", "edits_of_entries_bibtex_does_not_read")]
    print(f"\n{'':58} {'TeX Live':>10} {'generated':>10}")
    print(f"{'files / documents':58} {corpus['files']:>10} {gen['documents']:>10}")
    for label, key in rows:
        print(f"{label:58} {corpus[key]:>10} {gen[key]:>10}")
    print("\ndifferences by category (rows of the oracle's compare):")
    cats = list(oracle.READ_DIFFERENTLY) + list(oracle.NOT_MISREAD)
    for cat in cats:
        a, b = corpus["categories"].get(cat, 0), gen["categories"].get(cat, 0)
        mark = "  (misread)" if cat in oracle.READ_DIFFERENTLY else ""
        print(f"  {cat:56} {a:>10} {b:>10}{mark}")
    if affected:
        print(f"\nfiles with entries read differently: {len(affected)}")
        for f, n in sorted(affected.items(), key=lambda x: -x[1]):
            print(f"  {n:5}  {f}")
    if refused:
        print(f"\nfiles pubcli refuses whole (kept unread; {corpus['entries_in_refused_files']} "
              f"entries BibTeX reads in them): {len(refused)}")
        for x in refused[:k]:
            print(f"  {x}")
    for where in ("corpus", "generated"):
        ex = read_examples[where]
        if ex:
            print(f"\nexamples read differently ({where}):")
            for x in ex[:k]:
                print(f"  {x.get('file', 'doc ' + str(x.get('doc')))}:{x['line']} {x['key']} "
                      f"{x['field'] or ''} [{x['category']}]\n"
                      f"    bibtex {str(x['bibtex'])[:150]!r}\n    pubcli {str(x['pubcli'])[:150]!r}")
        ex = edit_examples[where]
        if ex:
            print(f"\nexamples of edits gone wrong ({where}):")
            for x in ex[:k]:
                print(f"  {x['where']}:{x['line']} {x['key']}: "
                      + (f"outside: {x['outside'][:2]}" if "outside" in x
                         else f"read {str(x['read'])[:200]} / meant {str(x['meant'])[:200]}"))


if __name__ == "__main__":
    main()
