"""Why a reference of pubcli differs from pandoc's (bench/bench_styles.py's classes).

    python bench/style_whys.py [bench/out/styles.json]

prints the table of docs/style-agreement.md again (one line per class: the count in
each style, the reason, one example) from the differences bench_styles.py saved,
each put in its class again (so a class changed here needs no new pandoc run).

Each class (:class:`Why`) has a test on the record as pubcli read it, pandoc's text and
pubcli's (both as bench_styles normalises them), the reason one side is right, and
whether pandoc misreads the .bib there or pubcli differs. A difference goes to the
first class whose test it passes, with year suffixes set aside; none: unexplained.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from pubcli.exporters import csl, csltables  # noqa: E402
from pubcli.schema import values  # noqa: E402


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
    # (composed alike first: "Jiřı́" and "Jiří" print the same)
    want, got = _composed(want), _composed(got)
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


def _parent_text_missing(rec, want: str, got: str) -> bool:
    """Whether pubcli's text has the start of a field a crossref parent passes down
    (journal, book, publisher, year, editor) that pandoc's lacks."""
    for name in ("journal", "journaltitle", "booktitle", "maintitle", "publisher", "year",
                 "editor"):
        probe = csl.field_text(rec.fields.get(name, "")).split(" and ")[0][:15].lower()
        if name == "editor":
            probe = probe.split(",")[0].split()[-1] if probe.split() else ""
        if probe and probe in got.lower() and probe not in want.lower():
            return True
    return False


def _initials_of_braced(rec, want: str, got: str) -> bool:
    """Whether pandoc prints given names whole where pubcli has their initials."""
    lacking = set(want.split()) - set(got.split())
    return _only_given_names(rec, want, got) and all(
        w.strip(".,;:()")[:1] + "." in got for w in lacking)


def _author_twice(rec, want: str, got: str) -> bool:
    """Whether pandoc names the first author more often than pubcli does."""
    first = csl.names(rec.fields.get("author"))[:1]
    family = first[0].get("family", "") if first else ""
    return bool(family) and want.count(family) > got.count(family)


def _fields(rec, *names: str) -> str:
    return " ".join(rec.fields.get(n, "") for n in names)


def _people(rec) -> str:
    return _fields(rec, "author", "editor", "translator", "bookauthor")


WHYS: tuple[Why, ...] = (
    Why("crossref", lambda r, w, g: bool(r.fields.get("crossref") or r.fields.get("xdata"))
        and _parent_text_missing(r, w, g),
        "BibTeX copies every field an entry lacks from its crossref parent (btxdoc, "
        "'Cross-referencing') and finds the parent in any case (crossref = {WHOLE-JOURNAL} "
        "for the key whole-journal: tried with bibtex 0.99d); pandoc 3.9 matches the key "
        "case-sensitively and inherits nothing, so its reference lacks the journal, book, "
        "publisher and year",
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
        "mainsubtitle", "journalsubtitle", "booktitleaddon", "maintitleaddon").strip())
        and _only_added(w, g),
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
        "issue = {3}: biblatex's issue (the designation of a journal's issue) is printed "
        "by biblatex's styles with the volume and date; pubcli passes it as CSL's issue, "
        "pandoc drops it", True),
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
        "month = {August}, nov # \", \" # dec, {March/June}, dec # \" 5--9,\": BibTeX prints "
        "the month as written; pandoc reads only a three-letter macro or a number and "
        "drops any other month; pubcli reads a month's name, two months or a month's days "
        "as a date range", True),
    Why("initial of a braced letter",
        lambda r, w, g: bool(re.search(r"(?:^|[\s,{])\{\\", _people(r)))
        and _initials_of_braced(r, w, g),
        "BibTeX abbreviates {\\'E}douard to {\\'E}. (a braced special character is one "
        "letter, btxdoc 'Names'); pandoc keeps the given name whole", True),
    Why("Master's thesis", lambda r, w, g: "Master's" in w and "Master\u2019s" in g,
        "type = {Master's project}: TeX typesets ' as a closing quote (’); pandoc keeps "
        "the field's straight apostrophe", True),
    Why("arXiv preprint", lambda r, w, g: bool(csl.arxiv_id(r)) and (
        ("arXiv" in g and "arXiv" not in w) or ("arxiv.org" in g and "arxiv.org" not in w)),
        "an arXiv preprint is mapped as Zotero maps one (publisher arXiv, number "
        "arXiv:ID, from eprint/archiveprefix or the URL); pandoc ignores eprint", True),
    Why("author named twice by pandoc", lambda r, w, g: bool(r.fields.get("crossref"))
        and _author_twice(r, w, g),
        "pandoc's reference names the author a second time ('(By M. de Assis; ...)'); "
        "biblatex passes an @mvbook's author to a @book as its author only (biblatex.def, "
        "\\DeclareDataInheritance{mvbook}{book,...}), as pubcli does", True),
    Why("biblatex command dropped by pandoc", lambda r, w, g: _only_added(w, g) and bool(
        re.search(r"\\(?:psqq?|pno|ppno|add[a-z]*|mkbib[a-z]+|enquote|textquote)\b",
                  " ".join(r.fields.values()))),
        "pages = {98\\psq\\ Nr. 2176}: biblatex's \\psq prints ' sq.' (biblatex.sty: "
        "\\sqspace\\bibstring{sequens}, english.lbx 'sq.'), \\adddot a dot, \\mkbibquote its "
        "quotes; pandoc drops what these print", True),
    Why("accent over nothing", lambda r, w, g: bool(re.search(
        r"\\['`^\"~=.uvHckdbr]\{\}", " ".join(r.fields.values())))
        and any(c in g for c in "\u00b4\u00a8\u02dc\u00af\u02d9\u02d8\u02c7\u02dd\u00b8\u02db\u02da"),
        "Ry{\\'{}cko}: an accent over an empty group, which TeX sets alone (\u00b4, the "
        "spacing acute); pandoc prints an apostrophe", True),
    Why("parenthesised full name", lambda r, w, g: any(
        p in g for p in re.findall(r"\([^()]*\)", _people(r))),
        "'Frederic W. (Frederic William) Goudy' is BibTeX's First von Last form: the last "
        "name is Goudy (btxdoc, 'Names'), the rest given names as written (a word's case is "
        "its first letter's: '(Michael)' is no von part); pandoc splits at the parenthesis "
        "('William) Goudy') or takes '(Michael)' for a particle", True),
    Why("initials of a parenthesised full name", lambda r, w, g: bool(re.search(r"\(", _people(r))),
        "both are wrong: the given names 'Frederic W. (Frederic William)' are BibTeX's, "
        "but a style's initials take the parenthesis for names ('F. W. (Frederic. W.', "
        "'M. (Michael).'); pandoc's family name is 'William) Goudy'", False),
    Why("lower-case given name", lambda r, w, g: any(
        n.get("given") and any(p[:1].islower() for p in n["given"].split())
        for role in ("author", "editor") for n in csl.names(r.fields.get(role)))
        and _only_added(g, w),
        "pubcli differs: 'Schooten, Franciscus {\\'a}' gives the given names 'Franciscus á'; "
        "BibTeX's initials abbreviate every given name ('F. á.'), citeproc leaves a "
        "lower-case one whole ('F. á'); pandoc makes 'á' a particle, which prints 'F. á.'",
        False),
    Why("several addresses in one url field", lambda r, w, g: len(re.findall(
        r"(?i)(?:https?|ftp)://", r.fields.get("url", ""))) > 1 and _only_added(g, w),
        "pubcli differs by choice: 'url = {A; B; C}' is no address: CSL's URL is one, "
        "printed and linked as one; pubcli leaves it out, pandoc prints the field", False),
    Why("url that is no address", lambda r, w, g: bool(r.fields.get("url"))
        and values.web_link(r.fields["url"], printed=True) is None and _only_added(g, w),
        "pubcli differs by choice: 'url = {-}' or a value with no scheme names no "
        "address (schema.values.web_link); pandoc prints the field as it is", False),
    Why("address percent-encoded", lambda r, w, g: bool(r.fields.get("url"))
        and _only_added(w, unquote(g)),
        "the same address: pubcli writes a non-ASCII URL percent-encoded (RFC 3986, "
        "schema.values.web_link), pandoc as written (an IRI); a browser opens both alike",
        False),
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


