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

The other direction lives here too, for entries pubcli writes from plain text (a
pasted listing, a web service's answer): :func:`escape` (LaTeX's specials) and
:func:`protect_case` (braces around the capitals a style must keep).
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache
from typing import Any, cast

from pubcli.text.fold import fold

# ---------------------------------------------------------------- the tables
# Accent macros -> combining mark (applied to the next letter or braced letter).
ACCENTS = {
    '"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303",
    "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
    "c": "\u0327", "k": "\u0328", "d": "\u0323", "b": "\u0331", "r": "\u030a",
}

# Letters written as macros: part of a word, so the space after them is TeX's
# delimiter and is dropped (``Stra\ss e`` -> "Straße").
LETTERS = {
    "ss": "ß", "SS": "SS", "o": "ø", "O": "Ø", "aa": "å", "AA": "Å", "ae": "æ", "AE": "Æ",
    "oe": "œ", "OE": "Œ", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ", "dh": "ð", "DH": "Ð",
    "th": "þ", "TH": "Þ", "ng": "ŋ", "NG": "Ŋ", "dj": "đ", "DJ": "Đ",
}

# Logos and words: shown as their names. A space after one is dropped before a
# lowercase letter, as TeX does (``\TeX nische`` -> "TeXnische"), and kept before
# anything else (``\TeX Northeast``): real files mean a word break there.
WORDS = {
    "TeX": "TeX", "LaTeX": "LaTeX", "LaTeXe": "LaTeX2e", "LaTeXTeX": "(La)TeX",
    "AllTeX": "(La)TeX", "BibTeX": "BibTeX", "BibTex": "BibTeX", "biber": "Biber",
    "biblatex": "biblatex", "BibLaTeX": "BibLaTeX",
    "AmSTeX": "AMS-TeX", "AMSTeX": "AMS-TeX", "AMSTEX": "AMS-TeX",
    "AmSLaTeX": "AMS-LaTeX", "AMSLaTeX": "AMS-LaTeX", "AmS": "AMS", "AMS": "AMS",
    "LAMSTeX": "LAMS-TeX", "METAFONT": "METAFONT", "MF": "METAFONT", "slMF": "METAFONT",
    "METAPOST": "MetaPost", "MetaPost": "MetaPost", "MP": "MetaPost",
    "ConTeXt": "ConTeXt", "CONTEXT": "ConTeXt", "XeTeX": "XeTeX", "XeLaTeX": "XeLaTeX",
    "LuaTeX": "LuaTeX", "LuaLaTeX": "LuaLaTeX", "pdfTeX": "pdfTeX", "pdfLaTeX": "pdfLaTeX",
    "eTeX": "e-TeX", "ExTeX": "ExTeX", "SliTeX": "SliTeX", "PiCTeX": "PiCTeX", "PiC": "PiC",
    "LyX": "LyX", "TikZ": "TikZ", "PS": "PostScript", "POSTSCRIPT": "PostScript",
    "PDF": "PDF", "TUB": "TUGboat", "TUG": "TUG", "CTAN": "CTAN", "XyMTeX": "XyMTeX",
    "Xy": "Xy", "MakeIndex": "MakeIndex", "OMEGA": "Omega",
}

# Punctuation, spaces and escaped characters (the space after a word-named one drops).
SYMBOLS = {
    "&": "&", "%": "%", "_": "_", "$": "$", "#": "#", "{": "{", "}": "}",
    " ": " ", "\n": " ", "\t": " ", ",": " ", ";": " ", ":": " ", ">": " ", "\\": " ",
    "-": "", "/": "", "@": "", "!": "",
    "slash": "/", "hyphen": "-", "Dash": "\u2014", "dash": "\u2013", "emdash": "\u2014",
    "endash": "\u2013", "textendash": "\u2013", "textemdash": "\u2014",
    "ldots": "\u2026", "dots": "\u2026", "textellipsis": "\u2026",
    "S": "\u00a7", "P": "\u00b6", "dag": "\u2020", "ddag": "\u2021", "copyright": "\u00a9",
    "textcopyright": "\u00a9", "pounds": "\u00a3", "textregistered": "\u00ae",
    "texttrademark": "\u2122",
    "thinspace": " ", "enspace": " ", "quad": " ", "qquad": " ", "space": " ",
    "newline": " ", "linebreak": " ", "break": " ", "par": " ", "hfil": " ", "hfill": " ",
    "textbackslash": "\\", "bs": "\\", "textbraceleft": "{", "textbraceright": "}",
    "textasciitilde": "~", "textasciicircum": "^", "textquoteleft": "\u2018",
    "textquoteright": "\u2019", "textquotedblleft": "\u201c", "textquotedblright": "\u201d",
}

