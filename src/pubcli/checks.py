"""The lint behind ``pubcli check``: what is wrong in a library, with its line.

:func:`check` takes a loaded :class:`~pubcli.library.Library` and returns
:class:`Finding` objects in file order. Nothing here prints or exits; the CLI
renders the findings as text, JSON or GitHub annotations.

What is checked (``code``, severity):

* ``parse-error`` (error): a block the parser could not read (kept verbatim);
* ``duplicate-key`` (error): a key used twice (BibTeX and biber keep one);
* ``duplicate-field`` (warning): a field written twice in one entry;
* ``unknown-type`` (warning): an entry type neither BibTeX nor biblatex knows;
* ``missing-field`` (warning): a field the entry type requires is absent or empty
  (:data:`pubcli.model.REQUIRED_FIELDS`; ``a|b`` means either; fields inherited
  through ``crossref`` count);
* ``bad-year`` / ``bad-date`` (warning): a year that is not four digits, a date
  that is not ISO 8601 (``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD``, ranges with ``/``);
* ``bad-doi`` / ``bad-url`` (warning): a DOI that is not ``10.NNNN/suffix``
  (an ``https://doi.org/`` or ``doi:`` prefix is accepted), a URL that is not
  ``http(s)://`` or ``ftp://`` without spaces;
* ``bad-link`` (warning): a resource link (``url_pdf``, ``slides``...; see
  :mod:`pubcli.resources`) that is neither ``http(s)://`` nor a relative path;
* ``unknown-area`` (warning): a research area (``keywords``) outside the
  configured vocabulary, when ``areas`` is given;
* ``possible-duplicate`` (warning): with ``dedupe=True``, entries that
  :func:`pubcli.dedupe.find_groups` takes for the same publication.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

from .library import Library
from .model import AREA_FIELD, KNOWN_TYPES, REQUIRED_FIELDS, Record, split_areas
from .resources import link_problem, resource_fields

ERROR = "error"
WARNING = "warning"

_YEAR_RE = re.compile(r"\d{4}")
_DATE_PART = r"\d{4}(?:-(\d{2})(?:-(\d{2}))?)?"
_DATE_RE = re.compile(rf"({_DATE_PART})(?:/((?:{_DATE_PART})|\.\.)?)?")
_DOI_PREFIX_RE = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.I)
_DOI_RE = re.compile(r"10\.\d{4,9}(?:\.\d+)*/\S+")
_URL_RE = re.compile(r"(?:https?|ftp)://[^\s\"<>{}]+", re.I)


@dataclass(frozen=True)
class Finding:
    """One problem: where it is (line, key, field), what kind (code) and how bad."""

    line: int
    key: str | None
    field: str | None
    code: str
    message: str
    severity: str = WARNING

    def as_dict(self) -> dict:
        return asdict(self)


def check(library: Library, *, areas: Sequence[str] | None = None,
          dedupe: bool = False) -> list[Finding]:
    """Every finding for ``library``, sorted by line.

    ``areas`` is the configured vocabulary; empty or None skips that check.
    ``dedupe`` adds the duplicate groups found by :mod:`pubcli.dedupe`.
    """
    findings: list[Finding] = []
    findings += _load_problems(library)
    by_key = {}
    for rec in library.records:
        by_key.setdefault(rec.key.casefold(), rec)
    vocabulary = _vocabulary(areas)
    for rec in library.records:
        findings += check_record(rec, vocabulary, by_key)
    if dedupe:
        findings += _duplicates(library)
    findings.sort(key=lambda f: f.line)  # stable: per entry, in the order checked
    return findings


def _load_problems(library: Library) -> Iterable[Finding]:
    """Blocks kept verbatim, entries with a repeated field, keys used twice (compared
    case-insensitively, as biber does), and any other problem the loader reported."""
    for f in library.failed:
        yield Finding(f.line, None, None, "parse-error",
                      f"could not parse this block, kept as it is: {f.reason}", ERROR)
    first: dict[str, Record] = {}
    for rec in library.records:
        why = rec.source.read_only if rec.source is not None else ""
        if why:
            m = re.match(r"duplicate fields? \(?([^()]+)\)?$", why)
            yield Finding(rec.line, rec.key, m.group(1) if m else None,
                          "duplicate-field" if m else "parse-warning",
                          f"entry '{rec.key}' has a {why}; the first value is used", WARNING)
        seen = first.setdefault(rec.key.casefold(), rec)
        if seen is not rec:
            yield Finding(rec.line, rec.key, None, "duplicate-key",
                          f"duplicate key '{rec.key}' (first used on line {seen.line})", ERROR)
    known = {"parse", "warning", "duplicate-key"}
    for p in library.problems:
        if p.kind not in known:
            yield Finding(p.line, None, None, "parse-warning", p.message, WARNING)


def _vocabulary(areas: Sequence[str] | None) -> dict[str, str]:
    return {" ".join(a.split()).casefold(): a for a in (areas or [])}


def check_record(rec: Record, vocabulary: dict[str, str] | None = None,
                 by_key: dict[str, Record] | None = None) -> list[Finding]:
    """The findings for one entry (without library-wide ones such as duplicates)."""
    out: list[Finding] = []

    def add(field: str | None, code: str, message: str) -> None:
        out.append(Finding(rec.line, rec.key, field, code, message, WARNING))

    fields = rec.fields
    if rec.type not in KNOWN_TYPES:
        near = difflib.get_close_matches(rec.type, sorted(KNOWN_TYPES), n=1, cutoff=0.75)
        add(None, "unknown-type", f"entry '{rec.key}': unknown entry type '@{rec.type}'"
            + (f" (did you mean '@{near[0]}'?)" if near else ""))
    else:
        available = dict(_inherited(rec, by_key or {}))
        available.update((k, v) for k, v in fields.items() if v.strip())
        for need in REQUIRED_FIELDS.get(rec.type, ()):
            options = need.split("|")
            if not any(available.get(name, "").strip() for name in options):
                add(options[0], "missing-field",
                    f"entry '{rec.key}' (@{rec.type}) has no {' or '.join(options)}")

    year = fields.get("year")
    if year is not None and not _YEAR_RE.fullmatch(year.strip().strip("{}").strip()):
        add("year", "bad-year", f"entry '{rec.key}': year {year!r} is not a four-digit year")
    date = fields.get("date")
    if date is not None and not _date_ok(date.strip().strip("{}").strip()):
        add("date", "bad-date", f"entry '{rec.key}': date {date!r} is not YYYY, YYYY-MM, "
                                "YYYY-MM-DD or a range of those")
    doi = fields.get("doi")
    if doi is not None and not _DOI_RE.fullmatch(_DOI_PREFIX_RE.sub("", doi.strip())):
        add("doi", "bad-doi", f"entry '{rec.key}': DOI {doi!r} does not look like "
                              "10.NNNN/suffix")
    url = fields.get("url")
    if url is not None and not _URL_RE.fullmatch(url.strip()):
        add("url", "bad-url", f"entry '{rec.key}': URL {url!r} is not an http(s):// or "
                              "ftp:// address without spaces")
    for name in resource_fields(fields):
        why = link_problem(fields[name])
        if why:
            add(name, "bad-link", f"entry '{rec.key}': link {name} = {fields[name]!r} {why}")
    if vocabulary:
        for area in split_areas(fields.get(AREA_FIELD)):
            if area.casefold() in vocabulary:
                continue
            near = difflib.get_close_matches(area.casefold(), list(vocabulary), n=1,
                                             cutoff=0.6)
            hint = f" (did you mean '{vocabulary[near[0]]}'?)" if near else \
                " (add it to areas in pubcli.toml, or fix the entry)"
            add(AREA_FIELD, "unknown-area",
                f"entry '{rec.key}': area '{area}' is not one of the configured areas{hint}")
    return out


def _inherited(rec: Record, by_key: dict[str, Record]) -> Iterable[tuple[str, str]]:
    """Fields a ``crossref`` parent passes down (biblatex/BibTeX inheritance),
    following the chain a few steps; ``booktitle`` also comes from the parent's title."""
    seen = {rec.key.casefold()}
    parent_key = rec.fields.get("crossref", "").strip()
    depth = 0
    while parent_key and depth < 5:
        parent = by_key.get(parent_key.casefold())
        if parent is None or parent.key.casefold() in seen:
            return
        seen.add(parent.key.casefold())
        for k, v in parent.fields.items():
            if v.strip():
                yield k, v
        if parent.fields.get("title", "").strip():
            yield "booktitle", parent.fields["title"]
        parent_key = parent.fields.get("crossref", "").strip()
        depth += 1


