"""Generate a synthetic BibTeX library for benchmarks.

    python bench/gen_library.py N OUT.bib [--seed S] [--dups FRACTION --truth TRUTH.json]

The library mixes what real files hold: @string macros used in fields, LaTeX
accents and case-protecting braces, long author lists, comments, several entry
types and the `keywords` research areas pubcli uses. With --dups, a fraction of
entries get a near-duplicate (typo, dropped subtitle, reordered words, other
author form, arXiv version) and TRUTH.json lists the duplicate key pairs.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

WORDS = (
    "learning deep neural network model training inference memory graph scalable "
    "distributed parallel efficient optimization system hardware compiler language "
    "program analysis dynamic static verification secure privacy attention transformer "
    "quantum cache scheduling storage network wireless mobile vision image segmentation "
    "retrieval language reinforcement robust adversarial federated sparse dense kernel "
    "accelerator gpu cluster cloud serverless energy latency throughput benchmark dataset "
    "probabilistic bayesian causal embedding representation contrastive generative "
    "diffusion multimodal speech translation summarization question answering reasoning"
).split()
ACRONYMS = ["GPU", "CNN", "LLM", "RDMA", "FPGA", "SQL", "HPC", "NLP", "BERT", "ZeRO"]
FIRST = ["Ana", "Björn", "Chen", "Dmitri", "Élodie", "Fatima", "Guo", "Hiro", "Ines", "José",
         "Kalin", "Lena", "Müge", "Nikos", "Olatunji", "Priya", "Qiang", "Raúl", "Sören", "Tanvi"]
LAST = ["Müller", "García", "Zhang", "Okafor", "Nguyen", "Smith", "Kowalski", "Rossi", "Søndergaard",
        "Yamamoto", "Ruwase", "Rajbhandari", "Dubois", "Ivanova", "Haddad", "Larsen", "Costa",
        "Fischer", "Novak", "Kim"]
LATEX = {"ü": '{\\"u}', "é": "{\\'e}", "í": "{\\'i}", "ø": "{\\o}", "ö": '{\\"o}', "á": "{\\'a}",
         "É": "{\\'E}", "ú": "{\\'u}"}
AREAS = ["Artificial intelligence", "Programming languages and software engineering",
         "Systems and networking", "Hardware and devices", "Computer vision"]
VENUES = [("VLDB", "Proceedings of the VLDB Endowment"), ("NIPS", "Advances in Neural Information Processing Systems"),
          ("ISCA", "International Symposium on Computer Architecture")]
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]


def latexify(s: str, rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "".join(LATEX.get(c, c) for c in s)
    return s


def make_title(rng: random.Random) -> str:
    n = rng.randint(4, 12)
    words = [rng.choice(WORDS) for _ in range(n)]
    if rng.random() < 0.4:
        words.insert(rng.randrange(len(words)), "{" + rng.choice(ACRONYMS) + "}")
    title = " ".join(w.capitalize() if not w.startswith("{") else w for w in words)
    if rng.random() < 0.3:
        title += ": " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6)))
    return title


def make_authors(rng: random.Random) -> list[str]:
    n = 84 if rng.random() < 0.01 else rng.randint(1, 12)
    return [f"{latexify(rng.choice(LAST), rng)}, {latexify(rng.choice(FIRST), rng)}" for _ in range(n)]


def entry_text(key: str, etype: str, fields: list[tuple[str, str]]) -> str:
    body = ",\n".join(f"  {name} = {value}" for name, value in fields)
    return f"@{etype}{{{key},\n{body}\n}}\n"


def make_entry(i: int, rng: random.Random) -> tuple[str, dict]:
    etype = rng.choices(["inproceedings", "article", "techreport", "misc", "book"], [5, 3, 1, 1, 0.3])[0]
    title = make_title(rng)
    authors = make_authors(rng)
    year = rng.randint(1990, 2026)
    rec = {"key": f"gen{i}", "type": etype, "title": title, "authors": authors, "year": year}
    fields = [("author", "{" + " and ".join(authors) + "}"), ("title", "{" + title + "}")]
    if etype == "inproceedings":
        macro = rng.choice(VENUES)[0]
        fields.append(("booktitle", macro if rng.random() < 0.5 else "{Proceedings of the " + macro + " Conference}"))
    elif etype == "article":
        fields.append(("journal", "{Journal of " + rng.choice(WORDS).capitalize() + "}"))
        fields.append(("volume", str(rng.randint(1, 60))))
        # braced: BibTeX reads a bare 283--631 as the number 283 and an error
        fields.append(("pages", f"{{{rng.randint(1, 500)}--{rng.randint(501, 900)}}}"))
    elif etype == "techreport":
        fields.append(("institution", "{Microsoft Research}"))
        fields.append(("number", "{MSR-TR-%d-%d}" % (year, rng.randint(1, 99))))
    elif etype == "book":
        fields.append(("publisher", "{Springer}"))
    fields.append(("year", str(year) if rng.random() < 0.7 else "{%d}" % year))
    fields.append(("month", rng.choice(MONTHS)))
    if rng.random() < 0.4:
        fields.append(("doi", "{10.%d/%d.%d}" % (rng.randint(1000, 9999), year, i)))
    fields.append(("keywords", "{" + ", ".join(rng.sample(AREAS, rng.randint(1, 3))) + "}"))
    return entry_text(f"gen{i}", etype, fields), rec


def near_duplicate(rec: dict, key: str, rng: random.Random) -> str:
    title = rec["title"]
    kind = rng.choice(["typo", "subtitle", "reorder", "case", "arxiv"])
    if kind == "typo" and len(title) > 10:
        j = rng.randrange(1, len(title) - 1)
        title = title[:j] + title[j + 1] + title[j] + title[j + 2:]
    elif kind == "subtitle" and ":" in title:
        title = title.split(":")[0]
    elif kind == "reorder":
        words = title.split(" ")
        if len(words) > 3:
            words[0], words[1] = words[1], words[0]
        title = " ".join(words)
    elif kind == "case":
        title = title.lower()
    authors = rec["authors"]
    # other author form: "First Last"
    names = " and ".join(" ".join(reversed(a.split(", "))) for a in authors)
    etype = "misc" if kind == "arxiv" else rec["type"]
    year = rec["year"] - (1 if kind == "arxiv" else 0)
    fields = [("title", "{" + title + "}"), ("author", "{" + names + "}"), ("year", str(year))]
    return entry_text(key, etype, fields)


def ensure_library(n: int, out_dir: Path | None = None) -> Path:
    """bench/out/lib-N.bib (generated with the default seed on first use)."""
    import subprocess
    import sys
    from pathlib import Path

    out = Path(out_dir) if out_dir else Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    path = out / f"lib-{n}.bib"
    if not path.exists():
        subprocess.run([sys.executable, __file__, str(n), str(path)], check=True)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dups", type=float, default=0.0, help="fraction of entries given a near-duplicate")
    ap.add_argument("--truth", help="where to write the duplicate pairs as JSON")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    pairs = []
    with open(args.out, "w", encoding="utf-8", newline="\n") as out:
        out.write("% Synthetic library generated by bench/gen_library.py\n")
        for abbrev, full in VENUES:
            out.write(f'@string{{{abbrev} = "{full}"}}\n')
        out.write("\n")
        for i in range(args.n):
            text, rec = make_entry(i, rng)
            out.write(text + "\n")
            if args.dups and rng.random() < args.dups:
                dkey = f"dup{i}"
                out.write(near_duplicate(rec, dkey, rng) + "\n")
                pairs.append([rec["key"], dkey])
            if i % 1000 == 999:
                out.write(f"% ---- block {i // 1000} ----\n\n")
    if args.truth:
        with open(args.truth, "w", encoding="utf-8") as fh:
            json.dump({"pairs": pairs}, fh)


if __name__ == "__main__":
    main()
