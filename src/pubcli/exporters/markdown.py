"""Markdown backend: CommonMark / GitHub-flavoured text with every field escaped.

In a Markdown template ``{{ value }}`` is escaped for Markdown (the environment's
``finalize`` hook); filters that build Markdown (``md_rich``, ``md_authors``,
``md_link``...) return text marked safe so it is not escaped twice.

Escaping: ASCII punctuation that Markdown or GFM could read as syntax gets a
backslash, ``<`` and ``&`` included (so no raw HTML or entity can slip in); a
value that would start a list, heading or block quote at the start of a line
has its first character escaped too. Math keeps its text exactly, written
``$`...`$`` (GitHub's math syntax, a dollar-delimited code span elsewhere).
"""

from __future__ import annotations

import re
from functools import lru_cache
from collections.abc import Iterable, Sequence

from markupsafe import Markup

from .entries import Entry, Link
from .spans import Span

TEMPLATE = "page.md.j2"

_SPECIAL_CHARS = "\\`*_[]<>|~$#&"
_SPECIAL_TABLE = str.maketrans({c: "\\" + c for c in _SPECIAL_CHARS})
_LINE_START = re.compile(r"^(\d{1,9})([.)])|^([-+=])")
_WS = re.compile(r"\s+")
_URL_UNSAFE = re.compile(r"[()\s<>\\`]")


def escape(value: object) -> Markup:
    """Plain text -> Markdown that shows exactly that text."""
    if isinstance(value, Markup):
        return value
    return Markup(_escape_text(str(value)))


@lru_cache(maxsize=65536)
def _escape_text(text: str) -> str:
    text = _WS.sub(" ", text).strip()
    return _guard_line_start(text.translate(_SPECIAL_TABLE))


def _guard_line_start(text: str) -> str:
    """Escape what would start a list, heading or block at the start of a line."""
    m = _LINE_START.match(text)
    if not m:
        return text
    if m.group(1):
        return m.group(1) + "\\" + text[len(m.group(1)):]
    return "\\" + text


def finalize(value: object) -> object:
    """Jinja ``finalize``: every ``{{ value }}`` of a Markdown template is escaped."""
    if value is None:
        return Markup("")
    if isinstance(value, Markup):
        return value
    return escape(value)


def url(value: str) -> Markup:
    """A link destination: characters that end or break one are percent-encoded."""
    return Markup(_URL_UNSAFE.sub(lambda m: f"%{ord(m.group(0)):02X}", value))


def _math(text: str) -> str:
    body = text[2:-2] if text.startswith("$$") else text[1:-1]
    ticks = max((len(t) for t in re.findall(r"`+", body)), default=0)
    fence = "`" * (ticks + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"${fence}{pad}{body}{pad}{fence}$"


def _is_punct(c: str) -> bool:
    return bool(c) and not c.isalnum() and not c.isspace()


def rich(spans: Sequence[Span], strong: bool = True) -> Markup:
    """Styled runs -> Markdown (``*em*``, ``**strong**``, math verbatim).

    ``strong=False`` drops bold runs to plain text (for a title already in bold).
    """
    runs: list[tuple[bool, bool, list[Span]]] = []
    for sp in spans:
        st = (sp.em, sp.strong and strong)
        if runs and (runs[-1][0], runs[-1][1]) == st:
            runs[-1][2].append(sp)
        else:
            runs.append((st[0], st[1], [sp]))
    out: list[str] = []
    prev_styled = False
    for n, (em, bold, parts) in enumerate(runs):
        body = "".join(_math(p.text) if p.math else str(escape_inline(p.text)) for p in parts)
        if not (em or bold):
            out.append(body)
            prev_styled = False
            continue
        raw = "".join(p.text for p in parts)
        lead = " " if raw.startswith(" ") else ""
        trail = " " if raw.endswith(" ") else ""
        body = body.strip(" ")
        before = runs[n - 1][2][-1].text[-1:] if n else ""
        after = runs[n + 1][2][0].text[:1] if n + 1 < len(runs) else ""
        inner = raw.strip(" ")
        awkward = ((_is_punct(inner[:1]) and before.isalnum() and not lead)
                   or (_is_punct(inner[-1:]) and after.isalnum() and not trail)
                   or (prev_styled and not lead))
        if awkward:  # emphasis delimiters would not be recognised here: use HTML tags
            open_, close = ("<em>" if em else "") + ("<strong>" if bold else ""), \
                ("</strong>" if bold else "") + ("</em>" if em else "")
        else:
            mark = "*" * ((1 if em else 0) + (2 if bold else 0))
            open_, close = mark, mark
        out.append(f"{lead}{open_}{body}{close}{trail}")
        prev_styled = not trail
    return Markup(_guard_line_start("".join(out)))


def escape_inline(text: str) -> Markup:
    """Like :func:`escape` but keeps edge spaces (a run inside a line)."""
    lead = " " if text.startswith(" ") else ""
    trail = " " if text.endswith(" ") and len(text) > 1 else ""
    core = text.strip(" ")
    if not core:
        return Markup(" " if text else "")
    return Markup(lead + _WS.sub(" ", core).translate(_SPECIAL_TABLE) + trail)


def title(e: Entry) -> Markup:
    """The title in bold, linked to its DOI or URL when it has one."""
    body = rich(e.title, strong=False) or escape(e.key)
    if e.title_url:
        return Markup(f"**[{body}]({url(e.title_url)})**")
    return Markup(f"**{body}**")


def authors(people: Iterable[tuple[str, bool]]) -> Markup:
    """Comma-separated names, the owner's in bold."""
    return Markup(", ".join(f"**{_escape_text(name)}**" if owner else _escape_text(name)
                            for name, owner in people))


def cite(e: Entry) -> Markup:
    """The reference in its citation style; the title linked when it has a URL."""
    c = e.cite
    assert c is not None  # cite() is used for pages in a citation style only
    title = rich(c.title, strong=False) if c.title else Markup("")
    if title and e.title_url:
        title = Markup(f"[{title}]({url(e.title_url)})")
    parts = [str(rich(c.before)) if c.before else "", str(title),
             str(rich(c.after)) if c.after else ""]
    return Markup(_guard_line_start("".join(parts)))


def venue(e: Entry) -> Markup:
    """"*ICLR 2024* | May 2024": the venue in italics, apart from the date."""
    where = f"*{_escape_text(e.venue)}*" if e.venue else ""
    if e.locator:
        where = f"{where}, {_escape_text(e.locator)}" if where else _escape_text(e.locator)
    return Markup(" \\| ".join(p for p in (where, _escape_text(e.date) if e.date else "") if p))


def link(lk: Link) -> Markup:
    return Markup(f"[{escape(lk.label)}]({url(lk.url)})")


def links(lks: Iterable[Link]) -> Markup:
    return Markup(" \u00b7 ".join(str(link(lk)) for lk in lks))


FILTERS = {
    "md": escape,
    "md_rich": rich,
    "md_url": url,
    "md_title": title,
    "md_authors": authors,
    "md_link": link,
    "md_links": links,
    "md_cite": cite,
    "md_venue": venue,
}


def environment(loader):
    from jinja2 import Environment, StrictUndefined

    env = Environment(loader=loader, autoescape=True, finalize=finalize,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    env.filters.update(FILTERS)
    return env


def context(page, env) -> dict:
    return {"page": page}