def _date_ok(value: str) -> bool:
    m = _DATE_RE.fullmatch(value)
    if not m:
        return False
    months = [m.group(2), m.group(5)]
    days = [m.group(3), m.group(6)]
    return all(mm is None or 1 <= int(mm) <= 12 for mm in months) and \
        all(dd is None or 1 <= int(dd) <= 31 for dd in days)


def _duplicates(library: Library) -> list[Finding]:
    """One finding per group of entries :mod:`pubcli.dedupe` takes for one work,
    on the first entry's line; pairs remembered as "not duplicates" are left out."""
    from . import dedupe, distinct

    remembered = distinct.load(library.path) if library.path is not None else set()
    out = []
    for group in dedupe.find_groups(library.records, distinct=remembered):
        recs = sorted(group.records, key=lambda r: r.line)
        if len(recs) < 2:
            continue
        first = recs[0]
        others = ", ".join(f"'{r.key}' (line {r.line})" for r in recs[1:])
        rules = sorted({link.rule for link in group.links})
        why = f" ({'; '.join(rules)})" if rules else ""
        out.append(Finding(first.line, first.key, None, "possible-duplicate",
                           f"entry '{first.key}' looks like the same publication as "
                           f"{others}{why}; merge with 'pubcli dedupe --merge' or mark them "
                           "distinct there", WARNING))
    return out


def counts(findings: Iterable[Finding]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = warnings = 0
    for f in findings:
        if f.severity == ERROR:
            errors += 1
        else:
            warnings += 1
    return errors, warnings
