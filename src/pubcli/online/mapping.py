"""pubcli's conventions for entries made from fetched metadata, in one place.

* names are written ``Last, First`` (``von Last, Jr, First``), joined with ``and``
  (:func:`pubcli.schema.names.bibtex_name`, as ``import`` writes a listing's names);
* titles keep their words, with braces around those whose capitals must survive
  a bibliography style (acronyms and names: ``{GPU}``, ``{ZeRO}++``, ``{DeepSpeed}``;
  :func:`pubcli.text.encode.protect_case`);
* LaTeX's special characters in text (``& % $ # _ { } ~ ^ \\``) are escaped
  (:func:`pubcli.text.encode.escape`);
  markup and HTML entities from the services (``<i>``, ``&amp;``) are removed;
  other characters stay as Unicode (the library is UTF-8);
* months are month names (written as the ``jan``... macros), and only when the
  source knows the month: a placeholder ``YYYY-01-01`` date gives a year alone
  (:func:`iso_month`);
* page ranges use ``--``; a journal's article number stands as the pages;
* DOIs in one form, lower case (:func:`doi`; DOIs are case-insensitive and
  Crossref answers them so);
* names with a generational suffix keep it (``King, Jr., Martin Luther``);
* names in the library's own form (:func:`names_as_library`): the spelling the
  library already gives a person, else Unicode in a Unicode library (DBLP's
  ``M{\\"{u}}ller`` becomes ``Müller``).

What a source found is a :class:`Found`: the :class:`~pubcli.usecases.newentry.EntryOptions`
an add would be given (so the add's own validation, venue placement and field
order apply), the fields recording the source's ids, and whether it is a preprint.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterable

from pubcli.usecases.newentry import EntryOptions
from pubcli.text.encode import escape, protect_case
from pubcli.schema.model import Record
from pubcli.schema.values import MONTH_NAMES
from pubcli.schema.names import bibtex_name

_TAG = re.compile(r"<[^<>]{0,200}>")
_DBLP_HOMONYM = re.compile(r"\s+\d{4}$")
_PREPRINT_TYPES = frozenset({"misc", "unpublished", "online", "preprint"})


@dataclass
class Found:
    """One work as a source describes it."""

    opts: EntryOptions
    source: str                                   # "crossref", "arxiv", "dblp"...
    ids: dict[str, str] = field(default_factory=dict)   # fields naming it at the source
    preprint: bool = False
    notes: list[str] = field(default_factory=list)       # for the user

    def record(self) -> Record:
        """The entry (no key) this work makes, source ids included."""
        from pubcli.usecases.newentry import build, order_fields

        rec = build(self.opts, force=True)
        return rec.copy(fields=order_fields({**rec.fields, **self.ids}))


def clean_text(value: Any) -> str:
    """Service text as plain text: tags and entities removed, white space collapsed."""
    if value is None:
        return ""
    text = str(value)
    if "<" in text:
        text = _TAG.sub("", text)
    if "&" in text:
        text = html.unescape(text)
    return " ".join(text.split())


_MATH = re.compile(r"(\$[^$]+\$)")


def title(text: Any, subtitle: Any = None, *, tex_math: bool = False) -> str:
    """A title in the conventions. ``tex_math``: the source writes math as TeX
    (arXiv), so ``$...$`` is kept as it is."""
    main = clean_text(text)
    sub = clean_text(subtitle)
    if sub and sub.lower() not in main.lower():
        main = f"{main.rstrip(':')}: {sub}"
    main = main.rstrip(" .") if not main.endswith("..") else main
    if not tex_math or "$" not in main:
        return protect_case(escape(main))
    parts = _MATH.split(main)
    return "".join(p if i % 2 else protect_case(escape(p)) for i, p in enumerate(parts))


def person(given: Any = None, family: Any = None, literal: Any = None,
           suffix: Any = None) -> str:
    """One author from separate parts: "Family, Given" ("Family, Jr., Given" with a
    suffix); an organisation in braces."""
    g, f, jr = clean_text(given), clean_text(family), clean_text(suffix)
    if f:
        return escape(", ".join(p for p in (f, jr, g) if p))
    if g:
        return escape(g)
    lit = clean_text(literal)
    return "{" + escape(lit) + "}" if lit else ""


def person_from_full(name: Any, *, latex: bool = False) -> str:
    """"Ludwig van Beethoven" -> "van Beethoven, Ludwig" (:func:`pubcli.schema.names.bibtex_name`).
    ``latex``: the name is already BibTeX text (DBLP), so it is not escaped again. A
    DBLP homonym number ("Wei Wang 0001") is dropped; a name already "Last, First" is
    kept."""
    raw = " ".join(str(name or "").split()) if latex else clean_text(name)
    raw = _DBLP_HOMONYM.sub("", raw)
    return bibtex_name(raw, latex=latex) if raw else ""


def month(value: Any) -> str | None:
    """1..12 (int or digits) -> "January"...; None otherwise."""
    try:
        n = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return MONTH_NAMES[n - 1] if 1 <= n <= 12 else None


def iso_month(date: Any) -> str | None:
    """The month of an ISO date ``YYYY-MM[-DD]``, None when it has none or when it is
    the placeholder ``YYYY-01-01`` that services write for a date known to the year."""
    m = re.match(r"^\d{4}-(\d{2})(?:-(\d{2}))?", str(date or "").strip())
    if not m or (m.group(1) == "01" and m.group(2) in ("01", None)):
        return None
    return month(m.group(1))


def doi(value: Any) -> str | None:
    """A DOI in its one form (``10.nnnn/suffix`` lower-cased), None when it is not one."""
    from pubcli.schema.values import parse_doi

    found = parse_doi(str(value)) if value else None
    return found.lower() if found else None


def year(value: Any) -> str | None:
    s = str(value).strip() if value is not None else ""
    m = re.match(r"^(\d{4})", s)
    return m.group(1) if m else None


def pages(first: Any, last: Any = None) -> str | None:
    """"12", "12-34", ("12", "34") -> "12", "12--34"."""
    f = clean_text(first)
    if not f:
        return None
    if last is None and re.fullmatch(r"[\w.]+\s*[-\u2013\u2014]+\s*[\w.]+", f):
        f, last = re.split(r"\s*[-\u2013\u2014]+\s*", f, maxsplit=1)
    lst = clean_text(last)
    return f"{f}--{lst}" if lst and lst != f else f


def venue(text: Any) -> str | None:
    v = clean_text(text)
    return escape(v) if v else None


def extra(**values: str | None) -> list[str]:
    """``name=value`` items for EntryOptions.fields (empty values left out)."""
    return [f"{k}={v}" for k, v in values.items() if v]


def first(value: Any) -> Any:
    """The first item of a list (Crossref) or the value itself (CSL JSON)."""
    if isinstance(value, list):
        return value[0] if value else None
    return value


def is_preprint_type(entry_type: str) -> bool:
    return entry_type in _PREPRINT_TYPES


def authors(items: Iterable[str]) -> list[str]:
    return [a for a in items if a]


_ACCENT = re.compile(r"\\[`'^\"~=.uvHcdbk]|\\(?:ss|ae|oe|aa|o|l|i|j)\b", re.I)
PEOPLE_FIELDS = ("author", "editor")


class NameForm:
    """How a library writes its people: the spelling of each person it names
    (:func:`pubcli.schema.names.known_names`), and whether accents are LaTeX commands
    or Unicode letters (the majority of its names that have any)."""

    def __init__(self, records: Iterable[Record]) -> None:
        from pubcli.schema.names import known_names

        records = list(records)
        self.known = known_names(records)
        latex = unicode = 0
        for rec in records:
            for k in PEOPLE_FIELDS:
                value = rec.fields.get(k) or ""
                if _ACCENT.search(value):
                    latex += 1
                elif not value.isascii():
                    unicode += 1
        self.latex = latex > unicode

    def name(self, raw: str) -> str:
        """One "Last, First" name in the library's form."""
        from pubcli.text.latex import to_text
        from pubcli.text.fold import fold

        raw = raw.strip()
        parts = [p.strip() for p in raw.split(",")]
        display = " ".join(reversed(parts)) if len(parts) == 2 else raw
        plain = to_text(display) if ("\\" in display or "{" in display) else display
        hit = self.known.get(fold(" ".join(plain.split())))
        if hit is not None:
            return hit
        if self.latex or "\\" not in raw:
            return raw
        whole = raw.startswith("{") and raw.endswith("}") and "," not in raw
        text = escape(to_text(raw))
        return "{" + text + "}" if whole else text

    def field(self, value: str) -> str:
        from pubcli.schema.names import split_authors

        return " and ".join(self.name(n) for n in split_authors(value))


def names_as_library(rec: Record, form: NameForm) -> Record:
    """``rec`` with its author and editor names in the library's form."""
    fields = dict(rec.fields)
    changed = False
    for k in PEOPLE_FIELDS:
        if fields.get(k):
            new = form.field(fields[k])
            changed = changed or new != fields[k]
            fields[k] = new
    return rec.copy(fields=fields) if changed else rec
