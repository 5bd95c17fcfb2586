"""HTML backend: one self-contained, autoescaped HTML5 page.

The page's CSS and JavaScript live beside the templates (``_page.css.j2``,
``_page.js.j2``) and are inlined verbatim; a Content-Security-Policy that
allows exactly those two blocks (by SHA-256 hash) and no network at all is
computed here, so a script that somehow reached the page could not run.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from functools import lru_cache
from collections.abc import Iterable, Iterator, Mapping, Sequence

from markupsafe import Markup, escape

from ..errors import ValidationError
from .spans import Span
from .style import Page

REF_AUTHORS = 1  # authors a listing shows before "et al." until the script fills it in
TEMPLATE = "page.html.j2"
STYLE = "_page.css.j2"
SCRIPT = "_page.js.j2"


def rich(spans: Sequence[Span], mathml: Mapping[str, str] | None = None) -> Markup:
    """Styled runs -> escaped HTML (``<em>``, ``<strong>``; math as MathML where
    ``mathml`` has it, else as its ``$...$`` text)."""
    return Markup(_rich(spans, mathml))


def _rich(spans: Sequence[Span], mathml: Mapping[str, str] | None) -> str:
    if len(spans) == 1:
        sp = spans[0]
        if not (sp.em or sp.strong or sp.math):  # most titles: one plain run
            return _text(sp.text)
    runs: list[tuple[bool, bool, list[str]]] = []
    for sp in spans:
        if sp.math and mathml and sp.text in mathml:
            text = mathml[sp.text]
        else:
            text = _text(sp.text)
            if sp.math:
                text = f'<span class="math">{text}</span>'
        if runs and runs[-1][:2] == (sp.em, sp.strong):
            runs[-1][2].append(text)
        else:
            runs.append((sp.em, sp.strong, [text]))
    out = []
    for em, strong, parts in runs:
        text = "".join(parts)
        if strong:
            text = f"<strong>{text}</strong>"
        if em:
            text = f"<em>{text}</em>"
        out.append(text)
    return "".join(out)


def authors(people: Sequence[tuple[str, bool]]) -> Markup:
    """Comma-separated names, the owner's in ``<strong class="owner">``."""
    return Markup(_names(people))


def _names(people: Sequence[tuple[str, bool]]) -> str:
    return ", ".join(f'<strong class="owner">{_escaped(name)}</strong>' if owner
                     else _escaped(name) for name, owner in people)


@lru_cache(maxsize=65536)
def _escaped(text: str) -> str:
    return str(escape(text))  # names recur from entry to entry


def _text(text: str) -> str:
    """Escaped text that does not recur (a title, a key, a venue line)."""
    return str(escape(text))


def ref(e, mathml: Mapping[str, str] | None = None, styled=None) -> Markup:
    """A listing that refers to the entry's full rendering (its home, ``#anchor``):
    without JavaScript the whole reference (title linked to the home, authors, venue,
    volume, pages, date; or the styled reference), with its abstract and BibTeX a
    click away at the home; the page script fills in a copy of the home entry when
    the listing is shown. (``anchor`` is a slug: ``[a-z0-9-]`` only.) Made for each
    listing as it is written: a 100k page holds no listing's HTML. ``styled(e, alone)``
    gives the styled reference's HTML (default: :func:`cite`)."""
    head = f'<li class="pub ref" data-ref="{e.anchor}" data-key="{_text(e.key)}">'
    if e.cite is not None:
        made = styled(e, True) if styled is not None else cite(e, mathml, alone=True)
        return Markup(f'{head}<p class="cite">{made} '
                      f'<a class="home" href="#{e.anchor}">more</a></p></li>\n')
    line = e.venue_line
    venue = f'<p class="venue">{_text(line)}</p>' if line else ""
    # the first author (the listing's full copy, filled in by the script, has all)
    if e.authors:
        more = " et al." if len(e.authors) > REF_AUTHORS else ""
        people = f'<div class="authors">{_names(e.authors[:REF_AUTHORS])}{more}</div>'
    else:
        people = ""
    return Markup(f'{head}<p class="title">'
                  f'<a href="#{e.anchor}">{_rich(e.title, mathml) or _text(e.key)}</a></p>'
                  f'{people}{venue}</li>\n')


