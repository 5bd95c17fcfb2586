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
import re
from typing import NamedTuple
from pathlib import Path
from collections.abc import Sequence

from ..errors import PubcliError, ValidationError
from pubcli.schema.model import Record
from pubcli.usecases.progress import Progress
from pubcli.exporters.styles import STYLE_DIR, STYLES
from .cite import Cite, owned_cite, owner_pattern
from .stylecache import StyleCache, digest as _digest, split, stored as _stored
from .csl import EPRINT_URLS, MAPPING_VERSION, item, unique_ids

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


class _Traits(NamedTuple):
    """What in a style ties one reference's text or place to the others'."""

    substitutes: bool  # subsequent-author-substitute: "———" for the author before
    suffixes: bool     # year suffixes (2010a): ambiguous citations of one author-year
    sorted: bool       # the bibliography is sorted (else: in the order it is given)
    numbers: bool      # a citation number printed in the text, not as a label
    # names added to tell ambiguous citations apart (pandoc's citeproc adds them to the
    # bibliography's names too: "Haddad, Priya, Ines Kim, et al.")
    names: bool = False

    @property
    def alone(self) -> bool:
        """Each reference's text depends on its own data only."""
        return not (self.substitutes or self.suffixes or self.numbers or self.names)


def _check_style(data: bytes, path: Path) -> _Traits:
    """What ties the style's references together; raises StyleError when the file is
    not a CSL style with a bibliography."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise StyleError(f"not a CSL style: {exc}", path=path) from None
    ns = "{http://purl.org/net/xbiblio/csl}"
    if root.tag not in (f"{ns}style", "style"):
        raise StyleError("not a CSL style: the root element is not <style>", path=path)
    ns = ns if root.tag.startswith("{") else ""
    bib = root.find(f"{ns}bibliography")
    if bib is None:
        raise StyleError("the CSL style has no <bibliography> layout", path=path)
    cit = root.find(f"{ns}citation")
    suffixes = cit is not None and cit.get("disambiguate-add-year-suffix") == "true"
    # a number in the text: macros count too (a label set apart, second-field-align,
    # is dropped from the page)
    numbers = bib.get("second-field-align") is None and \
        any(el.get("variable") == "citation-number" for el in root.iter()
            if el.tag != f"{ns}key")
    names = cit is not None and any(cit.get(f"disambiguate-add-{what}") == "true"
                                    for what in ("names", "givenname"))
    return _Traits(bib.get("subsequent-author-substitute") is not None, suffixes,
                   bib.find(f"{ns}sort") is not None, numbers, names)


_Prepared = tuple[str, list[dict], list[list[str]], list[Record]]  # digest, items, math, recs
BATCH = 500  # references per pandoc call at most (a unit larger than that is one call)


def _years(items: Sequence[dict]) -> set[str]:
    """The years a unit's citations show (an undated reference's "n.d." is one more):
    references of different years can never read alike in a citation."""
    out = set()
    for it in items:
        issued = it.get("issued") or {}
        parts = issued.get("date-parts") or [[None]]
        year = parts[0][0] if parts and parts[0] else None
        out.add(repr(year if year is not None else issued.get("literal")))
    return out


class Styler:
    """Formats records in one CSL style through pandoc's citeproc, with a persistent
    cache of formatted references.

    ``Styler(path).bibliographies([recs, ...], owner)`` -> per unit, its
    ``(record, Cite)`` pairs in the style's order; :meth:`save` writes the cache
    back (only when something new was formatted).

    What is formatted together, and so what a changed entry costs, follows from the
    style (:class:`_Traits`): a style in which a reference's text depends on its own
    data alone and whose bibliography is not sorted (IEEE; any style with ``order=
    False``, as the listings beside a year's ask) formats and caches each reference
    on its own, so a changed entry re-formats that entry only. In every other style
    a unit (a year) is one bibliography, cached whole: APA and Chicago add year
    suffixes among references whose citations read alike (same names, same year),
    MLA writes "———" for the author of the reference before and adds names to tell
    "Haddad et al." citations apart (in the bibliography too), and a sorted style
    (ACM, and all of these) places each reference by comparing it with every other
    of its unit, which only pandoc can do exactly."""

    def __init__(self, path: Path, *, locale: str | None = None, cache: bool = True,
                 order: bool = True) -> None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise StyleError(f"cannot read the style: {exc.strerror or exc}", path=path) \
                from None
        self.path = path
        self.locale = locale
        self.traits = _check_style(data, path)
        self.substitutes = self.traits.substitutes
        self.digest = hashlib.sha256(data).hexdigest()
        #: each reference formatted and cached on its own: its text is its own, and
        #: its place is the order it is given in (or the caller needs no order)
        self.per_reference = self.traits.alone and (not self.traits.sorted or not order)
        self._use_cache = cache
        self._cache: StyleCache | None = None
        self._alone: Styler | None = None
        self._tmp: object = None  # a TemporaryDirectory the alone style lives in, if any
        self.what = "formatting references"  # what progress hears this styler do

    def _record_keys(self, unit: Sequence[Record], private: Sequence[str]) \
            -> list[tuple[Record, str, str]]:
        """Each record of a unit with its CSL id and the digest of all its CSL-JSON is
        made of (its type, fields and id, and which of them are kept private): a warm run
        builds no CSL-JSON at all."""
        drop = sorted(set(private))
        return [(rec, ident, _digest((ident, rec.type, rec.fields,
                                      [k for k in drop if k in rec.fields])))
                for rec, ident in unique_ids(unit)]

    def _prepare(self, key: str, pairs: Sequence[tuple[Record, str]],
                 private: Sequence[str]) -> _Prepared:
        items_, maths = [], []
        for rec, ident in pairs:
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
        return key, items_, maths, [rec for rec, _ in pairs]

    def bibliographies(self, units: Sequence[Sequence[Record]], owner: str | None = None,
                       private: Sequence[str] = (), progress: Progress | None = None) \
            -> list[list[tuple[Record, Cite]]]:
        """Each unit formatted as one bibliography (its records in the style's order).

        Units not in the cache are formatted by pandoc: with pandoc >= 2.19.1 several
        units in one call, each its own bibliography (:func:`.citeproc.format_bibliographies`);
        else several units as one bibliography when nothing can tie one unit's
        references to another's (no subsequent-author-substitute, no citation
        number; a year suffix only ties references of one author and one year, so
        units of one year, the groups of a listing by type or area, are never
        formatted together), else one call each.
        In a style that formats each reference on its own (:attr:`per_reference`),
        only the references not cached are formatted, all in one call.
        ``progress`` hears of the references formatted (nothing when all are cached)."""
        from . import pandoc

        pandoc.find()  # no pandoc: one line saying how to get it, before any work
        cache = self._load_cache()
        # per unit, its parts: (cache key, [(record, CSL id)]), formatted together
        parts: list[list[tuple[str, list[tuple[Record, str]]]]] = []
        for unit in units:
            keyed = self._record_keys(unit, private)
            if self.per_reference:  # each record its own part, keyed by its own digest
                parts.append([(k, [(rec, ident)]) for rec, ident, k in keyed])
            else:
                parts.append([(_digest([k for _, _, k in keyed]),
                               [(rec, ident) for rec, ident, _ in keyed])])
        todo: dict[str, list[tuple[Record, str]]] = {}
        for part in parts:
            for key, pairs in part:
                if key not in cache.units:
                    todo.setdefault(key, pairs)
        if todo:
            self._format([self._prepare(k, u, private) for k, u in todo.items()], cache,
                         progress)
        pattern = owner_pattern(owner) if owner else None
        out = []
        for part in parts:
            formatted: list[tuple[Record, Cite]] = []
            for key, pairs in part:
                cache.used.add(key)
                by_id = {ident: rec for rec, ident in pairs}
                formatted.extend((by_id[ident], owned_cite(split(stored), pattern))
                                 for ident, *stored in cache.units[key] if ident in by_id)
            out.append(formatted)
        return out

    def alone(self) -> Styler | None:
        """This style without its subsequent-author-substitute ("———" for the author of
        the reference before): for a reference shown apart from the one before it in
        its bibliography. None when the style substitutes nothing. Its order is never
        asked, so where its texts are each reference's own, it formats and caches each
        reference on its own (not MLA's: names added to tell citations apart tie a
        reference to the others of its year)."""
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
            self._alone = Styler(path, locale=self.locale, cache=self._use_cache, order=False)
            self._alone.what = "formatting references shown apart"
        return self._alone

    def _format(self, missing: list[_Prepared], cache: StyleCache,
                progress: Progress | None = None) -> None:
        """Format units as bibliographies of several units (up to BATCH references)
        where the style cannot tie one unit's references to another's (in a style
        with year suffixes: units of other years; in one with a "———" or a citation
        number, none), else one unit each; where pandoc can (>= 2.19.1), several such
        bibliographies go to one pandoc call (a call each is what MLA's years cost
        otherwise). Two calls at a time (citeproc's disambiguation grows faster than
        linearly, so a 10k bibliography in batches costs less than in one call)."""
        from concurrent.futures import ThreadPoolExecutor

        from .citeproc import formats_units

        bibs: list[list[_Prepared]] = []
        if self.substitutes or self.traits.numbers:
            # "———" and citation numbers run on from the reference before
            bibs = [[p] for p in missing]
        else:
            taken: list[tuple[set[str], list[int]]] = []  # per batch: its years, its size
            for p in missing:
                years = _years(p[1])
                # a year suffix (or a name added to tell two apart) ties references
                # whose citations read alike: in an author-date style (one with year
                # suffixes) never two units' of one year; in another (MLA: no year in
                # its citations) any two units
                at = next((n for n, (seen, size) in enumerate(taken)
                           if size[0] + len(p[1]) <= BATCH
                           and (self.traits.alone or (self.traits.suffixes
                                                      and not seen & years))), len(bibs))
                if at == len(bibs):
                    bibs.append([])
                    taken.append((set(), [0]))
                bibs[at].append(p)
                taken[at][0].update(years)
                taken[at][1][0] += len(p[1])
        calls: list[list[list[_Prepared]]] = []
        if len(bibs) > 1 and formats_units():
            size = 0
            for bib in bibs:
                n = sum(len(p[1]) for p in bib)
                if not calls or size + n > BATCH:
                    calls.append([])
                    size = 0
                calls[-1].append(bib)
                size += n
        else:
            calls = [[bib] for bib in bibs]
        total = sum(len(p[1]) for p in missing)
        done = 0
        if progress is not None:
            progress(self.what, 0, total)
        with ThreadPoolExecutor(max_workers=2) as pool:
            for call, formatted in zip(calls, pool.map(self._format_call, calls),
                                       strict=True):
                cache.units.update(formatted)
                done += sum(len(p[1]) for bib in call for p in bib)
                if progress is not None:
                    progress(self.what, done, total)
        cache.dirty = True

    def _format_call(self, call: list[list[_Prepared]]) -> dict[str, list]:
        """One pandoc call for ``call``'s bibliographies (each one or more units: ids
        made unique across its units), the results split back by unit."""
        from .citeproc import format_bibliographies, format_bibliography

        made = [self._items(bib) for bib in call]
        if len(call) == 1:
            refs = [format_bibliography(made[0][0], self.path, locale=self.locale)]
        else:
            refs = format_bibliographies([items for items, _ in made], self.path,
                                         locale=self.locale)
        per: dict[str, list] = {}
        for bib, (_, where), got in zip(call, made, refs, strict=True):
            info = {(d, it["id"]): (it, math) for d, items_, maths, _ in bib
                    for it, math in zip(items_, maths, strict=True)}
            for d, *_ in bib:
                per[d] = []
            for ref in got:
                digest, ident = where[ref.id]
                per[digest].append(_stored(ident, ref.runs, *info[(digest, ident)]))
        return per

    @staticmethod
    def _items(bib: list[_Prepared]) -> tuple[list[dict], dict[str, tuple[str, str]]]:
        """A bibliography's CSL-JSON items, their ids made unique across its units, and
        where each id comes from: (unit digest, id in the unit)."""
        allitems, where = [], {}
        for n, (digest, items_, _, _) in enumerate(bib):
            for it in items_:
                uid = f"u{n}-{it['id']}" if len(bib) > 1 else it["id"]
                where[uid] = (digest, it["id"])
                allitems.append(dict(it, id=uid))
        return allitems, where

    # -- cache
    def _load_cache(self) -> StyleCache:
        from . import pandoc

        if self._cache is None:
            made_by = (MAPPING_VERSION, self.digest, self.locale or "",
                       pandoc.find().identity, self.per_reference)
            self._cache = StyleCache.load(self.digest, made_by) if self._use_cache \
                else StyleCache(None)
        return self._cache

    def save(self) -> None:
        """Write the cache if new references were formatted (a failure only costs time
        on the next run)."""
        if self._alone is not None:
            self._alone.save()
        if self._cache is not None:
            self._cache.save()


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
