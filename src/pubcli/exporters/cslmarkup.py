"""LaTeX field values as CSL-JSON rich text: braced words protected
(``<span class="nocase">``), English titles in sentence case as citeproc and pandoc's
BibTeX reader write them, italic and bold as ``<i>``/``<b>``, formulas kept apart."""

from __future__ import annotations

import re
from typing import NamedTuple

from pubcli.text.latex import closing_brace, to_text

# Private-use characters: math placeholders while a reference is formatted
# (U+F0000 + n, the n-th formula of the item), stripped from input.
MATH0 = 0xF0000
MARKS = re.compile("[\ue000-\ue01f\U000f0000-\U000fffff]")

_CMD = re.compile(r"[A-Za-z]+|.", re.S)
_CMD_KIND = {"emph": "i", "textit": "i", "textsl": "i", "mkbibemph": "i", "textbf": "b",
             "mkbibbold": "b", "textsc": "sc", "textsuperscript": "sup",
             "mkbibsuperscript": "sup", "textsubscript": "sub", "textup": "", "textrm": "",
             "textnormal": "", "textsf": "", "texttt": "", "mbox": "", "hbox": "",
             "mkbibquote": "q", "enquote": "q", "textquote": "q"}
_DECL = re.compile(r"\s*\\(em|it|itshape|sl|slshape|bf|bfseries|sc|scshape)(?![A-Za-z])\s*")
_DECL_KIND = {"em": "i", "it": "i", "itshape": "i", "sl": "i", "slshape": "i", "bf": "b",
              "bfseries": "b", "sc": "sc", "scshape": "sc"}
_MATH = re.compile(r"(\$\$?)(.+?)(?<!\\)\1", re.S)
_TAGS = {"i": ("<i>", "</i>"), "b": ("<b>", "</b>"), "sup": ("<sup>", "</sup>"),
         "sub": ("<sub>", "</sub>"), "sc": ('<span style="font-variant:small-caps;">', "</span>"),
         "q": ("\u201c", "\u201d"), "": ("", "")}

Node = tuple  # ("t", text) | ("g", [nodes]) | ("m", tex) | (kind, [nodes]) for _TAGS kinds


def text_piece(s: str) -> str:
    """Decoded text of a LaTeX piece, keeping its outer spaces (to_text trims)."""
    if not s:
        return ""
    text = to_text(s)
    lead = " " if s[0].isspace() or s[0] == "~" else ""
    trail = " " if s[-1].isspace() or (s[-1] == "~" and not s.endswith("\\~")) else ""
    text = tex_quotes(text)
    return lead + text + trail if text else (" " if lead or trail else "")


def tex_quotes(text: str) -> str:
    """TeX's quote characters as it typesets them: ` is ‘ and ' is ’."""
    if "'" in text or "`" in text:
        text = text.replace("`", "\u2018").replace("'", "\u2019")
    return text


def parse_latex(s: str, i: int = 0, end: int | None = None) -> list[Node]:
    """A LaTeX field value as nodes: text, braced (case-protected) groups, math, styles."""
    end = len(s) if end is None else end
    out: list[Node] = []
    start = i

    def flush(stop: int) -> None:
        piece = text_piece(s[start:stop])
        if piece:
            out.append(("t", piece))
    while i < end:
        c = s[i]
        if c == "\\":
            m = _CMD.match(s, i + 1, end)
            if not m:
                i += 1
                continue
            name, j = m.group(0), m.end()
            kind = _CMD_KIND.get(name)
            if kind == "q" and j < end and s[j] == "*":
                j += 1  # \enquote*{}: the inner quotes, chosen by the style anyway
            if kind is not None:
                k = j
                while k < end and s[k].isspace():
                    k += 1
                close = closing_brace(s, k, end) if k < end and s[k] == "{" else -1
                if close != -1:
                    flush(i)
                    out.append((kind, parse_latex(s, k + 1, close)))
                    i = start = close + 1
                    continue
            # any other command: its braced arguments are part of the text (\"{o}, \url{})
            k = j
            while k < end and s[k] == "{":
                close = closing_brace(s, k, end)
                if close == -1:
                    break
                k = close + 1
            i = max(k, i + 2)
            continue
        if c == "{":
            close = closing_brace(s, i, end)
            if close == -1:
                i += 1
                continue
            flush(i)
            m = _DECL.match(s, i + 1, close)
            if m:
                inner: list[Node] = [(_DECL_KIND[m.group(1)], parse_latex(s, m.end(), close))]
            else:
                inner = parse_latex(s, i + 1, close)
            out.append(("g", inner))
            i = start = close + 1
            continue
        if c == "$":
            m = _MATH.match(s, i, end)
            if m:
                flush(i)
                out.append(("m", " ".join(m.group(0).split())))
                i = start = m.end()
                continue
        i += 1
    flush(end)
    return out


# Sentence case, as pandoc's BibTeX reader writes it (its citeproc library's sentence
# case over the title's text): a capitalised word (upper case first, lower case after)
# is lowered, and a lower-case one kept, unless it starts the title or a sentence;
# other words (NASA, iPhone, 3D, Word2) are kept. A sentence starts after a space
# that follows . ? ! or : (any of them: "Proc. Int. Conf."); an opening mark at a
# start keeps it ("Word. (Paren)"), any other punctuation ends it ("Conf., western"),
# a hyphen, slash or dash is a word break ("self-made"), TeX's double quotes change
# nothing. The last word of a title, when a space comes before it, is never a
# sentence start ("Proc. Int. Conf. commun.", "Donald {E}. knuth)").
_START, _SENTENCE, _WORD, _SPACE, _PUNCT, _END_PUNCT = range(6)
_TOKEN = re.compile(r"[^\W_]+|\s+|.", re.S)
_WORD_BREAK = frozenset("-/\u2013\u2014")
_NO_STATE = frozenset("\u201c\u201d")  # `` and '': pandoc's quotes, not text


