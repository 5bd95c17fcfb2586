"""BibTeX itself as the judge: what the real ``bibtex`` program reads from a text, and
where pubcli's reader (``pubcli.bibtex.parse``) reads it differently.

:func:`read` runs ``bibtex`` (Debian ``texlive-binaries``; :func:`available` says whether
it is here) once on the whole text, in a temp folder, with ``\\nocite{*}`` and a style of
our own that writes every field of every entry as BibTeX stored it:

* the style's ``ENTRY`` list holds every identifier written before a ``=`` in the text
  (lower-cased: BibTeX ignores the case of field names), so every field an entry can have
  is declared, and there is a do-nothing ``FUNCTION`` for every identifier written after
  an ``@``, so that ``type$`` names every entry's type;
* the month macros ``jan``..``dec`` are defined as ``pubcli.bibtex.MONTH_MACROS`` expands
  them (full English names), as the standard styles do;
* BibTeX breaks ``.bbl`` lines longer than 79 characters at a white-space character and
  starts the continuation with two spaces (``bibtex.web``, ``output_bbl_line``). Every
  line the style writes starts with a letter and no stored value has a run of white space
  (BibTeX compresses them), so each continuation line is joined back with one space and
  the values come back exactly;
* ``crossref``: after reading, BibTeX copies a parent's fields into every child that lacks
  them. To report what the text says, not that inheritance, the text given to BibTeX has
  every ``crossref`` (any case) replaced by a same-length letter string that occurs nowhere
  in it, and the replacement is undone on the output (same length, same character class:
  BibTeX splits the text exactly as before). The ``crossref`` field then reads as any other.

What the oracle reports is BibTeX's reading, not a parser we wrote: which text is a value,
where an entry ends, ``#`` concatenation, ``@string`` macros (an undefined one reads as
empty, with a warning), white-space compression, repeated keys (case-insensitive: skipped
with an error), ``@comment`` (skips the word only), ``%`` (not a comment in a ``.bib``).
Only two things are worked out here: where each entry starts in the text (for its line:
the ``@TYPE{KEY`` BibTeX reported, searched in order), and BibTeX's line numbers in its
messages, which count a lone CR and each half of CRLF as a line end (mapped back to lines
counted by LF, as pubcli counts them).

:func:`compare` sets BibTeX's reading of a text beside pubcli's, entry by entry, field by
field, and returns the :class:`Difference` list; ``Difference.read_differently`` tells the
real disagreements from entries pubcli keeps unread, undefined macros and repeated keys.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable

BIBTEX = "bibtex"

# bibtex.web: lex_class white_space is space and tab; a line end (LF or CR) reads as white
# space inside a value. Identifiers: any character but these (and control characters).
_WHITE = " \t\r\n"
_ID_CHARS = r"[^ \t\r\n\"#%'(),={}\x00-\x1f]"
_FIELD_NAME = re.compile(f"(?<!{_ID_CHARS})({_ID_CHARS}++)[ \\t\\r\\n]*+=")
_TYPE_NAME = re.compile(f"@[ \\t\\r\\n]*+({_ID_CHARS}++)")
# "@TYPE{KEY" or "@TYPE(KEY": where BibTeX starts an entry (the key ends at white space or
# a comma; in a "{" entry also at "}")
# a lookahead, so that heads may overlap: "@comment{@misc{k" holds the head of k too
_HEAD = re.compile(f"(?=@[ \\t\\r\\n]*+({_ID_CHARS}++)[ \\t\\r\\n]*+([{{(])[ \\t\\r\\n]*+"
                   "([^ \\t\\r\\n,]*+))")
_COMPRESS = re.compile(r"[ \t\r\n]+")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

# the style's own names, and BibTeX's built-in and pre-defined ones (never declared again)
_OWN = {"oracle.entry", "oracle.entry.none"}
_BUILT_IN = set("""
    = > < + - * := add.period$ call.type$ change.case$ chr.to.int$ cite$ duplicate$ empty$
    format.name$ if$ int.to.chr$ int.to.str$ missing$ newline$ num.names$ pop$ preamble$
    purify$ quote$ skip$ stack$ substring$ swap$ text.length$ text.prefix$ top$ type$
    warning$ while$ width$ write$ entry.max$ global.max$ sort.key$ crossref
