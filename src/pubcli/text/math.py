"""Simple TeX math as Unicode, for a terminal: ``$O(n^2)$`` -> "O(n²)".

:func:`pubcli.text.latex.to_text` keeps math as written (``$...$``) so a page can
hand it to KaTeX; a terminal has nothing to hand it to. :func:`terminal_text` is
``to_text`` with each ``$...$`` span of the raw value that is *simple* rewritten: letters, digits, operators, Greek
letters and the common symbols (``\\alpha``, ``\\leq``, ``\\times``, ``\\log``...),
font commands around plain text (``\\mathcal{O}`` -> "O"), ``\\sqrt{x}`` and super-
and subscripts that Unicode has (``^2``, ``^{-3}``, ``_i``). A span with anything
else (``\\frac``, a subscript Unicode lacks, a macro not in the tables) is kept as
written, dollars and all: it is never shown half converted.
"""

from __future__ import annotations

import re

_SPAN_RE = re.compile(r"(?<!\\)\$([^$]+?)(?<!\\)\$")
_SYMBOLS = {
    **dict(zip("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa "
               "lambda mu nu xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi "
               "psi omega".split(),
               "αβγδϵεζηθϑικλμνξπϖρϱσςτυϕφχψω")),
    **dict(zip("Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega".split(),
               "ΓΔΘΛΞΠΣΥΦΨΩ")),
    "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠", "approx": "≈",
    "sim": "∼", "simeq": "≃", "equiv": "≡", "times": "×", "cdot": "·", "pm": "±", "mp": "∓",
    "div": "÷", "infty": "∞", "to": "→", "rightarrow": "→", "leftarrow": "←",
    "Rightarrow": "⇒", "leftrightarrow": "↔", "mapsto": "↦", "in": "∈", "notin": "∉",
    "subset": "⊂", "subseteq": "⊆", "cup": "∪", "cap": "∩", "emptyset": "∅",
    "forall": "∀", "exists": "∃", "neg": "¬", "wedge": "∧", "land": "∧", "vee": "∨",
    "lor": "∨", "oplus": "⊕", "otimes": "⊗", "partial": "∂", "nabla": "∇", "ell": "ℓ",
    "sum": "∑", "prod": "∏", "int": "∫", "ldots": "…", "cdots": "⋯", "dots": "…",
    "circ": "∘", "star": "⋆", "ast": "∗", "prime": "′", "langle": "⟨", "rangle": "⟩",
    "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "mid": "∣", "|": "‖",
    "log": "log", "ln": "ln", "exp": "exp", "min": "min", "max": "max", "sin": "sin",
    "cos": "cos", "lim": "lim", "deg": "deg", "det": "det", "Pr": "Pr",
    ",": " ", ";": " ", ":": " ", "!": "", " ": " ", "quad": " ", "qquad": "  ",
    "{": "{", "}": "}", "%": "%", "&": "&", "#": "#", "_": "_",
}
_FONTS = {"mathrm", "mathit", "mathbf", "mathsf", "mathtt", "mathcal", "mathbb", "mathfrak",
          "text", "textrm", "textit", "textbf", "operatorname", "mbox", "boldsymbol", "bm"}
_DOUBLE = dict(zip("RNZQCPE1", "ℝℕℤℚℂℙ𝔼𝟙"))
_SUPER = dict(zip("0123456789+-=()nixk", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱˣᵏ"))
_SUB = dict(zip("0123456789+-=()aeijkmnoprstux", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢⱼₖₘₙₒₚᵣₛₜᵤₓ"))
_PLAIN = re.compile(r"[A-Za-z0-9\s()\[\]+\-=<>/.,;:!?'|*]")


class _NotSimple(Exception):
    """The span holds something :func:`unicode_math` does not convert."""


def terminal_text(raw: str) -> str:
    """A raw field value as a terminal shows it: :func:`~pubcli.text.latex.to_text`,
    with each simple ``$...$`` span as Unicode and the others as written (an escaped
    ``\\$`` is a dollar, never the start of math)."""
    from pubcli.text.latex import to_text

    if "$" not in raw:
        return to_text(raw)
    parts: list[str] = []
    pos = 0
    for m in _SPAN_RE.finditer(raw):
        parts += [_outside(raw[pos:m.start()], to_text), _span(m)]
        pos = m.end()
    parts.append(_outside(raw[pos:], to_text))
    return " ".join("".join(parts).split())


def unicode_math(math: str) -> str | None:
    """The inside of one ``$...$`` span as Unicode, or None when it is not simple."""
    try:
        return _math(math).strip()
    except _NotSimple:
        return None


def _outside(text: str, to_text) -> str:
    """Text between math spans, its white space at either end kept (to_text strips it)."""
    if not text:
        return ""
    inner = to_text(text)
    bare = text.strip("{}")  # a group's brace beside the math is not text
    return (" " if bare[:1].isspace() else "") + inner + \
        (" " if bare[-1:].isspace() and inner else "")


def _span(m: re.Match[str]) -> str:
    shown = unicode_math(m.group(1))
    return m.group(0) if shown is None else shown


def _math(s: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            name, i = _control(s, i + 1)
            if name in ("mathbb", "mathbbm"):
                body, i = _group(s, i)
                try:
                    out.append("".join(_DOUBLE[ch] for ch in body))
                except KeyError:
                    raise _NotSimple from None
            elif name in _FONTS or name == "sqrt":
                body, i = _group(s, i)
                out.append(("√" if name == "sqrt" and len(body) == 1 else
                            "√(" if name == "sqrt" else "") + _math(body)
                           + (")" if name == "sqrt" and len(body) > 1 else ""))
            elif name in _SYMBOLS:
                word = _SYMBOLS[name]
                if word.isalpha() and len(word) > 1 and out and out[-1][-1:].isalnum():
                    out.append(" ")
                out.append(word)
                if word.isalpha() and len(word) > 1 and i < len(s) and s[i] == " ":
                    out.append(" ")
            else:
                raise _NotSimple
        elif c in "^_":
            body, i = _group(s, i + 1)
            table = _SUPER if c == "^" else _SUB
            if body.startswith("\\"):
                raise _NotSimple
            try:
                out.append("".join(table[ch] for ch in body))
            except KeyError:
                raise _NotSimple from None
        elif c == "{":
            body, i = _group(s, i)
            out.append(_math(body))
        elif _PLAIN.match(c):
            out.append(" " if c.isspace() else c)
            i += 1
        else:
            raise _NotSimple
    return re.sub(r" {2,}", " ", "".join(out))


def _control(s: str, i: int) -> tuple[str, int]:
    """A control sequence's name from ``s[i]`` on, and where it ends (spaces after a
    word are TeX's to drop)."""
    if i >= len(s):
        raise _NotSimple
    if not s[i].isalpha():
        return s[i], i + 1
    j = i
    while j < len(s) and s[j].isalpha():
        j += 1
    return s[i:j], j


def _group(s: str, i: int) -> tuple[str, int]:
    """One argument from ``s[i]`` on: a braced group's inside, else one character."""
    while i < len(s) and s[i] == " ":
        i += 1
    if i >= len(s):
        raise _NotSimple
    if s[i] != "{":
        if s[i] == "\\":
            name, j = _control(s, i + 1)
            return "\\" + name, j
        return s[i], i + 1
    depth, j = 0, i
    while j < len(s):
        if s[j] == "{":
            depth += 1
        elif s[j] == "}":
            depth -= 1
            if depth == 0:
                return s[i + 1:j], j + 1
        j += 1
    raise _NotSimple


__all__ = ["terminal_text", "unicode_math"]
