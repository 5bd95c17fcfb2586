"""pubcli over a real corpus: TeX Live's bibliographies as Debian ships them.

    python bench/corpus.py [--cache bench/out/corpus] [--no-cli] [--examples 10]
                           [--only SUBSTRING] [--json bench/out/corpus.json]

Fetches the .deb files of texlive-bibtex-extra, texlive-base, texlive-latex-extra
and texlive-publishers (``apt-get download`` into the cache folder, once), unpacks
them (``dpkg-deb -x``), finds every ``.bib`` file, and runs over each one:

* round trip: ``store.load`` + ``store.save`` of a temp copy gives the same bytes;
* edit: one entry (in the middle of the file) edited through ``store.transaction``
  changes only that entry's bytes, and every other entry reads back the same;
* the commands ``list`` (every ``--format``), ``check``, ``dedupe --check``,
  ``export html`` and ``export markdown`` in-process (typer's CliRunner): exit code
  in {0, 1, 2} and no traceback;
* the display property: every word of a title's plain text (see ``plain_words``,
  defined from TeX's rules, not from pubcli.text.latex) is a word of its display, both
  ``to_text`` (list, Markdown) and the exporters' styled runs (HTML); and the same
  for the other fields a reader sees (venue, series, publisher, note, abstract).

Prints the counts (files, entries, round trips identical, edits local, tracebacks,
titles whose display lost a word, with examples) and writes them as JSON.
Beebe's bibliographies are public domain; the rest of TeX Live's files are LPPL.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGES = ["texlive-bibtex-extra", "texlive-base", "texlive-latex-extra", "texlive-publishers"]


# ---------------------------------------------------------------- fetching
def fetch(cache: Path) -> list[Path]:
    """Every .bib file of the packages, downloaded and unpacked under ``cache`` once."""
    debs, tree = cache / "debs", cache / "x"
    debs.mkdir(parents=True, exist_ok=True)
    for pkg in PACKAGES:
        have = sorted(debs.glob(f"{pkg}_*.deb"))
        if not have:
            subprocess.run(["apt-get", "download", pkg], cwd=debs, check=True,
                           stdout=subprocess.DEVNULL)
            have = sorted(debs.glob(f"{pkg}_*.deb"))
        deb = have[-1]
        dest = tree / deb.stem
        if not (dest / ".unpacked").exists():
            shutil.rmtree(dest, ignore_errors=True)
            dest.mkdir(parents=True)
            subprocess.run(["dpkg-deb", "-x", str(deb), str(dest)], check=True)
            (dest / ".unpacked").write_text("ok\n")
    return sorted(p for p in tree.rglob("*.bib") if p.is_file())


# ---------------------------------------------------------------- the display property
# Accent commands: the accent goes, the letter stays (TeX: \'e is an e with an acute).
_ACCENT = re.compile(r"\\[\"'`^~=.]\s*|\\[uvHckbdrt](?![A-Za-z])\s*")
# Letters written as commands (The TeXbook, ch. 9): in a word, TeX drops the space after.
_LETTER_CMD = re.compile(r"\\(?:ss|SS|o|O|aa|AA|ae|AE|oe|OE|l|L|i|j)(?![A-Za-z])\s*")
# Arguments that are not text: sort keys of BibTeX's \noopsort convention, environment
# names, labels, dimensions; verbatim text stays.
_NOT_TEXT = re.compile(r"\\(?:noopsort|SortNoop|sortnoop|noop|begin|end|label)\s*"
                       r"\{(?:[^{}]|\{[^{}]*\})*\}"
                       r"|\\(?:kern|hskip|vskip|penalty|raise|lower|mkern)\s*[-+]?\s*[\d.]+\s*"
                       r"(?:pt|em|ex|mm|cm|in|bp|pc|dd|sp|mu)?\s*"
                       r"|\\(?:accent|char)\s*(?:'[0-7]+|\"[0-9A-Fa-f]+|\d+)\s*"
                       r"|\\char\s*`\\?(?=.)"  # \char`\x prints x: keep the x
                       r"|\\[hv]space\*?\s*\{[^{}]*\}")
_VERB = re.compile(r"\\verb\*?([^A-Za-z\s*])(.*?)\1", re.S)
_MATH = re.compile(r"(?<!\\)(\$\$?)(.+?)(?<!\\)\1", re.S)
# Commands that print no text of their own (LaTeX's font, size, box and spacing
# commands; \relax-like primitives): they may show as nothing ("#" below).
_FORMAT_CMDS = frozenset("""
    mbox hbox vbox fbox makebox text textrm textit textbf textsl textsf texttt textsc
    textup textmd textnormal emph underline uppercase lowercase MakeUppercase
    MakeLowercase textsuperscript textsubscript ensuremath em it sl bf tt sf sc rm md up
    normalfont itshape slshape bfseries ttfamily sffamily scshape rmfamily upshape
    mdseries small footnotesize scriptsize tiny large Large LARGE huge Huge normalsize
    protect relax unskip ignorespaces nobreak allowbreak null strut noindent leavevmode
    nolinebreak nopagebreak smash phantom hphantom vphantom llap rlap item
