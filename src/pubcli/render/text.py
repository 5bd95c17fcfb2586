"""Text that is safe to show: the one sanitiser every text output goes through.

A field value can hold anything a file or a web page put there, including
terminal escape sequences (ESC ] 0 ; title BEL sets the window title, ESC [ 2 J
clears the screen). :func:`clean` makes such characters visible and harmless
before they reach a terminal or a text file; :func:`csv_cell` also keeps a
spreadsheet from reading a cell as a formula (OWASP's leading ``'``).
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and the C1 controls (U+0080-U+009F); a CR is
# harmless only as the first half of a CRLF line end (alone it rewrites the line shown).
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")
_C1_RE = re.compile(r"[\x80-\x9f]")
_C1 = tuple(map(chr, range(0x80, 0xA0)))
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _visible(m: re.Match[str]) -> str:
    c = ord(m.group(0))
    if c < 0x20:
        return chr(0x2400 + c)  # the Unicode control pictures: ESC -> U+241B
    if c == 0x7F:
        return "\u2421"
    return "\ufffd"


def clean(text: str) -> str:
    """``text`` with every control character other than tab and newline (and CRLF line
    ends) replaced by a visible stand-in (ESC becomes U+241B, a lone CR U+240D, a C1
    control U+FFFD)."""
    if not text or text.isprintable() or not _CONTROL_RE.search(text):  # isprintable: no Cc
        return text
    return _CONTROL_RE.sub(_visible, text)


# the same controls in UTF-8: each C0 control and DEL one byte of its own (no byte of
# a longer sequence is below 0x80), each C1 control \xc2 and one byte; a CR is looked at
_C0_BYTES = frozenset([*range(0x09), 0x0B, 0x0C, 0x0D, *range(0x0E, 0x20), 0x7F])
_NOT_C0 = bytes(b for b in range(256) if b not in _C0_BYTES)
_C1_UTF8_RE = re.compile(rb"\xc2[\x80-\x9f]")


def clean_utf8(text: str) -> bytes:
    """``clean(text)`` as UTF-8 bytes; a big text with nothing to clean (a page) is
    passed over in its bytes, several times faster than a search of its characters."""
    data = text.encode("utf-8")
    odd = data.translate(None, _NOT_C0)  # the C0 controls, DEL and CRs it holds
    if (not odd or (not odd.strip(b"\r") and data.count(b"\r") == data.count(b"\r\n"))) \
            and not (b"\xc2" in data and _C1_UTF8_RE.search(data)):
        return data
    return clean(text).encode("utf-8")


def one_line(text: str) -> str:
    """``text`` cleaned and on one line (white space runs collapsed)."""
    return " ".join(clean(text).split())


def csv_cell(value: object) -> str:
    """A CSV cell: cleaned, and with a leading ``'`` when a spreadsheet would read it
    as a formula (it starts with =, +, -, @, tab or CR)."""
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA_START):
        text = "'" + text
    return clean(text)


def json_safe(text: str) -> str:
    """JSON text with the C1 controls written as \\u escapes (``json`` leaves them raw);
    the data is unchanged, only the spelling."""
    if text.isascii() or not any(c in text for c in _C1):  # 32 fast scans beat one regex
        return text
    return _C1_RE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


__all__ = ["clean", "one_line", "csv_cell", "json_safe"]