""".split())
_COMMANDS = {"comment", "preamble", "string"}

# crossref -> a same-length letter string (case kept letter by letter). Each candidate has
# its first letter nowhere else in it, so no two occurrences can overlap: undoing the
# replacement is exact when the text holds no occurrence of the candidate beforehand.
_CROSSREF = "crossref"
_STAND_INS = ["qzxvvzjk", "qwjyywmk", "qhkbbhvx", "qpvttpyw", "qmgnnmxz"]


def _lower(s: str) -> str:
    """BibTeX's lower_case: ASCII letters only."""
    return s.translate(_ASCII_LOWER)


def compress(value: str) -> str:
    """A value as BibTeX stores a field: every run of white space (space, tab, line end)
    one space, none at either end."""
    return _COMPRESS.sub(" ", value).strip(" ")


class OracleError(RuntimeError):
    """bibtex did not run, or complained about the style: the oracle has no answer."""


@functools.cache
def available() -> bool:
    """Whether a working ``bibtex`` is on PATH."""
    if shutil.which(BIBTEX) is None:
        return False
    try:
        read("@misc{k, title = {t}}\n")
    except (OracleError, OSError):
        return False
    return True


# ---------------------------------------------------------------- what BibTeX read
@dataclass(frozen=True, slots=True)
class Entry:
    """One entry as BibTeX read it."""

    key: str  # as written (cite$)
    type: str  # type$, lower case
    fields: dict[str, str]  # lower-case name -> value as BibTeX stored it
    offset: int | None  # where its "@" is in the text (None: not found there)
    line: int | None  # 1-based line of that "@", lines counted by LF


@dataclass(frozen=True, slots=True)
class Message:
    """An error or warning of BibTeX's about the .bib text."""

    kind: str  # "error" or "warning"
    text: str  # e.g. 'Repeated entry', 'Warning--string name "foo" is undefined'
    line: int | None  # 1-based line in the text (by LF), None when BibTeX names none
    detail: str = ""  # the lines BibTeX printed after it (": ..." context)


@dataclass(slots=True)
class OracleResult:
    entries: list[Entry] = field(default_factory=list)  # in the order BibTeX read them
    messages: list[Message] = field(default_factory=list)
    log: str = ""  # the whole .blg

    def by_key(self) -> dict[str, Entry]:
        """Entries by key, lower-cased as BibTeX compares keys (each key once)."""
        return {_lower(e.key): e for e in self.entries}

    @property
    def errors(self) -> list[Message]:
        return [m for m in self.messages if m.kind == "error"]

    @property
    def warnings(self) -> list[Message]:
        return [m for m in self.messages if m.kind == "warning"]


def _stand_in(text: str) -> str:
    low = text.lower()
    for cand in _STAND_INS:
        if cand not in low:
            return cand
    raise OracleError("every crossref stand-in occurs in the text")  # pragma: no cover


def _swap(text: str, src: str, dst: str) -> str:
    """Replace every case-insensitive occurrence of ``src`` by ``dst``, letter case kept
    position by position."""
    def one(m: re.Match) -> str:
        return "".join(d.upper() if c.isupper() else d for c, d in zip(m.group(), dst, strict=False))
    return re.sub(re.escape(src), one, text, flags=re.IGNORECASE)


def _style(field_names: Iterable[str], type_names: Iterable[str]) -> str:
    from pubcli.bibtex import MONTH_MACROS

    fields = sorted(set(field_names))
    # BibTeX warns about an empty field list: declare one, never written
    out = ["ENTRY {"] + ([] if fields else ["  oracle.entry.none"]) + [f"  {f}" for f in fields] + ["} {} {}"]
    out += [f'MACRO {{{abbr}}} {{"{full}"}}' for abbr, full in MONTH_MACROS.items()]
    out += [f"FUNCTION {{{t}}} {{ }}" for t in sorted(set(type_names))]
    body = ['  "E:" write$ type$ write$ "=" write$ cite$ write$ newline$']
    for f in fields:
        body.append(f'  {f} missing$ \'skip$ {{ "F:{f}=" write$ {f} write$ newline$ }} if$')
    out.append("FUNCTION {oracle.entry} {\n" + "\n".join(body) + "\n}")
    out += ["READ", "ITERATE {oracle.entry}", ""]
    return "\n".join(out)


