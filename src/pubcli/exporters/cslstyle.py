"""References formatted in a CSL citation style by pandoc's citeproc (:mod:`.citeproc`),
with a persistent cache.

:class:`Styler` formats each *unit* (a year of a page, a group of a listing) as one
bibliography, so the style's sort, year suffixes (2010a, 2010b) and "———" for a
repeated author happen. Formatted units are cached by the digest of their CSL-JSON
(:mod:`.csl`), the style, the locale and the pandoc binary: a changed entry
re-formats its unit only.

Shipped styles (``--style``): :data:`~pubcli.styles.STYLES`, from the CSL project's
style repository (CC BY-SA 3.0; see ``pubcli/exporters/styles/README.md``). ``--csl FILE``
takes any CSL 1.0 style file.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Sequence

from ..errors import PubcliError, ValidationError
from pubcli.schema.model import Record
from pubcli.exporters.styles import STYLE_DIR, STYLES
from .cite import Cite, build_cite, owner_pattern
from .csl import EPRINT_URLS, MAPPING_VERSION, item, unique_ids
from .cslmarkup import MARKS, MATH0
from .spans import Span

class StyleError(PubcliError):
    """A citation style that cannot be found or read."""


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


def _check_style(data: bytes, path: Path) -> bool:
    """Whether the style substitutes repeated authors; raises StyleError when the file
    is not a CSL style with a bibliography."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise StyleError(f"not a CSL style: {exc}", path=path) from None
    ns = "{http://purl.org/net/xbiblio/csl}"
    if root.tag not in (f"{ns}style", "style"):
        raise StyleError("not a CSL style: the root element is not <style>", path=path)
    bib = root.find(f"{ns}bibliography")
    if bib is None:
        bib = root.find("bibliography")
    if bib is None:
        raise StyleError("the CSL style has no <bibliography> layout", path=path)
    return bib.get("subsequent-author-substitute") is not None


@dataclass
class _Cache:
    path: Path | None
    units: dict[str, list] = field(default_factory=dict)
    dirty: bool = False
    used: set[str] = field(default_factory=set)

    def pruned(self) -> dict[str, list]:
        """What to write back: everything, unless stale units (of entries since changed)
        outnumber the live ones; then only those used this run."""
        if len(self.units) > 2 * len(self.used) + 200:
            return {k: v for k, v in self.units.items() if k in self.used}
        return self.units


_Prepared = tuple[str, list[dict], list[list[str]], list[Record]]  # digest, items, math, recs
BATCH = 500  # references per pandoc call at most (a unit larger than that is one call)


