"""CSL: records as CSL-JSON, and references formatted in a citation style.

:func:`item` builds the CSL-JSON of one record from pubcli's own reading of it
(LaTeX decoded by :mod:`pubcli.latex`, names split by :mod:`pubcli.names`), so
fields a generic BibTeX reader drops (``eprint``/``archiveprefix``,
``howpublished``) arrive. CSL-JSON is what pandoc, Quarto and Zotero read.

:class:`Styler` formats references with citeproc-py (imported only here, only
when a style is asked for) and keeps every formatted reference in a cache file
keyed by the style and the item's CSL-JSON, so re-running an export formats only
the entries that changed. A reference comes back as a :class:`Cite`: styled
runs (:class:`~.style.Span`) before, inside and after the title, the page
owner's name in strong runs, so both backends escape and link it themselves.

Shipped styles (``--style``): :data:`STYLES`, from the CSL project's style
repository (CC BY-SA 3.0; see ``pubcli/styles/README.md``). ``--csl FILE``
takes any CSL 1.0 style file.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

from .. import values
from ..errors import PubcliError, ValidationError
from ..latex import to_text
from ..model import Record
from ..names import parse_name, split_authors
from ..styles import STYLE_DIR, STYLES
from .style import Span


# Bumped whenever item() maps a record differently: cached references keyed on a
# record's fields (see Styler.cite) are then formatted afresh.
MAPPING_VERSION = 1

# BibTeX / biblatex entry type -> CSL type.
CSL_TYPES: dict[str, str] = {
    "article": "article-journal", "inproceedings": "paper-conference",
    "conference": "paper-conference", "book": "book", "mvbook": "book",
    "inbook": "chapter", "incollection": "chapter", "bookinbook": "chapter",
    "collection": "book", "mvcollection": "book", "proceedings": "book",
    "mvproceedings": "book", "booklet": "pamphlet", "manual": "report",
    "techreport": "report", "report": "report", "phdthesis": "thesis",
    "mastersthesis": "thesis", "thesis": "thesis", "unpublished": "manuscript",
    "online": "webpage", "electronic": "webpage", "software": "software",
    "dataset": "dataset", "patent": "patent", "periodical": "periodical",
    "preprint": "article", "misc": "document",
}
THESIS_GENRES = {"phdthesis": "PhD thesis", "mastersthesis": "Master's thesis"}
# Plain fields copied as text: BibTeX name -> CSL variable.
TEXT_FIELDS: tuple[tuple[str, str], ...] = (
    ("volume", "volume"), ("edition", "edition"), ("chapter", "chapter-number"),
    ("series", "collection-title"), ("isbn", "ISBN"), ("issn", "ISSN"),
    ("note", "note"), ("abstract", "abstract"), ("eventtitle", "event"),
    ("language", "language"),
)
# Private-use characters that mark the owner's name and the title inside a
# formatted reference, and italic/bold runs (see _Formatter). Stripped from input.
_OWNER, _OWNER_END, _TITLE, _TITLE_END = "\ue000", "\ue001", "\ue002", "\ue003"
_EM, _EM_END, _STRONG, _STRONG_END = "\ue010", "\ue011", "\ue012", "\ue013"
_MARKS = re.compile("[\ue000-\ue01f]")
_ARXIV_ID = re.compile(r"\d{4}\.\d{4,5}(v\d+)?$|[a-z-]+(\.[A-Z]{2})?/\d{7}(v\d+)?$")


# ---------------------------------------------------------------- CSL-JSON
def _text(value: str | None) -> str:
    return _MARKS.sub("", to_text(value)) if value else ""


def names(value: str | None, owner: str | None = None) -> list[dict]:
    """A BibTeX name list as CSL names (family, given, particles, suffix; a
    braced name such as ``{Microsoft Research}`` as a literal)."""
    from ..names import is_person

    out: list[dict] = []
    for raw in split_authors(value):
        if raw.lower() == "others":
            continue
        if raw.startswith("{") and raw.endswith("}") and raw.count("{") == 1:
            out.append({"literal": _text(raw)})
            continue
        n = parse_name(raw)
        name: dict[str, str] = {}
        family = _MARKS.sub("", n.last)
        if owner and is_person(raw, owner):
            family = f"{_OWNER}{family}{_OWNER_END}"
        if family:
            name["family"] = family
        if n.first:
            name["given"] = _MARKS.sub("", n.first)
        if n.von:
            name["non-dropping-particle"] = _MARKS.sub("", n.von)
        if n.jr:
            name["suffix"] = _MARKS.sub("", n.jr)
        if name:
            out.append(name)
    return out


def issued(rec: Record) -> dict | None:
    """``{"date-parts": [[2024, 5]]}`` from ``date`` (ISO, ranges) or year/month."""
    date = rec.fields.get("date", "").strip()
    if date:
        parts = []
        for piece in date.split("/")[:2]:
            m = re.fullmatch(r"(-?\d{1,4})(?:-(\d{2})(?:-(\d{2}))?)?", piece.strip())
            if m:
                parts.append([int(x) for x in m.groups() if x is not None])
        if parts:
            return {"date-parts": parts}
    if rec.year is None:
        return None
    return {"date-parts": [[rec.year, rec.month] if rec.month else [rec.year]]}


def arxiv_id(rec: Record) -> str | None:
    f = rec.fields
    eprint = f.get("eprint", "").strip()
    if not eprint:
        return None
    kind = (f.get("archiveprefix") or f.get("eprinttype") or "").strip().lower()
    if kind == "arxiv" or (not kind and _ARXIV_ID.match(eprint)):
        return eprint
    return None


def item(rec: Record, *, owner: str | None = None, id: str | None = None,
         mark: bool = False, private: Iterable[str] = ()) -> dict:
    """The CSL-JSON item for one record. ``mark`` wraps the title and the owner's
    family name in private-use markers (for :class:`Styler`; never in an export)."""
    drop = set(private)
    f = {k: v for k, v in rec.fields.items() if k not in drop} if drop else rec.fields
    ctype = CSL_TYPES.get(rec.type, "document")
    arxiv = arxiv_id(rec)
    if ctype == "document" and arxiv:
        ctype = "article"  # a preprint
    out: dict = {"id": id or rec.key, "type": ctype}
    title = _text(f.get("title"))
    if title:
        out["title"] = f"{_TITLE}{title}{_TITLE_END}" if mark else title
    for role in ("author", "editor", "translator"):
        people = names(f.get(role), owner if mark else None)
        if people:
            out[role] = people
    when = issued(rec)
    if when:
        out["issued"] = when
    container = f.get("journal") or f.get("journaltitle") or f.get("booktitle")
    if container:
        out["container-title"] = _text(container)
    publisher = f.get("publisher")
    if rec.type in {"techreport", "report", "phdthesis", "mastersthesis", "thesis"}:
        publisher = f.get("institution") or f.get("school") or publisher
    publisher = publisher or f.get("organization") or f.get("institution")
    if publisher:
        out["publisher"] = _text(publisher)
    place = f.get("address") or f.get("location")
    if place:
        out["publisher-place"] = _text(place)
    if f.get("pages"):
        out["page"] = re.sub(r"\s*-+\s*", "-", _text(f["pages"]).replace("\u2013", "-"))
    if f.get("number"):
        key = "issue" if ctype in {"article-journal", "periodical"} else "number"
        out[key] = _text(f["number"])
    if f.get("issue") and "issue" not in out:
        out["issue"] = _text(f["issue"])
    for name, var in TEXT_FIELDS:
        if f.get(name):
            out[var] = _text(f[name])
    genre = THESIS_GENRES.get(rec.type) or (f.get("type") and _text(f["type"]))
    if not genre and rec.type in {"techreport", "report"}:
        genre = "Technical report"
    if genre:
        out["genre"] = genre
    if f.get("howpublished"):
        how = _text(f["howpublished"])
        link = re.fullmatch(r"<?(https?://[^\s<>]+)>?", how)  # \url{...} reads as <...>
        if link:
            out.setdefault("URL", link.group(1))
        elif ctype in {"document", "article"}:
            out.setdefault("publisher", how)
        else:
            out["medium"] = how
    doi = values.parse_doi(f.get("doi"))
    if doi:
        out["DOI"] = doi
    url = values.web_link(f.get("url"))
    if url:
        out["URL"] = url
    if arxiv:
        out.setdefault("URL", "https://arxiv.org/abs/" + arxiv)
        if ctype == "article":
            out.setdefault("publisher", "arXiv")
            out.setdefault("number", f"arXiv:{arxiv}")
        else:
            out["archive"] = "arXiv"
            out["archive_location"] = arxiv
    if f.get("urldate"):
        m = re.fullmatch(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?", f["urldate"].strip())
        if m:
            out["accessed"] = {"date-parts": [[int(x) for x in m.groups() if x]]}
    return out


def items(records: Iterable[Record], private: Sequence[str] = ()) -> list[dict]:
    """CSL-JSON items for ``records``; a key used twice gets ``-2``, ``-3``... so
    that every ``id`` is unique, as CSL-JSON requires."""
    seen: dict[str, int] = {}
    out = []
    for rec in records:
        base = rec.key or "item"
        n = seen.get(base.casefold(), 0) + 1
        seen[base.casefold()] = n
        out.append(item(rec, id=base if n == 1 else f"{base}-{n}", private=private))
    return out


def dumps(records: Iterable[Record], private: Sequence[str] = ()) -> str:
    """The CSL-JSON document (an array of items), deterministic, UTF-8 text."""
    return json.dumps(items(records, private), ensure_ascii=False, indent=2) + "\n"


# ---------------------------------------------------------------- styled references
class Cite(NamedTuple):
    """A formatted reference: runs before the title, the title, and after it."""

    before: tuple[Span, ...]
    title: tuple[Span, ...]
    after: tuple[Span, ...]

    @property
    def text(self) -> str:
        return "".join(s.text for part in self for s in part)


class _Formatter:
    """citeproc-py output format: italic and bold as private-use markers, text as it
    is (the backends escape it; citeproc-py's own HTML format does not escape)."""

    @staticmethod
    def preformat(text):
        return str(text)

    @staticmethod
    def Italic(text):  # noqa: N802 - the names citeproc-py looks up
        return f"{_EM}{text}{_EM_END}"

    Oblique = Italic

    @staticmethod
    def Bold(text):  # noqa: N802
        return f"{_STRONG}{text}{_STRONG_END}"

    Light = Underline = Superscript = Subscript = SmallCaps = str


_GIVEN_BEFORE = re.compile(r"((?:[^\W\d_][\w'\u2019.-]*[ \u00a0]){1,3})\ue000")
_GIVEN_AFTER = re.compile(r"\ue001(,[ \u00a0](?:[^\W\d_]\.(?:[ \u00a0-]?[^\W\d_]\.)*"
                          r"|[^\W\d_][\w'\u2019-]+))")


def _owner_whole(marked: str) -> str:
    """Widen the owner's marked family name to the whole name as the style wrote it:
    "O. Ruwase", "Olatunji Ruwase", or (family first) "Ruwase, O."."""
    def before(m: re.Match) -> str:
        # the given names are the capitalised words right before the family name
        text = m.group(1)
        cut = len(text)
        for w in reversed(re.findall(r"\S+\s", text)):
            if not w[0].isupper():
                break
            cut -= len(w)
        return text[:cut] + "\ue000" + text[cut:]

    def after(m: re.Match) -> str:
        return m.group(1) + "\ue001"

    out = _GIVEN_BEFORE.sub(before, marked)
    # family first ("Ruwase, O."): only where no given name came before it
    return re.sub(r"(?:^|(?<=[^\ue000\w.] ))\ue000[^\ue000\ue001 ]+\ue001(,[ \u00a0][^,]*)?",
                  lambda m: _GIVEN_AFTER.sub(after, m.group(0)), out)


def parse(marked: str, number_prefix: bool = False) -> Cite:
    """A formatted reference with markers -> :class:`Cite`."""
    if number_prefix:  # "[1]" / "1." of a numeric style: meaningless on a page
        marked = re.sub(r"^\s*(?:\[\d+\]|\d+\.)\s*", "", marked)
    if _OWNER in marked:
        marked = _owner_whole(marked)
    parts: list[list[Span]] = [[], [], []]
    part, em, strong, owner = 0, 0, 0, 0
    buf: list[str] = []

    def flush() -> None:
        if buf:
            parts[part].append(Span("".join(buf), em > 0, strong > 0 or owner > 0))
            buf.clear()
    for c in marked:
        if "\ue000" <= c <= "\ue01f":
            flush()
            if c == _TITLE:
                part = 1
            elif c == _TITLE_END:
                part = 2
            elif c in (_EM, _EM_END):
                em += 1 if c == _EM else -1
            elif c in (_STRONG, _STRONG_END):
                strong += 1 if c == _STRONG else -1
            elif c in (_OWNER, _OWNER_END):
                owner += 1 if c == _OWNER else -1
            continue
        buf.append(c)
    flush()
    if not parts[1]:  # the style printed no title: one run of text
        return Cite(tuple(_merge(parts[0] + parts[2])), (), ())
    return Cite(tuple(_merge(parts[0])), tuple(_merge(parts[1])), tuple(_merge(parts[2])))


def _merge(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for sp in spans:
        if out and (out[-1].em, out[-1].strong) == (sp.em, sp.strong):
            out[-1] = Span(out[-1].text + sp.text, sp.em, sp.strong)
        else:
            out.append(sp)
    return out


class StyleError(PubcliError):
    """A citation style that cannot be found or read."""


class FormatFailed(PubcliError):
    """citeproc-py failed on one entry (an unusual entry, or a style feature it lacks)."""


def style_path(style: str | None = None, csl: str | Path | None = None) -> Path:
    """The CSL file for ``--style NAME`` or ``--csl FILE``."""
    if csl is not None:
        path = Path(csl)
        if not path.is_file():
            raise StyleError("CSL style file not found", path=path)
        return path
    if style is None:
        raise ValidationError("no citation style given")
    name = STYLES.get(style.lower())
    if name is None:
        raise ValidationError(f"unknown citation style {style!r} "
                              f"(known: {', '.join(STYLES)}; or --csl FILE)")
    return STYLE_DIR / name


@dataclass
class _Cache:
    path: Path | None
    entries: dict[str, str]
    dirty: bool = False
    used: set[str] = field(default_factory=set)

    def pruned(self) -> dict[str, str]:
        """What to write back: everything, unless stale references (of entries since
        changed or removed) outnumber the live ones; then only those used this run."""
        if len(self.entries) > 2 * len(self.used) + 1000:
            return {k: v for k, v in self.entries.items() if k in self.used}
        return self.entries


class Styler:
    """Formats records in one CSL style, with a persistent cache of references.

    ``Styler(path).cite(rec, owner)`` -> :class:`Cite`; :meth:`save` writes the
    cache back (only when something new was formatted)."""

    def __init__(self, path: Path, *, cache: bool = True) -> None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise StyleError(f"cannot read the style: {exc.strerror or exc}", path=path) \
                from None
        self.path = path
        self.digest = hashlib.sha256(data).hexdigest()
        self.numeric = bool(re.search(rb"<bibliography\b.*variable=\"citation-number\"",
                                      data, re.S))
        self._data = data
        self._style = None
        self._cache = self._load_cache() if cache else _Cache(None, {})
        self.failed: list[tuple[Record, str]] = []  # (record, why) citeproc-py gave up on

    # -- the style itself, parsed on first need (a warm run never parses it)
    def _citeproc_style(self):
        if self._style is None:
            import io
            import warnings

            from citeproc import CitationStylesStyle
            from lxml import etree

            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    self._style = CitationStylesStyle(io.BytesIO(self._data), validate=False)
            except (etree.XMLSyntaxError, ValueError, KeyError) as exc:
                raise StyleError(f"not a CSL style: {exc}", path=self.path) from None
            if self._style.root.find("{http://purl.org/net/xbiblio/csl}bibliography") is None:
                raise StyleError("the CSL style has no <bibliography> layout", path=self.path)
        return self._style

    def format_item(self, csl_item: dict) -> str:
        """One CSL-JSON item (with markers) formatted alone, markers kept."""
        import warnings

        from citeproc import Citation, CitationItem, CitationStylesBibliography
        from citeproc.source.json import CiteProcJSON

        style = self._citeproc_style()
        one = dict(csl_item, id="item")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # unsupported CSL features: best effort
            try:
                bib = CitationStylesBibliography(style, CiteProcJSON([one]), _Formatter)
                bib.register(Citation([CitationItem("item")]))
                return str(bib.bibliography()[0])
            except Exception as exc:  # noqa: BLE001 - citeproc-py on an odd item or style
                raise FormatFailed(f"citeproc-py could not format entry "
                                   f"'{csl_item.get('id')}' in {self.path.name}: "
                                   f"{type(exc).__name__}: {exc}") from None

    def cite(self, rec: Record, owner: str | None = None,
             private: Sequence[str] = ()) -> Cite | None:
        """The record's reference, or None when citeproc-py fails on it (the reason
        is kept in :attr:`failed`; the page then shows the entry in its own layout)."""
        drop = set(private)
        content = [MAPPING_VERSION, rec.type, owner or "",
                   sorted((k, v) for k, v in rec.fields.items() if k not in drop)]
        key = hashlib.sha1(json.dumps(content, ensure_ascii=False).encode("utf-8")).hexdigest()
        self._cache.used.add(key)
        marked = self._cache.entries.get(key)
        if marked is None:
            data = item(rec, owner=owner, mark=True, private=private)
            try:
                marked = self.format_item(data)
            except FormatFailed as exc:
                self.failed.append((rec, exc.message))
                return None
            self._cache.entries[key] = marked
            self._cache.dirty = True
        return parse(marked, self.numeric)

    # -- cache
    def _cache_file(self) -> Path:
        from ..store import cache_dir

        return cache_dir() / f"cite-{self.digest[:20]}.json"

    def _load_cache(self) -> _Cache:
        import os

        path = self._cache_file()
        if os.environ.get("PUBCLI_NO_CACHE"):
            return _Cache(None, {})
        try:
            with open(path, encoding="utf-8") as fh:
                payload = json.load(fh)
            if payload.get("style") == self.digest and isinstance(payload.get("refs"), dict):
                refs = {k: v for k, v in payload["refs"].items() if isinstance(v, str)}
                return _Cache(path, refs)
        except (OSError, ValueError, AttributeError):
            pass
        return _Cache(path, {})

    def save(self) -> None:
        """Write the cache if new references were formatted (a failure only costs
        time on the next run)."""
        from ..store import atomic_write

        c = self._cache
        if c.path is None or not c.dirty:
            return
        text = json.dumps({"style": self.digest, "refs": c.pruned()}, ensure_ascii=False,
                          sort_keys=True)
        try:
            c.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            atomic_write(c.path, text.encode("utf-8"))
            c.dirty = False
        except (OSError, PubcliError):
            pass


def styler(style: str | None = None, csl: str | Path | None = None) -> Styler | None:
    """The :class:`Styler` for ``--style``/``--csl``, or None when neither is given."""
    if style is None and csl is None:
        return None
    return Styler(style_path(style, csl))


__all__ = ["STYLES", "CSL_TYPES", "Cite", "Styler", "StyleError", "FormatFailed", "item", "items", "dumps",
           "names", "issued", "parse", "style_path", "styler"]




def text_listing(groups: Iterable[tuple[str, Sequence[Record]]], styler: Styler,
                 owner: str | None, heading, bold=lambda s: s) -> str:
    """A grouped listing as plain text, one reference per line in the style;
    ``heading(name, count)`` writes a group's heading, ``bold`` the owner's name."""
    lines: list[str] = []
    for name, recs in groups:
        if lines:
            lines.append("")
        if name:
            lines.append(heading(name, len(recs)))
        for rec in recs:
            c = styler.cite(rec, owner)
            if c is None:  # citeproc-py failed on it: title, authors, year as pubcli reads them
                people = "; ".join(n.get("literal") or ", ".join(
                    x for x in (n.get("family"), n.get("given")) if x)
                    for n in names(rec.fields.get("author") or rec.fields.get("editor")))
                lines.append("  " + ". ".join(p for p in (people, _text(rec.title) or rec.key,
                                                          str(rec.year or "")) if p) + ".")
                continue
            lines.append("  " + "".join(bold(s.text) if s.strong else s.text
                                        for part in c for s in part))
    styler.save()
    return "\n".join(lines) + ("\n" if lines else "")
