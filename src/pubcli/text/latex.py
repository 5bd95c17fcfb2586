"""LaTeX to Unicode for display and matching (the only user of pylatexenc).

``to_text`` turns field values into what a reader should see: accents become
Unicode (``M{\\"u}ller`` -> "Müller"), case-protecting braces disappear,
``--`` becomes an en dash, ``~`` a space, the TeX logos their names
(``{\\TeX}book`` -> "TeXbook"). Math (``$...$``) is kept verbatim so that a
page can hand it to KaTeX or MathJax.

Display never loses text: a formatting macro shows its argument
(``\\mbox{x}``, ``\\emph{x}`` -> "x"), and a macro pubcli does not know shows
its argument or, without one, its name (``\\VAX`` -> "VAX").

The common cases (accents, ``\\ss``, ``{\\o}``, dashes, ties, braces, escaped
characters, logos, font switches) go through one regular expression and the
tables below. pylatexenc is asked only about a macro the tables do not know,
once per macro name (and per use when that macro takes arguments), with one
parser context and one converter built on first use.

The tables are in :mod:`pubcli.text.tables`; the other direction, for entries pubcli
writes from plain text, is :mod:`pubcli.text.encode`.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache
from typing import Any

from pubcli.text.fold import fold
from pubcli.text.tables import (ACCENTS, ASCII_LETTERS, BIBLATEX_PUNCT, CITES, DIMENSIONED,
                                GOBBLED, LETTERS, MATH_RE, PUNCT, PUNCT_AFTER, SILENT,
                                SPACING_ACCENTS, SYMBOLS, WORDS, WRAPPERS, lazy)

_WS_RE = lazy(r"\s+")
_BARE_AMP_RE = lazy(r"(?<!\\)&")
# The commonest forms, accents (\"u, \'{e}, \c{c}, \v s) and letters ({\o}, \ss),
# replaced before the scanner runs, through tables. Braces around them are left to
# the scanner (``\foo{\"u}`` still shows its argument). \i and \j are left to it too:
# under an accent they are i and j.
_FAST_RE = lazy(r"(?<!\\)\\(?:(?:[\"'`^~=.]\s*|[uvHckbdr](?:\s+|(?=\{)))"
                 r"(?:[A-Za-z]|\{[A-Za-z]\})"
                 r"|(ss|SS|o|O|aa|AA|ae|AE|oe|OE|l|L|dh|DH|th|TH|ng|NG|dj|DJ)(?![A-Za-z])"
                 r"[ \t\r\n]*)")
# What the scanner stops at: a control sequence, a brace, a tie, a dash, TeX quotes.
_SPECIAL_RE = lazy(r"\\(?:[A-Za-z]+|.)|[{}~]|---?|``|''", re.S)
_DOTLESS_RE = lazy(r"\\([ij])(?![A-Za-z])")  # \i, \j under an accent: i, j
_NUM = r"[-+]?\s*(?:\d+\.?\d*|\.\d+)"
_UNIT = r"(?:true\s*)?(?:pt|em|ex|mm|cm|in|bp|pc|dd|cc|sp|mu)"
_DIMEN_RE = lazy(rf"\s*(?:'[0-7]+|\"[0-9A-Fa-f]+|`\\?.|{_NUM}\s*{_UNIT}?"
                  rf"(?:\s*plus\s*{_NUM}\s*(?:{_UNIT}|fil+)?)?"
                  rf"(?:\s*minus\s*{_NUM}\s*(?:{_UNIT}|fil+)?)?)?\s*")
_CHAR_RE = lazy(r"\s*`\\?(.)", re.S)
_FONT_SWITCH_RE = lazy(r"(?:five|six|seven|eight|nine|ten|twelve)?"
                        r"(?:rm|sl|it|bf|tt|sf|ssf|smc|SMC|sc|sltt|slc)"
                        r"(?:five|six|seven|eight|nine|ten|twelve)?")
_CITE_RE = lazy(r"\*?\s*(?:\[([^\]]*)\])?\s*(?:\[([^\]]*)\])?\s*\{([^{}]*)\}")
_GROUP_RE = lazy(r"\s*(?:\{(?:[^{}]|\{[^{}]*\})*\})?")
_VERB_RE = lazy(r"\*?([^A-Za-z\s*])(.*?)\1", re.S)

# How the scanner shows a macro (what _resolve returns, with a replacement text).
(_LETTER, _WORD, _SILENT, _SYMBOL, _DIMEN, _NODE, _UNKNOWN, _GOBBLE, _VERB, _CITE, _ADD,
 _WRAP) = range(12)


def _plain(s: str) -> str:
    """A value with no backslash and no math: braces, dashes, ties, quotes."""
    if "{" in s or "}" in s:
        s = s.replace("{", "").replace("}", "")
    if "-" in s:
        s = s.replace("---", "\u2014").replace("--", "\u2013")
    if "~" in s:
        s = s.replace("~", " ")
    if "``" in s or "''" in s:
        s = s.replace("``", "\u201c").replace("''", "\u201d")
    return s


@lru_cache(maxsize=65536)
def to_text(value: str) -> str:
    """Unicode text for a LaTeX field value (math kept as ``$...$``)."""
    if not value:
        return ""
    if "\\" not in value and "$" not in value:
        out = _plain(value)
    else:
        parts = []
        pos = 0
        for m in MATH_RE.finditer(value):
            parts.append(_convert(value[pos:m.start()]))
            parts.append(m.group(0))
            pos = m.end()
        parts.append(_convert(value[pos:]))
        out = "".join(parts)
    if "&" in out and ";" in out:  # HTML entities from web exports: "TNF-&alpha;"
        out = html.unescape(out)
    if "  " in out or not out.isprintable():  # newlines, tabs, no-break spaces ...
        out = _WS_RE.sub(" ", out)
    return out.strip()


def search_fold(raw: str) -> str:
    """The folded display text of a raw field value, for ``--search`` matching."""
    return fold(to_text(raw)) if raw else ""




# ---------------------------------------------------------------- the scanner
def _convert(s: str) -> str:
    """One run of text without math."""
    if not s:
        return ""
    if "\\" not in s:
        return _plain(s)
    s = _FAST_RE.sub(_fast, s)
    if "\\" not in s:
        return _plain(s)
    out: list[str] = []
    pos = 0
    end = len(s)
    search = _SPECIAL_RE.search
    while pos < end:
        m = search(s, pos)
        if m is None:
            out.append(s[pos:])
            break
        start, pos = m.span()
        if start > m.pos:
            out.append(s[m.pos:start])
        tok = m.group()
        if tok[0] != "\\":
            out.append(PUNCT[tok])
            continue
        name = tok[1:]
        if name in ACCENTS:
            text, pos = _accent(s, pos, name)
            out.append(text)
            continue
        kind, repl = _resolve(name)
        word = name[0].isalpha()
        if kind is _WORD:
            out.append(repl)
            if word:  # TeX drops the space after a control word: "\TeX nische"
                after = _skip_spaces(s, pos)
                if after < end and s[after].islower():
                    pos = after
        elif kind is _LETTER or kind is _SILENT or kind is _SYMBOL:
            out.append(repl)
            if word:
                pos = _skip_spaces(s, pos)
        elif kind is _DIMEN:
            c = _CHAR_RE.match(s, pos) if name == "char" else None
            if c:
                out.append(c.group(1))
                pos = c.end()
            else:
                pos = _matched_end(_DIMEN_RE, s, pos)
        elif kind is _GOBBLE:
            pos = _matched_end(_GROUP_RE, s, pos)
        elif kind is _ADD:
            _add_punct(out, repl)
            pos = _skip_spaces(s, pos)
        elif kind is _WRAP and (wrap := _wrapped(s, pos, name)):
            out.append(wrap[0])
            pos = wrap[1]
        elif kind is _CITE and (c := _CITE_RE.match(s, pos)):
            pre, post, keys = c.group(1), c.group(2), c.group(3).strip()
            if post is None:  # one optional argument is the postnote
                pre, post = None, pre
            if pre and pre.strip():
                keys = _convert(pre).strip() + " " + keys
            if post and post.strip():
                keys += ", " + _convert(post).strip()
            out.append(f"[{keys}]")
            pos = c.end()
        elif kind is _VERB:
            v = _VERB_RE.match(s, pos)
            out.append(v.group(2) if v else name)
            pos = v.end() if v else pos
        elif kind is _NODE and not (repl and _bare(s, pos)):
            text, pos = _pylatexenc_node(s, start)
            out.append(text)
        else:  # unknown, or missing its argument: its argument shows, else its name
            after = _skip_spaces(s, pos)
            if after < end and s[after] == "{" and not s.startswith("{}", after):
                pos = after
            else:
                out.append(name)
                if kind is _UNKNOWN and after < end and s[after].islower():
                    pos = after
    return "".join(out)


class _AccentTable(dict):
    def __missing__(self, tex: str) -> str:
        out = self[tex] = _accent(tex, 2, tex[1])[0]  # "\\" + the accent's name
        return out


_ACCENTED = _AccentTable()


def _fast(m: re.Match[str]) -> str:
    letter = m.group(1)
    out = LETTERS[letter] if letter else _ACCENTED[m.group()]
    i = m.start()
    if i and m.string[i - 1] in ASCII_LETTERS:  # "\foo\'x": not one macro "\foox"
        return "{}" + out
    return out


def _wrapped(s: str, pos: int, name: str) -> tuple[str, int] | None:
    """``\\enquote{x}``, ``\\mkbibparens{x}`` at ``pos`` (after the name): the argument
    between its marks (``\\enquote*``: the inner quotes), and the position after it."""
    left, right = WRAPPERS[name]
    if s.startswith("*", pos):
        left, right, pos = "\u2018", "\u2019", pos + 1
    after = _skip_spaces(s, pos)
    close = closing_brace(s, after) if s.startswith("{", after) else -1
    if close < 0:
        return None
    return left + _convert(s[after + 1:close]) + right, close + 1


def _add_punct(out: list[str], text: str) -> None:
    """biblatex's \\add... commands: the spaces before go (\\unspace), then ``text``, its
    mark left out where the text already ends in punctuation it may not follow."""
    while out and (not out[-1] or out[-1][-1].isspace()):
        out[-1] = out[-1].rstrip()
        if not out[-1]:
            out.pop()
    if not text:
        return
    mark = text[0]
    if mark in PUNCT_AFTER and out and out[-1][-1] in PUNCT_AFTER[mark]:
        text = text[1:]
    out.append(text)


def _skip_spaces(s: str, pos: int) -> int:
    end = len(s)
    while pos < end and s[pos] in " \t\r\n":
        pos += 1
    return pos


def _matched_end(rx: re.Pattern[str], s: str, pos: int) -> int:
    """End of ``rx`` (which may match nothing) at ``pos``."""
    m = rx.match(s, pos)
    return m.end() if m else pos


def _bare(s: str, pos: int) -> bool:
    """Nothing that could be an argument (``{``, ``[``, ``*``) follows ``pos``."""
    after = _skip_spaces(s, pos)
    return after >= len(s) or s[after] not in "{[*"


def _accent(s: str, pos: int, name: str) -> tuple[str, int]:
    """Apply the accent ``\\name`` to what follows ``pos``; (text, new position)."""
    mark = ACCENTS[name]
    i = _skip_spaces(s, pos) if (name.isalpha() or s[pos:pos + 1] in " \t") else pos
    if i >= len(s):
        return "", i
    c = s[i]
    if c == "{":
        close = closing_brace(s, i)
        if close < 0:
            return "", i + 1
        base = _convert(_DOTLESS_RE.sub(r"\1", s[i + 1:close])).strip()
        i = close + 1
        if not base:  # \'{}: the accent alone
            return SPACING_ACCENTS[name], i
    elif c == "\\":
        m = _SPECIAL_RE.match(s, i)
        if m is None:  # a lone backslash at the end
            return "", i + 1
        tok = m.group()
        if tok in ("\\i", "\\j"):
            base = tok[1]
        else:  # an accent on a macro: convert it, accent its first letter
            base = _convert(tok)
        i = m.end()
        if tok[1:].isalpha():
            i = _skip_spaces(s, i)
    else:
        base = c
        i += 1
    if not base:
        return "", i
    return unicodedata.normalize("NFC", base[0] + mark) + base[1:], i


def closing_brace(s: str, i: int, end: int | None = None) -> int:
    """Index of the ``}`` closing the ``{`` at ``i`` (escaped braces skipped), or -1 when
    it is not closed before ``end``."""
    depth = 0
    j = i
    end = len(s) if end is None else end
    while j < end:
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return -1


# ---------------------------------------------------------------- macro lookup
_RESOLVED: dict[str, tuple[int, str]] = {}
for _n, _r in LETTERS.items():
    _RESOLVED[_n] = (_LETTER, _r)
for _n, _r in WORDS.items():
    _RESOLVED[_n] = (_WORD, _r)
for _n, _r in SYMBOLS.items():
    _RESOLVED[_n] = (_SYMBOL, _r)
for _n in SILENT:
    _RESOLVED[_n] = (_SILENT, "")
for _n in DIMENSIONED:
    _RESOLVED[_n] = (_DIMEN, "")
for _n in GOBBLED:
    _RESOLVED[_n] = (_GOBBLE, "")
_RESOLVED["verb"] = (_VERB, "")
for _n in CITES:
    _RESOLVED[_n] = (_CITE, "")
for _n, _r in BIBLATEX_PUNCT.items():
    _RESOLVED[_n] = (_ADD, _r)
for _n in WRAPPERS:
    _RESOLVED[_n] = (_WRAP, "")


def _resolve(name: str) -> tuple[int, str]:
    hit = _RESOLVED.get(name)
    if hit is None:
        hit = _RESOLVED[name] = _ask_pylatexenc(name)
    return hit


def _ask_pylatexenc(name: str) -> tuple[int, str]:
    """How to show a macro the tables do not know, from pylatexenc's databases."""
    if _FONT_SWITCH_RE.fullmatch(name):
        return _SILENT, ""
    text_db, parse_db, _ = _pylatexenc()
    spec = text_db.get_macro_spec(name)
    parsed = parse_db.get_macro_spec(name)
    argspec = getattr(parsed.args_parser, "argspec", "") if parsed is not None else ""
    takes_args = bool(argspec)
    if spec is None:
        # pylatexenc would drop it (and any arguments it knows of): keep it visible
        return (_SILENT if takes_args else _UNKNOWN), ""
    repl = getattr(spec, "simplify_repl", None)
    if repl is None:  # shown as its arguments (\emph-like)
        return _SILENT, ""
    if takes_args or callable(repl) or "%" in repl:
        return _NODE, "needs {" if "{" in argspec else ""
    if any(c.isalnum() for c in repl):
        return _WORD, repl
    return (_SYMBOL if repl.strip() else _SILENT), repl


@lru_cache(maxsize=1)
def _pylatexenc() -> tuple[Any, Any, Any]:
    """One text context, one parser context and one converter, built on first use."""
    import logging

    from pylatexenc import latex2text, latexwalker

    # pylatexenc logs a warning for a macro missing its argument ("\url" alone): the
    # text is still shown, and a listing is no place for a library's log lines
    log = logging.getLogger("pylatexenc")
    log.addHandler(logging.NullHandler())
    log.propagate = False
    text_db = latex2text.get_default_latex_context_db()
    parse_db = latexwalker.get_default_latex_context_db()
    converter = latex2text.LatexNodes2Text(latex_context=text_db, math_mode="verbatim",
                                           strict_latex_spaces=False, keep_braced_groups=False)
    return text_db, parse_db, converter


def _pylatexenc_node(s: str, start: int) -> tuple[str, int]:
    """The macro at ``start`` with its arguments, converted by pylatexenc."""
    from pylatexenc.latexwalker import LatexWalker

    _, parse_db, converter = _pylatexenc()
    rest = s[start:]
    try:
        walker = LatexWalker(_BARE_AMP_RE.sub(r"\\&", rest), latex_context=parse_db,
                             tolerant_parsing=True)
        nodes, npos, nlen = walker.get_latex_nodes(pos=0, read_max_nodes=1)
        text = converter.nodelist_to_text(nodes)
    except Exception:  # pylatexenc is tolerant; on a surprise, show the name  # noqa: BLE001
        m = _SPECIAL_RE.match(s, start)
        name = m.group() if m else "\\"
        return name[1:], start + len(name)
    consumed = npos + nlen  # in the escaped text: map it back (each bare & grew by one)
    i = j = 0
    while j < consumed and i < len(rest):
        j += 2 if rest[i] == "&" and (i == 0 or rest[i - 1] != "\\") else 1
        i += 1
    return text, start + max(i, 1)