class Styler:
    """Formats records in one CSL style through pandoc's citeproc, with a persistent
    cache of formatted units.

    ``Styler(path).bibliographies([recs, ...], owner)`` -> per unit, its
    ``(record, Cite)`` pairs in the style's order; :meth:`save` writes the cache
    back (only when something new was formatted)."""

    def __init__(self, path: Path, *, locale: str | None = None, cache: bool = True) -> None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise StyleError(f"cannot read the style: {exc.strerror or exc}", path=path) \
                from None
        self.path = path
        self.locale = locale
        self.substitutes = _check_style(data, path)
        self.digest = hashlib.sha256(data).hexdigest()
        self._use_cache = cache
        self._cache: _Cache | None = None
        self._alone: Styler | None = None
        self._tmp: object = None  # a TemporaryDirectory the alone style lives in, if any

    def _key(self, unit: Sequence[Record], private: Sequence[str]) -> str:
        """A unit's cache key: everything its CSL-JSON is made of (each record's type and
        fields, its id), the code that maps and reads it, the pandoc binary, the locale
        (the style is the cache file's). A warm run builds no CSL-JSON at all."""
        from . import pandoc

        drop = set(private)
        content = [[ident, rec.type, sorted((k, v) for k, v in rec.fields.items()
                                            if k not in drop)] for rec, ident in unique_ids(unit)]
        blob = json.dumps([MAPPING_VERSION, _code_digest(), pandoc.find().identity,
                           self.locale or "", content], ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]

    def _prepare(self, unit: Sequence[Record], private: Sequence[str]) -> _Prepared:
        items_, maths = [], []
        for rec, ident in unique_ids(unit):
            math: list[str] = []
            it = item(rec, id=ident, private=private, mark=True, math=math)
            if it["type"] == "document" and rec.type == "misc":
                # pandoc's BibTeX reader gives @misc no CSL type (a style's default
                # layout); CSL-JSON files need one, so only an export says "document"
                it["type"] = ""
            if it.get("archive") == "arXiv" and \
                    it.get("URL") == EPRINT_URLS["arxiv"] + it.get("archive_location", ""):
                # the reference links the arXiv copy already: "arXiv (ID). URL" says it twice
                del it["archive"], it["archive_location"]
            items_.append(it)
            maths.append(math)
        return self._key(unit, private), items_, maths, list(unit)

    def bibliographies(self, units: Sequence[Sequence[Record]], owner: str | None = None,
                       private: Sequence[str] = ()) -> list[list[tuple[Record, Cite]]]:
        """Each unit formatted as one bibliography (its records in the style's order).

        Units not in the cache are formatted by pandoc: in one call together when
        the style cannot tie one unit's references to another's (no
        subsequent-author-substitute: a year suffix only ties references of one
        author and one year, and units are years or listings), else one call each."""
        from . import pandoc

        pandoc.find()  # no pandoc: one line saying how to get it, before any work
        cache = self._load_cache()
        keys = [self._key(u, private) for u in units]
        todo = {k: u for k, u in zip(keys, units, strict=True) if k not in cache.units}
        if todo:
            self._format([self._prepare(u, private) for u in todo.values()], cache)
        pattern = owner_pattern(owner) if owner else None
        out = []
        for key, unit in zip(keys, units, strict=True):
            cache.used.add(key)
            by_id = {ident: rec for rec, ident in unique_ids(unit)}
            out.append([(by_id[ident], build_cite([Span(*r) for r in runs], title, pattern))
                        for ident, runs, title in cache.units[key] if ident in by_id])
        return out

    def alone(self) -> Styler | None:
        """This style without its subsequent-author-substitute ("———" for the author of
        the reference before): for a reference shown apart from the one before it in
        its bibliography. None when the style substitutes nothing."""
        if not self.substitutes:
            return None
        if self._alone is None:
            from ..store import atomic_write, cache_dir

            data = re.sub(rb'\ssubsequent-author-substitute="[^"]*"', b"", self.path.read_bytes())
            path = cache_dir() / f"style-{self.digest[:20]}-alone.csl"
            try:
                if not path.is_file() or path.read_bytes() != data:
                    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                    atomic_write(path, data)
            except (OSError, PubcliError):  # no cache folder: a temporary one, for this run
                import tempfile

                self._tmp = tempfile.TemporaryDirectory(prefix="pubcli-style-")
                path = Path(self._tmp.name) / self.path.name
                path.write_bytes(data)
            self._alone = Styler(path, locale=self.locale, cache=self._use_cache)
        return self._alone

    def _format(self, missing: list[_Prepared], cache: _Cache) -> None:
        """Format units: several per pandoc call (up to BATCH references) when the style
        cannot tie one unit's references to another's, else one call each; two calls
        at a time (citeproc's disambiguation grows faster than linearly, so a 10k
        bibliography in batches costs less than in one call)."""
        from concurrent.futures import ThreadPoolExecutor

        if self.substitutes:
            batches = [[p] for p in missing]
        else:
            batches, size = [], 0
            for p in missing:
                if not batches or size + len(p[1]) > BATCH:
                    batches.append([])
                    size = 0
                batches[-1].append(p)
                size += len(p[1])
        with ThreadPoolExecutor(max_workers=2) as pool:
            for done in pool.map(self._format_batch, batches):
                cache.units.update(done)
        cache.dirty = True

    def _format_batch(self, batch: list[_Prepared]) -> dict[str, list]:
        """One pandoc call for ``batch``: ids made unique across its units, the results
        split back by unit."""
        from .citeproc import format_bibliography

        allitems, where = [], {}
        for n, (digest, items_, _, _) in enumerate(batch):
            for it in items_:
                uid = f"u{n}-{it['id']}" if len(batch) > 1 else it["id"]
                where[uid] = (digest, it["id"])
                allitems.append(dict(it, id=uid))
        refs = format_bibliography(allitems, self.path, locale=self.locale)
        per: dict[str, list] = {d: [] for d, *_ in batch}
        info = {(d, it["id"]): (it, math) for d, items_, maths, _ in batch
                for it, math in zip(items_, maths, strict=True)}
        for ref in refs:
            digest, ident = where[ref.id]
            per[digest].append(_stored(ident, ref.runs, *info[(digest, ident)]))
        return per

    # -- cache
    def _cache_file(self) -> Path:
        from ..store import cache_dir

        return cache_dir() / f"cite-{self.digest[:20]}.json"

    def _load_cache(self) -> _Cache:
        import os

        if self._cache is not None:
            return self._cache
        if not self._use_cache or os.environ.get("PUBCLI_NO_CACHE"):
            self._cache = _Cache(None)
            return self._cache
        path = self._cache_file()
        self._cache = _Cache(path)
        try:
            with open(path, encoding="utf-8") as fh:
                payload = json.load(fh)
            if payload.get("style") == self.digest and payload.get("version") == \
                    MAPPING_VERSION and isinstance(payload.get("units"), dict):
                self._cache.units = {k: v for k, v in payload["units"].items()
                                     if _valid_unit(v)}
        except (OSError, ValueError, AttributeError):
            pass
        return self._cache

    def save(self) -> None:
        """Write the cache if new units were formatted (a failure only costs time on
        the next run)."""
        from ..store import atomic_write

        if self._alone is not None:
            self._alone.save()
        c = self._cache
        if c is None or c.path is None or not c.dirty:
            return
        text = json.dumps({"style": self.digest, "version": MAPPING_VERSION,
                           "units": c.pruned()}, ensure_ascii=False, sort_keys=True)
        try:
            c.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            atomic_write(c.path, text.encode("utf-8"))
            c.dirty = False
        except (OSError, PubcliError):
            pass