def pre(text: str) -> Markup:
    """Text for element content (``<pre>``): only ``&``, ``<`` and ``>`` need escaping."""
    return Markup(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


def cite(e, mathml: Mapping[str, str] | None = None, alone: bool = False) -> Markup:
    """The entry's reference in its citation style, the title linked when it has a URL
    (``alone``: as shown apart from the reference before it, no "———")."""
    c = e.cite_alone if alone and e.cite_alone is not None else e.cite
    title = rich(c.title, mathml)
    if title and e.title_url:
        title = Markup(f'<a href="{escape(e.title_url)}">{title}</a>')
    elif title:
        title = Markup(f'<span class="title">{title}</span>')
    return Markup(f"{rich(c.before, mathml)}{title}{rich(c.after, mathml)}")


# MathML elements and attributes pandoc writes; anything else is not taken from it
_MATHML_TAGS = frozenset(
    "math semantics annotation mrow mi mo mn ms mtext mspace msup msub msubsup mfrac msqrt "
    "mroot mover munder munderover mtable mtr mtd mstyle mpadded mphantom menclose merror "
    "mmultiscripts mprescripts none".split())
_MATHML_ATTRS = frozenset(
    "display xmlns encoding stretchy form width height depth lspace rspace accent accentunder "
    "mathvariant mathsize fence separator largeop movablelimits columnalign rowalign "
    "linethickness notation scriptlevel displaystyle minsize maxsize symmetric class".split())


def _safe_mathml(text: str) -> bool:
    for m in re.finditer(r"<\s*(/?)\s*([^\s/>]+)([^>]*)>", text):
        if m.group(2).lower() not in _MATHML_TAGS:
            return False
        for name in re.findall(r"([^\s=]+)\s*=", m.group(3)):
            if name.lower() not in _MATHML_ATTRS:
                return False
    return "<!" not in text and "<?" not in text


def page_mathml(page: Page) -> dict[str, str]:
    """{TeX: MathML} for every formula on the page (titles, abstracts, references), in
    one pandoc call; empty without pandoc (formulas then show as their TeX)."""
    from . import mathml, pandoc

    found: dict[str, None] = {}

    def add(spans: Iterable[Span]) -> None:
        for sp in spans:
            if sp.math:
                found.setdefault(sp.text)
    for e in page.entries:
        for formula in e.formulas():
            found.setdefault(formula)
        if e.cite is not None:
            for part in e.cite:
                add(part)
    if not found:
        return {}
    try:
        pandoc.find()
    except pandoc.PandocMissing:
        return {}
    tex = sorted(found)
    return {t: m for t, m in zip(tex, mathml.to_mathml(tex), strict=True) if m and _safe_mathml(m)}


def facets(e, page) -> Markup:
    """``e|facets(page)``: ` data-y="2024" data-t="1" data-a="0 2"`: year, and indexes
    into the page's ``facet_types`` / ``facet_areas`` (listed once, on <main>)."""
    types, areas = page.facet_index
    idx = " ".join(str(areas[a]) for a in e.areas if a in areas)
    out = f' data-y="{e.year}"' if e.year else ""
    t = types.get(e.type_group)
    if t is not None:
        out += f' data-t="{t}"'
    return Markup(out + (f' data-a="{idx}"' if idx else ""))


def description(page: Page) -> str:
    """The page's one-line summary for search engines and link previews."""
    n = page.total
    what = f"{n} publication{'s' if n != 1 else ''}"
    if page.owner:
        years = [e.year for e in page.entries if e.year]
        span = f", {min(years)}\u2013{max(years)}" if len(set(years)) > 1 else \
            f", {years[0]}" if years else ""
        return f"{what} by {page.owner}{span}" + (f" ({page.role})" if page.role else "")
    return what


class JsonLd:
    """The page's schema.org data: a ``CollectionPage`` whose parts are one
    ``ScholarlyArticle`` per publication (what scholarly search engines read),
    deterministic and safe inside ``<script>`` (no "</", "<!--"). Iterating gives its
    text in pieces, made again each time (a 100k page's is 50 MB: it is never held
    whole); :attr:`hash` is its CSP hash; ``{{ jsonld }}`` in a template, the whole."""

    def __init__(self, page: Page) -> None:
        self.page = page
        digest = hashlib.sha256()
        for part in self:
            digest.update(part.encode("utf-8"))
        self.hash = "sha256-" + base64.b64encode(digest.digest()).decode("ascii")

    def __iter__(self) -> Iterator[Markup]:
        for part in _json_ld_parts(self.page):
            yield Markup(_script_safe(part))

    def __html__(self) -> str:
        return "".join(self)


_JSON = json.JSONEncoder(ensure_ascii=False)  # what json.dumps(ensure_ascii=False) writes


def _script_safe(text: str) -> str:
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@lru_cache(maxsize=65536)
def _person_json(name: str) -> str:
    return f'{{"@type":"Person","name":{_JSON.encode(name)}}}'  # names recur


def _article_json(e) -> str:
    """One publication's ``ScholarlyArticle``, as ``json.dumps(..., sort_keys=True,
    separators=(",", ":"))`` writes it."""
    s = _JSON.encode
    out = ['{"@type":"ScholarlyArticle"']
    if e.authors:
        out.append(',"author":[' + ",".join(_person_json(name) for name, _ in e.authors) + "]")
    if e.year:
        out.append(f',"datePublished":"{e.year}"')
    if e.venue:
        out.append(',"isPartOf":' + s(e.venue))
    out.append(',"name":' + s(e.title_text))
    doi = next((lk.url for lk in e.links if lk.label == "DOI"), None)
    if doi:
        out.append(',"sameAs":' + s(doi))
    if e.title_url:
        out.append(',"url":' + s(e.title_url))
    out.append("}")
    return "".join(out)


def _json_ld_parts(page: Page, batch: int = 512) -> Iterator[str]:
    """The JSON text of :class:`JsonLd` (before its ``<``, ``>``, ``&`` are escaped) in
    pieces of ``batch`` publications: keys sorted, no spaces, non-ASCII as is."""
    s = _JSON.encode
    yield ('{"@context":"https://schema.org","@type":"CollectionPage","description":'
           f'{s(description(page))},"hasPart":[')
    entries = page.entries
    for start in range(0, len(entries), batch):
        part = ",".join(_article_json(e) for e in entries[start:start + batch])
        yield ("," + part) if start else part
    yield f'],"name":{s(page.title)}}}'


def csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def environment(loader):
    from jinja2 import Environment, StrictUndefined

    env = Environment(loader=loader, autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    table: dict[str, str] = {}  # {TeX: MathML}, filled by context() for its page
    env.globals["_mathml"] = table
    env.filters["rich"] = lambda spans: rich(spans, table)
    env.filters["authors"] = authors
    env.filters["pre"] = pre
    # a styled entry's reference reads the same in every listing (and, with no "———",
    # as at its home): its HTML made once per entry (no bigger than its runs, held
    # already); an unstyled listing is made as it is written
    cites: dict[tuple[int, bool], tuple[object, Markup]] = {}

    def cite_once(e, alone: bool = False) -> Markup:
        key = (id(e), alone and e.cite_alone is not None)
        got = cites.get(key)
        if got is None or got[0] is not e:
            got = cites[key] = (e, cite(e, table, alone))
        return got[1]
    env.filters["ref"] = lambda e: ref(e, table, cite_once)
    env.filters["cite"] = cite_once
    env.filters["facets"] = facets
    return env


def context(page, env) -> dict:
    """What every HTML template gets: the page, the inline CSS/JS and their hashes."""
    style = env.loader.get_source(env, STYLE)[0]
    script = env.loader.get_source(env, SCRIPT)[0]
    for name, text in ((STYLE, style), (SCRIPT, script)):
        if "</" in text:
            # "</" would end the inline <style>/<script> block early
            raise ValidationError(f"template {name} must not contain '</'")
    env.globals["_mathml"].update(page_mathml(page))
    jsonld = JsonLd(page)
    return {
        "page": page,
        "description": description(page),
        "jsonld": jsonld,
        "jsonld_hash": jsonld.hash,
        "style": Markup(style),
        "script": Markup(script),
        "style_hash": csp_hash(style),
        "script_hash": csp_hash(script),
    }
