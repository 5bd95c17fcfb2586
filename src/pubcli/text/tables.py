"""What LaTeX's macros print: the tables :mod:`pubcli.text.latex` reads LaTeX by and
:mod:`pubcli.text.encode` writes it by (accents, letters, words, symbols, macros that print
nothing), and the lazily compiled patterns both share."""

from __future__ import annotations

import re
from typing import Any, cast

# Accent macros -> combining mark (applied to the next letter or braced letter).
ACCENTS = {
    '"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303",
    "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
    "c": "\u0327", "k": "\u0328", "d": "\u0323", "b": "\u0331", "r": "\u030a",
}

# An accent over nothing (``Ry{\\'{}cko}``): TeX sets the accent alone, as these print.
SPACING_ACCENTS = {
    '"': "\u00a8", "'": "\u00b4", "`": "`", "^": "^", "~": "\u02dc", "=": "\u00af",
    ".": "\u02d9", "u": "\u02d8", "v": "\u02c7", "H": "\u02dd", "c": "\u00b8",
    "k": "\u02db", "d": ".", "b": "_", "r": "\u02da",
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
    # biblatex's page words (\bibstring{page}, {pages} in english.lbx)
    "pno": "p.", "ppno": "pp.",
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
    mkbibemph mkbibitalic mkbibbold mkbibacro mkbibsuperscript mkbibsubscript nopp
""".split())

# biblatex's punctuation commands (biblatex.sty, "Punctuation"; \psq and \psqq are
# \sqspace\bibstring{sequens}, "sq." in english.lbx): each first takes away the spaces
# before it (\unspace), then prints its text; a mark is left out where the text before
# already ends in punctuation it may not follow (PUNCT_AFTER). The space after the
# command is TeX's delimiter.
BIBLATEX_PUNCT = {
    "adddot": ".", "addperiod": ".", "addcomma": ",", "addsemicolon": ";",
    "addcolon": ":", "addquestion": "?", "addexclam": "!", "addslash": "/",
    "addspace": " ", "addnbspace": " ", "addthinspace": " ", "addnbthinspace": " ",
    "addlowpenspace": " ", "addhighpenspace": " ", "addlpthinspace": " ",
    "addhpthinspace": " ", "addabbrvspace": " ", "addabthinspace": " ",
    "adddotspace": ". ", "sqspace": " ", "psq": " sq.", "psqq": " sqq.",
    "unspace": "", "isdot": "", "nopunct": "", "bibsentence": "", "midsentence": "",
}
# The punctuation a biblatex mark is not printed after (its default
# \DeclarePunctuationPairs: a comma, semicolon or colon may follow an abbreviation
# dot, ! or ?; ! and ? an abbreviation dot; a dot or period nothing; a "." written in
# the text is taken for an abbreviation dot: "Nr.\\addcomma").
PUNCT_AFTER = {".": ".,;:!?", ",": ",;:", ";": ",;:", ":": ",;:", "!": ",;:!?",
               "?": ",;:!?"}

# biblatex's and csquotes' wrappers: the braced argument shows between these.
WRAPPERS = {
    "mkbibquote": ("\u201c", "\u201d"), "enquote": ("\u201c", "\u201d"),
    "textquote": ("\u201c", "\u201d"), "mkbibparens": ("(", ")"),
    "mkbibbrackets": ("[", "]"),
}

# Sort keys (BibTeX's \noopsort convention) and environment names: the braced
# argument is not text to read.
GOBBLED = frozenset("noopsort SortNoop sortnoop noop begin end label".split())

# A number or dimension follows (``\kern-.1em``, ``\penalty10000``, ``\accent'27``):
# consumed, nothing shown (but ``\char`\x`` shows the x).
DIMENSIONED = frozenset("kern hskip vskip penalty raise lower mkern accent char".split())

# Citations show their keys: ``\cite[p.~3]{knuth84}`` -> "[knuth84, p. 3]".
CITES = frozenset("""cite citep citet citealp citealt citeauthor citeyear Cite parencite
    textcite autocite footcite smartcite supercite nocite""".split())

ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

# Quotes, dashes, ties and braces outside macros.
PUNCT = {"{": "", "}": "", "~": " ", "--": "\u2013", "---": "\u2014",
          "``": "\u201c", "''": "\u201d"}


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


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return cast("re.Pattern[str]", _Lazy(pattern, flags))


#: TeX math, ``$...$`` or ``$$...$$``: kept verbatim by both directions
MATH_RE = lazy(r"(?<!\\)(\$\$?)(.+?)(?<!\\)\1", re.S)