def _stored(ident: str, runs: Sequence[Span], it: dict, math: list[str]) -> list:
    """A formatted reference as the cache keeps it: [id, runs (formulas as their TeX),
    the title's text (for finding it in the reference)]."""
    return [ident, [list(r) for r in _unmark(list(runs), math)],
            _title_text(it.get("title", ""), math)]


_CODE: list[str] = []


def _code_digest() -> str:
    """The digest of the code that maps records and reads pandoc's answer."""
    if not _CODE:
        h = hashlib.sha256()
        for name in ("csl.py", "csltables.py", "cslmarkup.py", "citeproc.py", "cslstyle.py"):
            h.update((Path(__file__).resolve().parent / name).read_bytes())
        _CODE.append(h.hexdigest()[:16])
    return _CODE[0]


def _valid_unit(v: object) -> bool:
    return isinstance(v, list) and all(
        isinstance(e, list) and len(e) == 3 and isinstance(e[0], str) and
        isinstance(e[2], str) and isinstance(e[1], list) and
        all(isinstance(r, list) and len(r) == 4 and isinstance(r[0], str) for r in e[1])
        for e in v)


def _unmark(runs: list[Span], math: list[str]) -> list[Span]:
    """Math placeholders back to math runs holding their TeX."""
    out: list[Span] = []
    for r in runs:
        if not MARKS.search(r.text):
            out.append(r)
            continue
        pos = 0
        for m in MARKS.finditer(r.text):
            if m.start() > pos:
                out.append(r._replace(text=r.text[pos:m.start()]))
            n = ord(m.group(0)) - MATH0
            if 0 <= n < len(math):
                out.append(Span(math[n], r.em, r.strong, math=True))
            pos = m.end()
        if pos < len(r.text):
            out.append(r._replace(text=r.text[pos:]))
    return out


def _title_text(title: str, math: list[str]) -> str:
    """The plain text of an item's CSL title, formulas as their TeX."""
    text = re.sub(r"<[^>]+>", "", title)
    return MARKS.sub(lambda m: math[ord(m.group(0)) - MATH0]
                      if 0 <= ord(m.group(0)) - MATH0 < len(math) else "", text)


def styler(style: str | None = None, csl: str | Path | None = None,
           locale: str | None = None) -> Styler | None:
    """The :class:`Styler` for ``--style``/``--csl``, or None when neither is given."""
    if style is None and csl is None:
        return None
    return Styler(style_path(style, csl), locale=locale)


def text_listing(groups: Sequence[tuple[str, Sequence[Record]]], styler: Styler,
                 owner: str | None, heading, bold=lambda s: s) -> str:
    """A grouped listing as plain text, one reference per line in the style, each
    group one bibliography (in the style's order); ``heading(name, count)`` writes a
    group's heading, ``bold`` the owner's name."""
    lines: list[str] = []
    units = styler.bibliographies([list(recs) for _, recs in groups], owner)
    for (name, recs), unit in zip(groups, units, strict=True):
        if lines:
            lines.append("")
        if name:
            lines.append(heading(name, len(recs)))
        for _, c in unit:
            lines.append("  " + "".join(bold(s.text) if s.strong else s.text
                                        for part in c for s in part))
    styler.save()
    return "\n".join(lines) + ("\n" if lines else "")


__all__ = ["STYLES", "Styler", "StyleError", "style_path", "styler", "text_listing"]