def _reclassified(saved: dict) -> dict[str, dict[str, list[tuple]]]:
    """{style: {class: [(file, key, pandoc, pubcli), ...]}} of a saved styles.json, each
    difference classed again on the record as pubcli reads its file now."""
    from bench_styles import ROOT, measured_records

    records: dict[str, dict] = {}
    out: dict[str, dict[str, list[tuple]]] = {}
    for style, result in saved["styles"].items():
        table = out.setdefault(style, {})
        for f, key, want, got in result["differences"]:
            if f not in records:
                records[f] = {r.key: r for r in measured_records(ROOT / f)}
            w = why(records[f][key], want, got)
            table.setdefault(w.name if w else "unexplained", []).append((f, key, want, got))
    return out


def markdown(saved: dict) -> str:
    """docs/style-agreement.md's figures and table for a saved styles.json."""
    by_style = _reclassified(saved)
    styles = list(by_style)
    lines = ["| style | equal | raw | pandoc misreads | equal without them |",
             "|---|---|---|---|---|"]
    side = {w.name: w.pandoc_misreads for w in WHYS}
    for style in styles:
        r = saved["styles"][style]
        misread = sum(len(v) for k, v in by_style[style].items() if side.get(k))
        rest = r["total"] - misread
        lines.append(f"| {style} | {r['equal']}/{r['total']} | {100 * r['equal'] / r['total']:.1f}% "
                     f"| {misread} | {r['equal']}/{rest} ({100 * r['equal'] / rest:.1f}%) |")
    lines += ["", "| class | side | " + " | ".join(styles) + " | why (pubcli's is right, or where not) | example |",
              "|---|---|" + "---|" * len(styles) + "---|---|"]
    reasons = {w.name: w.reason for w in WHYS}
    names = [w.name for w in WHYS] + ["unexplained"]
    for name in names:
        counts = [len(by_style[s].get(name, [])) for s in styles]
        if not any(counts):
            continue
        f, key, want, got = next(d for s in styles for d in by_style[s].get(name, []))
        who = "pandoc misreads" if side.get(name) else "pubcli differs"
        example = (f"{Path(f).name} `{key}`: pandoc “{_cell(want)}” / pubcli “{_cell(got)}”")
        lines.append(f"| {name} | {who} | " + " | ".join(map(str, counts))
                     + f" | {_cell(reasons.get(name, 'not classed yet'), 400)} | {example} |")
    return "\n".join(lines) + "\n"


def _cell(text: str, limit: int = 140) -> str:
    text = text.replace("|", "\\|").replace("<em>", "*").replace("</em>", "*")
    return text if len(text) <= limit else text[:limit - 1] + "…"


if __name__ == "__main__":
    import json

    source = Path(sys.argv[1]) if len(sys.argv) > 1 else \
        Path(__file__).resolve().parent / "out" / "styles.json"
    print(markdown(json.loads(source.read_text(encoding="utf-8"))), end="")