# Formatting with no text of its own: dropped, and a braced argument shows as it is.
# (Plain TeX's and TUGboat's font switches, \eightrm, \slnine, \ssf, \smc, are matched
# by _FONT_SWITCH_RE below.)
SILENT = frozenset("""
    mbox hbox vbox fbox makebox text textrm textit textbf textsl textsf texttt textsc textup
    textmd textnormal emph underline uppercase lowercase MakeUppercase MakeLowercase
    textsuperscript textsubscript ensuremath acro pkg pgm cs file smash
    em it sl bf tt sf sc rm md up normalfont itshape slshape bfseries ttfamily sffamily
    scshape rmfamily upshape mdseries small footnotesize scriptsize tiny large Large LARGE
    huge Huge normalsize
    protect relax unskip ignorespaces nobreak allowbreak null strut noindent leavevmode
    nolinebreak nopagebreak hss
""".split())

# Sort keys (BibTeX's \noopsort convention) and environment names: the braced
# argument is not text to read.
GOBBLED = frozenset("noopsort SortNoop sortnoop noop begin end label".split())

# A number or dimension follows (``\kern-.1em``, ``\penalty10000``, ``\accent'27``):
# consumed, nothing shown (but ``\char`\x`` shows the x).
DIMENSIONED = frozenset("kern hskip vskip penalty raise lower mkern accent char".split())

# Citations show their keys: ``\cite[p.~3]{knuth84}`` -> "[knuth84, p. 3]".
CITES = frozenset("""cite citep citet citealp citealt citeauthor citeyear Cite parencite
    textcite autocite footcite smartcite supercite nocite""".split())

_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

# Quotes, dashes, ties and braces outside macros.
_PUNCT = {"{": "", "}": "", "~": " ", "--": "\u2013", "---": "\u2014",
          "``": "\u201c", "''": "\u201d"}


