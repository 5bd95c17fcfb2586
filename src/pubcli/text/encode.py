"""Text -> LaTeX, for the entries pubcli writes from plain text (a pasted listing, a web
service's answer, ``pubcli fmt``'s encoding): LaTeX's specials escaped, the capitals a
style must keep braced, Unicode letters as LaTeX accents and back."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from pubcli.text.tables import MATH_RE, ACCENTS, LETTERS, lazy

# ------------------------------------------------------------------ text -> LaTeX
# The other direction, for entries pubcli writes from plain text (a pasted listing,
# a web service's answer): LaTeX's specials escaped, capitals a style must keep braced.
_TEX_SPECIAL_RE = lazy(r"[\\{}&%$#_~^]")
_TEX_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&",
                "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}",
                "^": r"\textasciicircum{}"}
# a word: letters and digits, with inner apostrophes and hyphens ("O'Brien", "ZeRO-Offload")
_TITLE_WORD_RE = lazy(r"(?<![^\W_])(?<![\\{])([^\W_](?:[^\W_]|['\u2019]|-(?=[^\W_]))*)")
_UNESCAPED_BRACE_RE = lazy(r"(?<!\\)[{}]")


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
_TO_UNICODE_RE = lazy(
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
    for m in MATH_RE.finditer(value):
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