def _names(text: str, stand_in: str) -> tuple[set[str], set[str]]:
    reserved = _BUILT_IN | _OWN
    fields = {_lower(m.group(1)) for m in _FIELD_NAME.finditer(text)}
    fields = {f for f in fields if not f[0].isdigit() and f not in reserved}
    types = {_lower(m.group(1)) for m in _TYPE_NAME.finditer(text)}
    types = {t for t in types
             if not t[0].isdigit() and t not in reserved and t not in _COMMANDS
             and t not in fields and t != stand_in}
    return fields, types


_BST_TROUBLE = re.compile(r"-line \d+ of file o\.bst")


def _run(folder: Path, bib: bytes, style: str, max_strings: int) -> tuple[bytes, str]:
    (folder / "o.bib").write_bytes(bib)
    (folder / "o.bst").write_text(style, encoding="utf-8")
    (folder / "o.aux").write_text("\\citation{*}\n\\bibstyle{o}\n\\bibdata{o}\n")
    env = dict(os.environ, BSTINPUTS=".", BIBINPUTS=".", max_strings=str(max_strings),
               openout_any="a", LC_ALL="C")
    proc = subprocess.run([BIBTEX, "-terse", "o"], cwd=folder, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    blg = (folder / "o.blg").read_bytes().decode("utf-8", "surrogateescape") \
        if (folder / "o.blg").exists() else ""
    if proc.returncode > 2 or "(That was a fatal error)" in blg \
            or "exceeded BibTeX's" in blg:
        raise OracleError(f"bibtex failed (exit {proc.returncode}): {blg[-800:]}")
    if any(_BST_TROUBLE.search(ln) for ln in blg.split("\n") if not ln.startswith(" : ")):
        raise OracleError(f"bibtex did not accept the oracle's style: {blg[-800:]}")
    bbl = (folder / "o.bbl").read_bytes() if (folder / "o.bbl").exists() else b""
    return bbl, blg


def _unbreak(bbl: bytes) -> list[bytes]:
    """The .bbl's lines as the style wrote them: a continuation line ("  " + rest) joined
    back to its line with the one space BibTeX broke it at."""
    lines: list[bytes] = []
    for ln in bbl.split(b"\n"):
        if ln.startswith(b"  ") and lines:
            lines[-1] += b" " + ln[2:]
        elif ln:
            lines.append(ln)
    return lines


class _Lines:
    """Offsets <-> line numbers of a text, by LF (pubcli's lines) and by BibTeX's count
    (LF and CR each end a line)."""

    def __init__(self, text: str) -> None:
        self.lf = [m.start() for m in re.finditer("\n", text)]
        self.bibtex_starts = [0] + [m.end() for m in re.finditer("[\r\n]", text)]

    def line(self, offset: int) -> int:
        return bisect.bisect_left(self.lf, offset) + 1

    def from_bibtex(self, n: int) -> int:
        """The line (by LF) of BibTeX's line ``n``."""
        n = max(1, min(n, len(self.bibtex_starts)))
        return self.line(self.bibtex_starts[n - 1])


_CONTINUED = (" : ", "--line", "I'm skipping whatever remains", "(Error may have been on")
# TeX Live's bibtex reports growing its arrays: not about the text
_NOTE = re.compile(r"Field filled up at \d+, reallocating\.$|Reallocated \S+ \(elt_size=\d+\) "
                   r"to \d+ items from \d+\.$")
_MSG_LINE = re.compile(r"-{2,3}line (\d+) of file o\.bib")


def _messages(blg: str, lines: _Lines) -> list[Message]:
    """BibTeX's errors and warnings about the .bib, from the .blg."""
    start = blg.find("Database file #1: o.bib")
    body = blg[start:].split("\n")[1:] if start >= 0 else []
    out: list[Message] = []
    pending: list[str] = []

    def flush() -> None:
        if not pending:
            return
        head = pending[0]
        warning = head.startswith("Warning--")
        m = _MSG_LINE.search(head) or next(
            (m for m in (_MSG_LINE.match(p) for p in pending[1:]) if m), None)
        text = _MSG_LINE.split(head)[0] if _MSG_LINE.search(head) else head
        detail = "\n".join(p for p in pending[1:] if not _MSG_LINE.match(p))
        out.append(Message("warning" if warning else "error", text.rstrip("-"),
                           lines.from_bibtex(int(m.group(1))) if m else None, detail))
        pending.clear()

    for ln in body:
        if ln.startswith(("You've used", "(There w")):
            break
        if _NOTE.match(ln):
            continue
        if ln.startswith(_CONTINUED) and pending:
            pending.append(ln)
            continue
        flush()
        if ln.strip():
            pending.append(ln)
    flush()
    return out


def _locate(text: str, entries: list[tuple[str, str, dict[str, str]]],
            lines: _Lines) -> list[Entry]:
    """Each entry with where its "@TYPE{KEY" is in the text: the first such place after
    the previous entry's."""
    heads: dict[str, list[tuple[int, str]]] = {}
    for m in _HEAD.finditer(text):
        key = m.group(3)
        if m.group(2) == "{":
            key = key.split("}", 1)[0]
        heads.setdefault(key, []).append((m.start(), _lower(m.group(1))))
    out = []
    pos = 0
    for etype, key, fields in entries:
        places = heads.get(key, [])
        at = bisect.bisect_left(places, (pos, ""))
        found = [o for o, t in places[at:] + places[:at] if t == etype or not etype]
        offset = found[0] if found else None
        if offset is not None:
            pos = offset + 1
        out.append(Entry(key, etype, fields, offset,
                         lines.line(offset) if offset is not None else None))
    return out


def read(text: str) -> OracleResult:
    """What BibTeX reads from ``text`` (a whole .bib file): every entry, in the order
    BibTeX read them, with its key, type and fields, and BibTeX's messages. One bibtex
    run. Raises OracleError when bibtex cannot answer."""
    stand_in = _stand_in(text)
    sent = _swap(text, _CROSSREF, stand_in)
    fields, types = _names(sent, stand_in)
    style = _style(fields, types)
    data = sent.encode("utf-8", "surrogateescape")
    max_strings = 20000 + len(data) // 8
    with tempfile.TemporaryDirectory(prefix="pubcli-oracle-") as d:
        for _ in range(4):
            try:
                bbl, blg = _run(Path(d), data, style, max_strings)
                break
            except OracleError as e:
                if "exceeded BibTeX's" not in str(e):
                    raise
                max_strings *= 4
        else:  # pragma: no cover
            raise OracleError("bibtex ran out of room four times")
    raw: list[tuple[str, str, dict[str, str]]] = []
    out = _swap("\n".join(ln.decode("utf-8", "surrogateescape") for ln in _unbreak(bbl)),
                stand_in, _CROSSREF)
    for s in out.split("\n") if out else []:
        if s.startswith("E:"):
            etype, _, key = s[2:].partition("=")
            raw.append((etype, key, {}))
        elif s.startswith("F:") and raw:
            name, _, value = s[2:].partition("=")
            raw[-1][2][name] = value
        else:
            raise OracleError(f"unexpected line in the .bbl: {s[:200]!r}")
    lines = _Lines(text)
    blg = _swap(blg, stand_in, _CROSSREF)
    return OracleResult(_locate(text, raw, lines), _messages(blg, lines), blg)


# ---------------------------------------------------------------- BibTeX vs pubcli
#: Categories where pubcli reads the text differently from BibTeX (the aim: none).
READ_DIFFERENTLY = (
    "entry-missing",  # BibTeX reads an entry that pubcli has no record for (nor keeps unread)
    "entry-extra",  # pubcli reads an entry that BibTeX does not
    "key",  # the same entry, another key
    "type",  # the same entry, another type
    "field-missing",  # BibTeX reads a field that pubcli's record lacks
    "field-extra",  # pubcli's record has a field BibTeX does not read
    "value",  # both read the field, with other values (after white-space compression)
)
#: Categories that are not a misreading, counted apart.
NOT_MISREAD = (
    "kept-unread",  # pubcli keeps the entry as a failed block or read-only: it never acts on it
    "undefined-macro",  # an undefined @string: BibTeX reads it as empty, pubcli keeps the name
    "repeated-key",  # BibTeX skips a repeated key (an error); pubcli keeps it, and reports it
)


@dataclass(frozen=True, slots=True)
class Difference:
    category: str  # one of READ_DIFFERENTLY or NOT_MISREAD
    line: int  # 1-based line of the entry in the text
    key: str
    field: str | None  # None: the entry as a whole
    bibtex: str | None  # BibTeX's reading (None: BibTeX has no such entry or field)
    pubcli: str | None  # pubcli's reading (None: pubcli has none)

    @property
    def read_differently(self) -> bool:
        return self.category in READ_DIFFERENTLY

    def __str__(self) -> str:
        where = f"line {self.line}: {self.key}" + (f" {self.field}" if self.field else "")
        return f"{self.category}: {where}: bibtex {self.bibtex!r} / pubcli {self.pubcli!r}"


def misread(diffs: Iterable[Difference]) -> list[Difference]:
    """The differences that are misreadings (``read_differently``)."""
    return [d for d in diffs if d.read_differently]


def summary(diffs: Iterable[Difference]) -> Counter[str]:
    """How many differences of each category."""
    return Counter(d.category for d in diffs)


def _macro_explains(pc: str, bt: str, undefined: set[str]) -> bool:
    """Whether pubcli's value is BibTeX's once the undefined macro names are taken out."""
    v = pc
    for name in undefined:
        v = re.sub(f"(?<!{_ID_CHARS}){re.escape(name)}(?!{_ID_CHARS})", "", v,
                   flags=re.IGNORECASE)
    return compress(v) == bt


def compare_readings(text: str, oracle: OracleResult, parsed) -> list[Difference]:
    """BibTeX's reading (``oracle``) against pubcli's (``parsed``, a ``pubcli.bibtex.Parsed``)
    of the same ``text``."""
    lines = _Lines(text)
    diffs: list[Difference] = []
    records = parsed.records
    by_key: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        by_key.setdefault(_lower(r.key), []).append(i)
    matched: set[int] = set()
    failed = [(f.start, f.start + len(f.raw)) for f in parsed.failed if f.start >= 0]

    def span_lines(r) -> tuple[int, int]:
        return r.line, lines.line(r.source.end)

    def messages_in(r, pred) -> list[Message]:
        a, b = span_lines(r)
        return [m for m in oracle.messages if m.line is not None and a <= m.line <= b
                and pred(m)]

    for e in oracle.entries:
        cands = [i for i in by_key.get(_lower(e.key), []) if i not in matched]
        pick = None
        if e.offset is not None:
            pick = next((i for i in cands
                         if records[i].source.start <= e.offset < records[i].source.end), None)
            if pick is None and any(a <= e.offset < b for a, b in failed):
                diffs.append(Difference("kept-unread", e.line or 0, e.key, None,
                                        _show(e.fields), None))
                continue
        if pick is None and cands:
            pick = cands[0]
        if pick is None:
            diffs.append(Difference("entry-missing", e.line or 0, e.key, None,
                                    _show(e.fields), None))
            continue
        matched.add(pick)
        r = records[pick]
        if r.source.read_only:
            diffs.append(Difference("kept-unread", r.line, r.key, None, _show(e.fields),
                                    f"read-only: {r.source.read_only}"))
            continue
        if r.key != e.key:
            diffs.append(Difference("key", r.line, e.key, None, e.key, r.key))
        if e.type and r.type != e.type:
            diffs.append(Difference("type", r.line, e.key, None, e.type, r.type))
        undefined = {m.text.split('"')[1] for m in messages_in(
            r, lambda m: m.text.startswith('Warning--string name "')
            and m.text.endswith("is undefined"))}
        pc = {name: compress(v) for name, v in r.fields.items()}
        for name in sorted(set(pc) | set(e.fields)):
            bt, pv = e.fields.get(name), pc.get(name)
            if bt == pv:
                continue
            if bt is None:
                cat = "field-extra"
            elif pv is None:
                cat = "field-missing"
            elif undefined and _macro_explains(pv, bt, undefined):
                cat = "undefined-macro"
            else:
                cat = "value"
            diffs.append(Difference(cat, r.line, e.key, name, bt, pv))

    repeated_lines = [m.line for m in oracle.errors if m.text == "Repeated entry"]
    for i, r in enumerate(records):
        if i in matched:
            continue
        if r.source.read_only:
            diffs.append(Difference("kept-unread", r.line, r.key, None, None,
                                    f"read-only: {r.source.read_only}"))
            continue
        a, b = span_lines(r)
        cat = "repeated-key" if any(ln is not None and a <= ln <= b
                                    for ln in repeated_lines) else "entry-extra"
        diffs.append(Difference(cat, r.line, r.key, None, None, _show(r.fields)))
    diffs.sort(key=lambda d: d.line)
    return diffs


def _show(fields: dict[str, str]) -> str:
    return ", ".join(f"{k} = {{{v}}}" for k, v in fields.items())


def compare(text: str) -> list[Difference]:
    """Every difference between BibTeX's reading of ``text`` and pubcli's
    (``pubcli.bibtex.parse``), in line order. ``misread(compare(text))`` are the ones
    that count (see READ_DIFFERENTLY)."""
    from pubcli import bibtex

    return compare_readings(text, read(text), bibtex.parse(text))


# ---------------------------------------------------------------- writes
def balanced(value: str) -> bool:
    """Balanced by BibTeX's count: every brace counts, backslash or not."""
    depth = 0
    for c in value:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


_BRACE_WORDS = [("\\textbraceleft{}", "{"), ("\\textbraceright{}", "}"),
                ("\\textbraceleft", "{"), ("\\textbraceright", "}"),
                ("\\{", "{"), ("\\}", "}")]


def _printed_braces(value: str) -> str:
    for written, shown in _BRACE_WORDS:
        value = value.replace(written, shown)
    return value


def as_intended(given: str, read_back: str | None) -> bool:
    """Whether BibTeX's reading of a written field means what the user gave: the value
    itself (white space compressed) when it is brace-balanced by BibTeX's count; for an
    unbalanced value, a balanced reading that prints the same braces (``\\{``, ``\\}``,
    ``\\textbraceleft{}``, ``\\textbraceright{}`` for the literal ones)."""
    if read_back is None:
        return False
    if balanced(given):
        return read_back == compress(given)
    return balanced(read_back) and \
        compress(_printed_braces(read_back)) == compress(_printed_braces(given))


def untouched_changes(before: OracleResult, after: OracleResult,
                      touched: Iterable[str]) -> list[str]:
    """How BibTeX's reading of the entries not in ``touched`` (keys) changed between two
    versions of a file: one line per entry gone, added or read differently."""
    skip = {_lower(k) for k in touched}
    a = [(e.key, e.type, e.fields) for e in before.entries if _lower(e.key) not in skip]
    b = [(e.key, e.type, e.fields) for e in after.entries if _lower(e.key) not in skip]
    if a == b:
        return []
    out = []
    ka, kb = {x[0]: x for x in a}, {x[0]: x for x in b}
    for k in ka.keys() - kb.keys():
        out.append(f"{k}: gone")
    for k in kb.keys() - ka.keys():
        out.append(f"{k}: new entry {_show(kb[k][2])[:200]}")
    for k in ka.keys() & kb.keys():
        if ka[k] != kb[k]:
            out.append(f"{k}: was {ka[k][1]} {_show(ka[k][2])[:300]} / now {kb[k][1]} "
                       f"{_show(kb[k][2])[:300]}")
    if not out:
        out.append("the entries' order changed")
    return sorted(out)