# ---------------------------------------------------------------- the patterns
class _Lazy:
    """A regular expression compiled on first use: ``pubcli --help`` imports this
    module, and a listing of plain titles never needs most of these patterns."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> Any:  # first use: compile, then plain attributes
        rx = re.compile(*self._args)
        for method in ("match", "fullmatch", "search", "sub", "finditer"):
            setattr(self, method, getattr(rx, method))
        return getattr(rx, name)


def _lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return cast("re.Pattern[str]", _Lazy(pattern, flags))


_MATH_RE = _lazy(r"(?<!\\)(\$\$?)(.+?)(?<!\\)\1", re.S)
_WS_RE = _lazy(r"\s+")
_BARE_AMP_RE = _lazy(r"(?<!\\)&")
# The commonest forms, accents (\"u, \'{e}, \c{c}, \v s) and letters ({\o}, \ss),
# replaced before the scanner runs, through tables. Braces around them are left to
# the scanner (``\foo{\"u}`` still shows its argument). \i and \j are left to it too:
# under an accent they are i and j.
_FAST_RE = _lazy(r"(?<!\\)\\(?:(?:[\"'`^~=.]\s*|[uvHckbdr](?:\s+|(?=\{)))"
                 r"(?:[A-Za-z]|\{[A-Za-z]\})"
                 r"|(ss|SS|o|O|aa|AA|ae|AE|oe|OE|l|L|dh|DH|th|TH|ng|NG|dj|DJ)(?![A-Za-z])"
                 r"[ \t\r\n]*)")
# What the scanner stops at: a control sequence, a brace, a tie, a dash, TeX quotes.
_SPECIAL_RE = _lazy(r"\\(?:[A-Za-z]+|.)|[{}~]|---?|``|''", re.S)
_DOTLESS_RE = _lazy(r"\\([ij])(?![A-Za-z])")  # \i, \j under an accent: i, j
_NUM = r"[-+]?\s*(?:\d+\.?\d*|\.\d+)"
_UNIT = r"(?:true\s*)?(?:pt|em|ex|mm|cm|in|bp|pc|dd|cc|sp|mu)"
_DIMEN_RE = _lazy(rf"\s*(?:'[0-7]+|\"[0-9A-Fa-f]+|`\\?.|{_NUM}\s*{_UNIT}?"
                  rf"(?:\s*plus\s*{_NUM}\s*(?:{_UNIT}|fil+)?)?"
                  rf"(?:\s*minus\s*{_NUM}\s*(?:{_UNIT}|fil+)?)?)?\s*")
_CHAR_RE = _lazy(r"\s*`\\?(.)", re.S)
_FONT_SWITCH_RE = _lazy(r"(?:five|six|seven|eight|nine|ten|twelve)?"
                        r"(?:rm|sl|it|bf|tt|sf|ssf|smc|SMC|sc|sltt|slc)"
                        r"(?:five|six|seven|eight|nine|ten|twelve)?")
_CITE_RE = _lazy(r"\*?\s*(?:\[([^\]]*)\])?\s*(?:\[([^\]]*)\])?\s*\{([^{}]*)\}")
_GROUP_RE = _lazy(r"\s*(?:\{(?:[^{}]|\{[^{}]*\})*\})?")
_VERB_RE = _lazy(r"\*?([^A-Za-z\s*])(.*?)\1", re.S)

# How the scanner shows a macro (what _resolve returns, with a replacement text).
_LETTER, _WORD, _SILENT, _SYMBOL, _DIMEN, _NODE, _UNKNOWN, _GOBBLE, _VERB, _CITE = range(10)


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
        for m in _MATH_RE.finditer(value):
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
            out.append(_PUNCT[tok])
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
    if i and m.string[i - 1] in _ASCII_LETTERS:  # "\foo\'x": not one macro "\foox"
        return "{}" + out
    return out


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


# ------------------------------------------------------------------ text -> LaTeX
# The other direction, for entries pubcli writes from plain text (a pasted listing,
# a web service's answer): LaTeX's specials escaped, capitals a style must keep braced.
_TEX_SPECIAL_RE = _lazy(r"[\\{}&%$#_~^]")
_TEX_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&",
                "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}",
                "^": r"\textasciicircum{}"}
# a word: letters and digits, with inner apostrophes and hyphens ("O'Brien", "ZeRO-Offload")
_TITLE_WORD_RE = _lazy(r"(?<![^\W_])(?<![\\{])([^\W_](?:[^\W_]|['\u2019]|-(?=[^\W_]))*)")
_UNESCAPED_BRACE_RE = _lazy(r"(?<!\\)[{}]")


def escape(text: str) -> str:
    """Plain text -> LaTeX text: ``\\ { } & % $ # _ ~ ^`` escaped ("50% & more" ->
    ``50\\% \\& more``); other characters stay as they are (Unicode). Braces that pair
    up become ``\\{``/``\\}``; one without a partner becomes ``\\textbraceleft{}`` or
    ``\\textbraceright{}``, since BibTeX counts every brace, escaped or not."""
    out = _TEX_SPECIAL_RE.sub(lambda m: _TEX_ESCAPES[m.group(0)], text)
    if "{" in text or "}" in text:
        opens: list[int] = []
        lone: set[int] = set()
        for i, c in enumerate(text):
            if c == "{":
                opens.append(i)
            elif c == "}":
                if opens:
                    opens.pop()
                else:
                    lone.add(i)
        lone.update(opens)
        if lone:
            out = "".join(_TEX_ESCAPES[c] if c in _TEX_ESCAPES and i not in lone
                          else ("\\textbraceleft{}" if c == "{" else "\\textbraceright{}")
                          if i in lone else c for i, c in enumerate(text))
    return out


def needs_protection(word: str) -> bool:
    """Whether a title word's capitals must be braced so that a style that lower-cases
    titles keeps them: a capital after the first letter of a hyphen-separated part
    (``GPU``, ``CNNs``, ``ZeRO-Infinity``, ``O'Brien``, ``3D``; not ``Fine-Grained``,
    ``Phi-3``)."""
    return any(any(c.isupper() for c in part[1:]) for part in word.split("-"))


def protect_case(title: str) -> str:
    """Braces around the words of a LaTeX title (escaped text in, escaped text out)
    whose capitals must survive a style: "ZeRO++: Optimizing CNNs" ->
    ``{ZeRO}++: Optimizing {CNNs}``. Words inside a braced group are left alone."""
    out, pos = [], 0
    for start, end in _unprotected(title):
        out.append(title[pos:start])
        out.append("{" + title[start:end] + "}")
        pos = end
    out.append(title[pos:])
    return "".join(out)


def unprotected_words(title: str) -> list[str]:
    """The words of a LaTeX title :func:`protect_case` would brace (``BERT`` in
    "Fine-tuning BERT"): a style that lower-cases titles would lower-case them."""
    return [title[s:e] for s, e in _unprotected(title)]


def _unprotected(title: str) -> list[tuple[int, int]]:
    out, depth, pos = [], 0, 0
    for m in _TITLE_WORD_RE.finditer(title):
        for b in _UNESCAPED_BRACE_RE.finditer(title, pos, m.start()):
            depth += 1 if b.group() == "{" else -1
        if depth <= 0 and needs_protection(m.group(1)):
            out.append((m.start(1), m.end(1)))
        pos = m.end()
    return out


# ---------------------------------------------------------------- Unicode <-> LaTeX accents
# (``pubcli fmt``'s ``encoding``: letters only; everything else stays as written)
_SYMBOL_ACCENT_RE = r"[\"'`^~=.]"
_LETTER_ACCENT_RE = r"[uvHckdbr]"
_BASE_RE = r"(?:[A-Za-z]|\\[ij](?![A-Za-z]))"
_TO_UNICODE_RE = _lazy(
    # {\"u} {\"{u}} {\v{c}} {\v c} {\ss}
    r"\{\\(" + _SYMBOL_ACCENT_RE + r")\s*(?:\{(" + _BASE_RE + r")\}|(" + _BASE_RE + r"))\}"
    r"|\{\\(" + _LETTER_ACCENT_RE + r")(?:\s*\{(" + _BASE_RE + r")\}|\s+(" + _BASE_RE + r"))\}"
    r"|\{\\(ss|o|O|aa|AA|ae|AE|oe|OE|l|L)\}"
    # \"u \"{u} \v{c}
    r"|(?<!\\)\\(" + _SYMBOL_ACCENT_RE + r")(?:\{(" + _BASE_RE + r")\}|(" + _BASE_RE + r"))"
    r"|(?<!\\)\\(" + _LETTER_ACCENT_RE + r")\{(" + _BASE_RE + r")\}")
_LATEX_OF_LETTER = {v: k for k, v in LETTERS.items()
                    if k in ("ss", "o", "O", "aa", "AA", "ae", "AE", "oe", "OE", "l", "L")}
_ACCENT_OF_MARK = {mark: name for name, mark in ACCENTS.items()}


def _unicode_of(accent: str, base: str) -> str | None:
    letter = {"\\i": "i", "\\j": "j"}.get(base, base)
    out = unicodedata.normalize("NFC", letter + ACCENTS[accent])
    return out if len(out) == 1 else None


def _to_unicode_one(m: re.Match[str]) -> str:
    g = m.groups()
    if g[6] is not None:
        return LETTERS[g[6]]
    for accent, braced, bare in ((g[0], g[1], g[2]), (g[3], g[4], g[5]),
                                 (g[7], g[8], g[9]), (g[10], g[11], None)):
        base = braced if braced is not None else bare
        if accent is not None and base is not None:
            out = _unicode_of(accent, base)
            return out if out is not None else m.group()
    return m.group()  # pragma: no cover


def _outside_math(value: str, convert: Any) -> str:
    if "$" not in value:
        return convert(value)
    parts, pos = [], 0
    for m in _MATH_RE.finditer(value):
        parts.append(convert(value[pos:m.start()]))
        parts.append(m.group(0))
        pos = m.end()
    parts.append(convert(value[pos:]))
    return "".join(parts)


def to_unicode(value: str) -> str:
    """LaTeX accents and letters as the Unicode letters they print (``M{\\"u}ller`` ->
    "Müller", ``{\\ss}`` -> "ß"); everything else (math too) as written."""
    if "\\" not in value:
        return value
    return _outside_math(value, lambda s: _TO_UNICODE_RE.sub(_to_unicode_one, s))


def to_latex(value: str) -> str:
    """Unicode letters as LaTeX (``Müller`` -> ``M{\\"u}ller``, ß -> ``{\\ss}``): a letter
    with one accent LaTeX has a command for, or one of LaTeX's letter commands; other
    characters (math too) as written."""
    if value.isascii():
        return value

    def one(s: str) -> str:
        out = []
        for c in s:
            if c.isascii():
                out.append(c)
            elif c in _LATEX_OF_LETTER:
                out.append("{\\" + _LATEX_OF_LETTER[c] + "}")
            else:
                d = unicodedata.normalize("NFD", c)
                name = _ACCENT_OF_MARK.get(d[1:]) if len(d) == 2 and d[0].isascii() \
                    and d[0].isalpha() else None
                if name is None:
                    out.append(c)
                elif name.isalpha():
                    out.append("{\\" + name + "{" + d[0] + "}}")
                else:
                    out.append("{\\" + name + d[0] + "}")
        return "".join(out)

    return _outside_math(value, one)