def _sentence_case(nodes: list[Node], state: int, change: bool = True,
                   last: tuple[int, int] | None = None) -> tuple[list[Node], int]:
    """``nodes`` in sentence case from ``state``; ``last``: (node index, offset) where
    the title's last word starts, from which no sentence starts."""
    out: list[Node] = []
    for n, node in enumerate(nodes):
        kind = node[0]
        if kind == "t":
            parts = []
            at = 0
            for tok in _TOKEN.findall(node[1]):
                if last is not None and n == last[0] and at == last[1] and \
                        state in (_START, _SENTENCE, _SPACE):
                    state = _SPACE
                at += len(tok)
                if tok[0].isalnum():
                    if change:
                        tok = _case_word(tok, state)
                    state = _WORD
                elif tok.isspace():
                    state = _SENTENCE if state in (_END_PUNCT, _SENTENCE) else \
                        _START if state == _START else _SPACE
                elif tok in "?!:.":
                    state = _END_PUNCT
                elif tok in _WORD_BREAK:
                    state = _SPACE
                elif tok in _NO_STATE or state in (_START, _SENTENCE):
                    pass
                else:
                    state = _PUNCT
                parts.append(tok)
            out.append(("t", "".join(parts)))
        elif kind in ("g", "q", "sc", "sup", "sub"):  # braced, quoted, small caps...: as written
            _, state = _sentence_case(node[1], state, change=False)
            out.append(node)
        elif kind == "m":
            state = _WORD
            out.append(node)
        else:
            inner, state = _sentence_case(node[1], state, change)
            out.append((kind, inner))
    return out, state


def _last_word(nodes: list[Node]) -> tuple[int, int] | None:
    """Where the last word of a title starts (node index, offset in its text), when the
    title ends in plain text whose last word has a space before it and no word break
    or quote mark in it; else None."""
    if len(nodes) == 0 or nodes[-1][0] != "t":
        return None
    text = nodes[-1][1].rstrip()
    cut = max(text.rfind(" "), text.rfind("\t"), text.rfind("\n"))
    word = text[cut + 1:]
    if cut < 0 and len(nodes) == 1 or not word or any(c in _WORD_BREAK or c in _NO_STATE
                                                      for c in word):
        return None
    return len(nodes) - 1, cut + 1


def _case_word(w: str, state: int) -> str:
    capitalised = w[0].isupper() and all(ch.islower() for ch in w[1:])
    if state in (_START, _SENTENCE):
        if capitalised or all(ch.islower() for ch in w):
            return w[0].upper() + w[1:].lower()
        return w
    return w.lower() if capitalised else w


def _plain_text(nodes: list[Node]) -> str:
    return "".join(n[1] if n[0] in ("t", "m") else _plain_text(n[1]) for n in nodes)


def _has_lower_word(nodes: list[Node]) -> bool:
    return any(w[0].islower() for w in re.findall(r"[^\W\d_]\w*", _plain_text(nodes)))


class Markup(NamedTuple):
    """A field as CSL-JSON rich text, and the TeX of the formulas it holds in order."""

    text: str
    math: tuple[str, ...]


def _emit(nodes: list[Node], english: bool, math: list[str], mark: bool) -> str:
    out = []
    for node in nodes:
        kind = node[0]
        if kind == "t":
            out.append(MARKS.sub("", node[1]))
        elif kind == "m":
            if mark:
                out.append(chr(MATH0 + len(math)))
            else:
                out.append(f'<span class="nocase">{node[1]}</span>' if english else node[1])
            math.append(node[1])
        elif kind == "g":
            inner = _emit(node[1], english, math, mark)
            out.append(f'<span class="nocase">{inner}</span>'
                       if english and _has_lower_word(node[1]) else inner)
        else:
            left, right = _TAGS[kind]
            out.append(left + _emit(node[1], english, math, mark) + right)
    return "".join(out)


def markup(value: str | None, *, title: bool = False, english: bool = True,
           mark: bool = False, math: list[str] | None = None) -> str:
    """A LaTeX field value as CSL-JSON rich text. ``title``: sentence case for an
    English title (braced words protected). ``mark``: formulas become placeholders
    (their TeX appended to ``math``) so that a style's case rules cannot touch them."""
    if not value:
        return ""
    math = [] if math is None else math
    if "{" not in value and "\\" not in value and "$" not in value and not title:
        return text_piece(value).strip()
    nodes = parse_latex(soft_hyphens(value))
    if title and english:
        nodes, _ = _sentence_case(nodes, _START, last=_last_word(nodes))
    text = _emit(nodes, english, math, mark)
    return " ".join(text.split())


def field_text(value: str | None) -> str:
    """A field value as plain CSL text: LaTeX decoded, TeX's quotes and ``\\-`` as
    they print, placeholder characters stripped."""
    if not value:
        return ""
    return tex_quotes(MARKS.sub("", to_text(soft_hyphens(value))))


def soft_hyphens(value: str) -> str:
    """TeX's ``\\-`` (a place a word may break) as U+00AD, the soft hyphen;
    biblatex's ``\\autocap{n}`` as the capital it prints at the start of a field."""
    if "\\-" in value:
        value = re.sub(r"(?<!\\)\\-", "\u00ad", value)
    if "\\autocap" in value:
        value = re.sub(r"\\autocap\s*\{(\w)\}", lambda m: m.group(1).upper(), value)
    return value