""".split())
# Plain TeX's and TUGboat's font switches: \\sl, \\eightrm, \\ssf, \\smc, \\slnine ...
_FONT_SWITCH = re.compile(r"(?:five|six|seven|eight|nine|ten|twelve)?"
                          r"(?:rm|sl|it|bf|tt|sf|ssf|smc|sc|sltt|slc)"
                          r"(?:five|six|seven|eight|nine|ten|twelve)?", re.I)
# Spacing commands: a space or nothing.
_SPACE_CMDS = frozenset("""
    hss hfil hfill quad qquad thinspace enspace space newline linebreak break par
""".split())
# Commands that print a symbol, not a letter ("~" below: something, maybe not a letter).
_SYMBOL_CMDS = frozenset("""
    ldots dots textellipsis slash hyphen Dash dash emdash endash textendash textemdash
    S P dag ddag copyright textcopyright textregistered texttrademark pounds
    textbackslash bs textasciitilde textquoteleft textquoteright textquotedblleft
    textquotedblright textbullet textdegree textperiodcentered guillemotleft
    guillemotright times cdot
""".split())
# TeX drops the spaces after a command word; a real file means a word break when a
# capital or a digit follows ("\TeX Northeast"), so those spaces stay.
_COMMAND = re.compile(r"\\([A-Za-z]+)([ \t\r\n]*)(\{(?!\}))?|\\[^A-Za-z]")
_WORD = re.compile(r"[^\W_]+")
# Placeholders (private-use characters, shown as * ~ # in reports).
LETTERS, SYMBOL, FORMAT, SPACE = "\ue000", "\ue001", "\ue002", "\ue003"
_PLAIN_WORD = re.compile(r"(?:[^\W_]|[\ue000-\ue003])+")
# What each placeholder may stand for in the display.
_WILD = {LETTERS: r"\S{0,40}?[^\W_]\S{0,40}?",  # a command's name or logo: some letters
         SYMBOL: r"\s?[^\w\s]{1,10}?\s?",                 # a symbol
         FORMAT: r"\S{0,40}?",                  # formatting: maybe nothing
         SPACE: r"\s{0,3}"}                 # formatting: maybe nothing


def _fold(text: str) -> str:
    # an accent TeX prints alone ({\'{}ees} -> ´ees, {\~{}} -> ˜: a modifier symbol outside
    # ASCII) is part of the word it stands in, not a space between two
    text = "".join(c for c in text if c.isascii() or unicodedata.category(c) != "Sk")
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def plain_words(raw: str) -> list[str]:
    """The words of a field's plain text, as TeX would print them, in order. A command
    that prints letters (a logo, an unknown macro without an argument) becomes LETTERS,
    one that prints a symbol SYMBOL, spacing SPACE, formatting or a macro showing its
    argument FORMAT."""
    s = _MATH.sub("$", raw)  # math is shown verbatim: a word break here
    s = _VERB.sub(lambda m: m.group(2).replace("\\", " "), s)
    s = _NOT_TEXT.sub(lambda m: " " if m.group().startswith(("\\begin", "\\end")) else "", s)
    s = _ACCENT.sub("", s)
    s = _LETTER_CMD.sub(LETTERS, s)

    def command(m: re.Match) -> str:
        name = m.group(1)
        if name is None:
            tok = m.group()
            # hyphenation point, italic correction, spacing factor: inside a word
            return "" if tok in ("\\-", "\\/", "\\@") else " "  # \& \% \, \\ ...
        spaces, group = m.group(2), m.group(3) or ""
        if name in _SPACE_CMDS:
            return SPACE + group
        if name in _SYMBOL_CMDS:
            return SYMBOL + group  # TeX drops the spaces after it
        if name in _FORMAT_CMDS or _FONT_SWITCH.fullmatch(name) or group:
            return FORMAT + group  # formatting, or it shows its argument
        if m.string[m.end():m.end() + 1].islower():
            spaces = ""
        return LETTERS + spaces
    s = _COMMAND.sub(command, s).replace("~", " ")  # a tie is a space
    s = s.replace("{", "").replace("}", "")
    return [w for w in _PLAIN_WORD.findall(_fold(s)) if w.strip(FORMAT + SPACE)]


_SHOW = str.maketrans({LETTERS: "*", SYMBOL: "~", FORMAT: "#", SPACE: "_"})


def lost_words(raw: str, display: str) -> list[str]:
    """Plain-text words of ``raw`` not found, in order and as whole words, in
    ``display`` (each placeholder matched as ``_WILD`` says)."""
    text = _fold(display)
    lost = []
    pos = 0
    for w in plain_words(raw):
        body = "".join(_WILD.get(c) or re.escape(c) for c in re.split("([\ue000-\ue003])", w)
                       if c)
        lead = r"(?<![^\W_])" if w[0] not in _WILD else ""  # whole words: a boundary
        trail = r"(?![^\W_])" if w[-1] not in _WILD else ""  # where a letter ends it
        m = re.compile(lead + body + trail, re.S).search(text, pos)
        if m is None:
            lost.append(w.translate(_SHOW))
        else:
            pos = m.end()
    return lost


# ---------------------------------------------------------------- per file
def _editable(lib):
    counts: dict[str, int] = {}
    for r in lib.records:
        counts[r.key.casefold()] = counts.get(r.key.casefold(), 0) + 1
    ok = [r for r in lib.records if not r.source.read_only and counts[r.key.casefold()] == 1]
    return ok[len(ok) // 2] if ok else None


def check_store(path: Path, tmp: Path) -> dict:
    from pubcli import store
    from pubcli.errors import PubcliError

    out: dict = {"entries": 0, "refused": None, "round_trip": None, "edit_local": None}
    copy = tmp / "library.bib"
    shutil.copy(path, copy)
    before = copy.read_bytes()
    try:
        lib = store.load(copy, use_cache=False)
    except PubcliError as e:
        out["refused"] = str(e).splitlines()[0][:200]
        return out
    out["entries"] = len(lib.records)
    store.save(lib, copy)
    out["round_trip"] = copy.read_bytes() == before
    rec = _editable(lib)
    if rec is None:
        return out
    bom = len(store.UTF8_BOM) if lib.bom else 0
    start = bom + len(lib.text[:rec.source.start].encode("utf-8"))
    end = bom + len(lib.text[:rec.source.end].encode("utf-8"))
    shutil.copy(path, copy)
    others = [(r.key, r.type, dict(r.fields)) for r in lib.records if r is not rec]
    fields = dict(rec.fields)
    fields["note"] = "Checked by pubcli's corpus run"
    if "title" in fields:
        fields["title"] = fields["title"] + " (edited)"
    try:
        with store.transaction(copy) as lib2:
            (target,) = [r for r in lib2.records if r.key == rec.key]
            lib2.replace(target, target.copy(fields=fields))
    except PubcliError as e:
        out["edit_local"] = False
        out["edit_error"] = str(e)[:200]
        return out
    after = copy.read_bytes()
    again = store.load(copy, use_cache=False)
    same_rest = [(r.key, r.type, dict(r.fields)) for r in again.records
                 if r.key != rec.key] == others
    out["edit_local"] = (after[:start] == before[:start]
                         and after[len(after) - (len(before) - end):] == before[end:]
                         and same_rest)
    return out


def cli_runs(path: Path, tmp: Path) -> list[dict]:
    from typer.testing import CliRunner

    from pubcli.cli import app
    from pubcli.schema.model import ListFormat

    runner = CliRunner()
    copy = tmp / "library.bib"
    shutil.copy(path, copy)
    commands = [["list", "--format", f.value] for f in ListFormat]
    commands += [["check"], ["dedupe", "--check"],
                 ["export", "html", "-o", str(tmp / "page.html")],
                 ["export", "markdown", "-o", str(tmp / "page.md")]]
    results = []
    for args in commands:
        full = args + ["--library", str(copy)]
        r = runner.invoke(app, full, catch_exceptions=True)
        tb = None
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            tb = "".join(traceback.format_exception(r.exception))[-1500:]
        results.append({"args": args, "exit": r.exit_code, "traceback": tb,
                        "stderr": r.stderr[:300] if r.exit_code not in (0, 1) else ""})
    return results


# Other fields a reader sees (list's venue, show, the page's details and abstract).
OTHER_FIELDS = ("journal", "booktitle", "series", "publisher", "note", "abstract")


def display_check(path: Path, other: list[dict]) -> tuple[int, list[dict]]:
    from pubcli import store
    from pubcli.errors import PubcliError
    from pubcli.exporters import spans
    from pubcli.text.latex import to_text

    try:
        lib = store.load(path, use_cache=False)
    except PubcliError:
        return 0, []
    titles = 0
    lost = []
    for rec in lib.records:
        for name in OTHER_FIELDS:
            value = rec.fields.get(name)
            if value and lost_words(value, to_text(value)):
                other.append({"file": str(path), "key": rec.key, "field": name, "raw": value,
                              "display": to_text(value),
                              "lost": lost_words(value, to_text(value))})
        raw = rec.fields.get("title")
        if not raw:
            continue
        titles += 1
        shown = to_text(raw)
        styled = spans.plain(spans.rich(raw))
        miss = lost_words(raw, shown)
        miss_styled = lost_words(raw, styled)
        if miss or miss_styled:
            lost.append({"file": str(path), "key": rec.key, "title": raw, "display": shown,
                         "styled": styled, "lost": miss, "lost_styled": miss_styled})
    return titles, lost


def ref_lost(path: Path, ref) -> int:
    from pubcli import store
    from pubcli.errors import PubcliError

    try:
        lib = store.load(path, use_cache=False)
    except PubcliError:
        return 0
    return sum(1 for r in lib.records
               if r.fields.get("title") and lost_words(r.fields["title"],
                                                       ref.to_text(r.fields["title"])))


# ---------------------------------------------------------------- main
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, default=HERE / "out" / "corpus")
    ap.add_argument("--json", type=Path, default=HERE / "out" / "corpus.json")
    ap.add_argument("--no-cli", action="store_true", help="skip the command runs")
    ap.add_argument("--only", help="only files whose path contains this")
    ap.add_argument("--examples", type=int, default=10)
    ap.add_argument("--ref", help="also count titles that lost a word with latex.py of this "
                    "git revision (e.g. b83817a, before the fast path)")
    args = ap.parse_args()

    os.environ.setdefault("PUBCLI_CACHE_DIR", tempfile.mkdtemp(prefix="pubcli-corpus-cache-"))
    files = fetch(args.cache)
    ref = None
    if args.ref:
        sys.path.insert(0, str(HERE))
        from bench_latex import reference_module

        ref = reference_module(args.ref)
    if args.only:
        files = [p for p in files if args.only in str(p)]
    t0 = time.perf_counter()
    counts = {"files": len(files), "bytes": sum(p.stat().st_size for p in files),
              "entries": 0, "refused": 0, "round_trips_identical": 0, "round_trips_differ": 0,
              "edits_local": 0, "edits_not_local": 0, "no_entry_to_edit": 0,
              "command_runs": 0, "tracebacks": 0,
              "bad_exit": 0, "titles": 0, "titles_lost_word": 0}
    if args.ref:
        counts["titles_lost_word_at_ref"] = 0
    refused, differ, not_local, tracebacks, bad_exit, lost = [], [], [], [], [], []
    exits: dict[str, dict[str, int]] = {}
    other_lost: list[dict] = []
    for i, path in enumerate(files, 1):
        rel = path.relative_to(args.cache).as_posix()
        print(f"[{i}/{len(files)}] {rel}", file=sys.stderr)
        with tempfile.TemporaryDirectory(prefix="pubcli-corpus-") as d:
            tmp = Path(d)
            s = check_store(path, tmp)
            counts["entries"] += s["entries"]
            if s["refused"]:
                counts["refused"] += 1
                refused.append(f"{rel}: {s['refused']}")
            if s["round_trip"] is True:
                counts["round_trips_identical"] += 1
            elif s["round_trip"] is False:
                counts["round_trips_differ"] += 1
                differ.append(rel)
            if s["edit_local"] is True:
                counts["edits_local"] += 1
            elif s["edit_local"] is None and s["round_trip"] is not None:
                counts["no_entry_to_edit"] += 1
            elif s["edit_local"] is False:
                counts["edits_not_local"] += 1
                not_local.append(f"{rel}: {s.get('edit_error', 'bytes outside the entry changed')}")
            if not args.no_cli:
                for r in cli_runs(path, tmp):
                    counts["command_runs"] += 1
                    cmd = " ".join(a for a in r["args"][:3] if not a.startswith("/"))
                    exits.setdefault(cmd, {}).setdefault(str(r["exit"]), 0)
                    exits[cmd][str(r["exit"])] += 1
                    if r["traceback"]:
                        counts["tracebacks"] += 1
                        tracebacks.append({"file": rel, **r})
                    elif r["exit"] not in (0, 1, 2):
                        counts["bad_exit"] += 1
                        bad_exit.append({"file": rel, **r})
        n, miss = display_check(path, other_lost)
        if ref is not None:
            counts["titles_lost_word_at_ref"] += ref_lost(path, ref)
        counts["titles"] += n
        counts["titles_lost_word"] += len(miss)
        lost += miss
    counts["other_fields_lost_word"] = len(other_lost)
    counts["seconds"] = round(time.perf_counter() - t0, 1)

    print(json.dumps(counts, indent=2))
    if exits:
        print("\nexit codes per command (files):")
        for cmd, tally in exits.items():
            print(f"  pubcli {cmd}: " + ", ".join(f"{k}: {v}" for k, v in sorted(tally.items())))
    for label, items in (("refused (not read, file left alone)", refused),
                         ("round trip differs", differ), ("edit not local", not_local)):
        if items:
            print(f"\n{label}: {len(items)}")
            for x in items[:args.examples]:
                print(f"  {x}")
    if tracebacks:
        print(f"\ntracebacks: {len(tracebacks)}")
        for t in tracebacks[:args.examples]:
            print(f"  {t['file']}: pubcli {' '.join(t['args'])}\n    "
                  + t["traceback"].strip().splitlines()[-1])
    if bad_exit:
        print(f"\nexit codes outside 0/1/2: {len(bad_exit)}")
        for t in bad_exit[:args.examples]:
            print(f"  {t['file']}: pubcli {' '.join(t['args'])} -> {t['exit']}")
    if lost:
        print(f"\ntitles whose display lost a word: {len(lost)}")
        for x in lost[:args.examples]:
            print(f"  {x['key']}: {x['title']!r}\n    shown {x['display']!r} lost {x['lost']}"
                  f" / styled lost {x['lost_styled']}")
    if other_lost:
        print(f"\nother fields whose display lost a word: {len(other_lost)}")
        for x in other_lost[:args.examples]:
            print(f"  {x['key']} {x['field']}: {x['raw'][:120]!r}\n    lost {x['lost']}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"counts": counts, "refused": refused, "differ": differ,
                                     "not_local": not_local, "tracebacks": tracebacks,
                                     "exit_codes": exits,
                                     "bad_exit": bad_exit, "lost": lost,
                                     "other_lost": other_lost}, indent=1))


if __name__ == "__main__":
    main()
