"""The lint behind ``pubcli check``: what is wrong in a library, with its line.

:func:`check` takes a loaded :class:`~pubcli.store.library.Library` and returns
:class:`Finding` objects in file order. Nothing here prints or exits; the CLI
renders the findings as text, JSON or GitHub annotations.

What is checked (``code``, severity):

* ``parse-error`` (error): a block the parser could not read (kept verbatim);
* ``duplicate-key`` (error): a key used twice (BibTeX and biber keep one);
* ``duplicate-field`` (warning): a field written twice in one entry;
* ``unknown-type`` (warning): an entry type neither BibTeX nor biblatex knows;
* ``missing-field`` (warning): a field the entry type requires is absent or empty
  (:data:`pubcli.schema.types.REQUIRED_FIELDS`, BibTeX's and biblatex's types; ``a|b`` means
  either; fields inherited through ``crossref`` and ``xdata`` count; an entry written
  for biblatex is held to biblatex's rules, :func:`pubcli.schema.types.required_for`);
* ``missing-key`` (error): an entry without a citation key (``@article{,``);
* ``bad-year`` / ``bad-date`` (warning): a year that is not four digits, a date
  (``date``, ``urldate``, ``origdate``, ``eventdate``) that is not ISO 8601 as biber
  reads it (``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD`` with a day the month has, ranges
  with ``/``); an empty field is an absent one, never a bad value;
* ``bad-doi`` / ``bad-url`` (warning): a DOI that is not ``10.NNNN/suffix``
  (an ``https://doi.org/`` or ``doi:`` prefix is accepted), a URL that is not
  ``http(s)://`` or ``ftp://`` without spaces;
* ``bad-link`` (warning): a resource link (``url_pdf``, ``slides``...; see
  :mod:`pubcli.schema.types.resources`) that is neither ``http(s)://`` nor a relative path;
* ``unknown-area`` (warning): a research area (``keywords``) outside the
  configured vocabulary, when ``areas`` is given;
* ``possible-duplicate`` (warning): with ``dedupe=True``, entries that
  :func:`pubcli.dedupe.find_groups` takes for the same publication;
* ``unprotected-acronym`` (warning): with ``acronyms=True`` (``pubcli check`` unless
  ``[fmt] protect = "acronyms"`` in pubcli.toml, with or without a ``[fmt]`` table),
  title words in capitals or mixed case (``BERT``, ``iPhone``) without the braces that keep
  a style from lower-casing them
  (:func:`pubcli.text.encode.unprotected_words`; ``pubcli fmt`` braces them with
  ``protect = "acronyms"``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from collections.abc import Iterable, Sequence

from pubcli import bibtex
from pubcli.schema import values
from pubcli.schema.inherit import Inheritance
from pubcli.store.library import Library
from pubcli.schema.model import AREA_FIELD, Record, split_areas
from pubcli.schema.resources import link_problem, resource_fields
from pubcli.schema.types import KNOWN_TYPES, biblatex_file, required_for
from pubcli.text.similar import closest
from pubcli.schema.model import area_key
from pubcli.usecases.areas import suggest

ERROR = "error"
WARNING = "warning"

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
          dedupe: bool = False, acronyms: bool = False) -> list[Finding]:
    """Every finding for ``library``, sorted by line.

    ``areas`` is the configured vocabulary; empty or None skips that check.
    ``dedupe`` adds the duplicate groups found by :mod:`pubcli.dedupe`.
    """
    findings: list[Finding] = []
    findings += _load_problems(library)
    parents = Inheritance(library.records)
    vocabulary = _vocabulary(areas)
    biblatex = biblatex_file(library.records)
    for rec in library.records:
        if rec.key.strip():  # a keyless entry has its one error (missing-key)
            findings += check_record(rec, vocabulary, parents, in_biblatex_file=biblatex)
    if dedupe:
        findings += _duplicates(library)
    if acronyms:
        findings += _unprotected(library)
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
        if not rec.key.strip():
            yield Finding(rec.line, None, None, "missing-key",
                          f"this @{rec.type} entry has no citation key; it can't be cited "
                          "or edited by pubcli until it has one", ERROR)
            continue
        why = rec.source.read_only if rec.source is not None else ""
        if why.startswith(bibtex.UNREAD):
            yield Finding(rec.line, rec.key, None, "unread-entry",
                          f"entry '{rec.key}': {why}; pubcli shows it but leaves its text "
                          "alone", WARNING)
        elif why:
            dups = bibtex.duplicated_fields(why)
            yield Finding(rec.line, rec.key, ", ".join(dups) if dups else None,
                          "duplicate-field" if dups else "parse-warning",
                          f"entry '{rec.key}' has a {why}; the first value is used", WARNING)
        seen = first.setdefault(rec.key.casefold(), rec)
        if seen is not rec:
            yield Finding(rec.line, rec.key, None, "duplicate-key",
                          f"duplicate key '{rec.key}' (first used on line {seen.line})", ERROR)
    known = {"parse", "warning", "duplicate-key", "missing-key"}
    for p in library.problems:
        if p.kind not in known:
            yield Finding(p.line, None, None, "parse-warning", p.message, WARNING)


def _vocabulary(areas: Sequence[str] | None) -> dict[str, str]:
    return {area_key(a): a for a in (areas or [])}


def check_record(rec: Record, vocabulary: dict[str, str] | None = None,
                 parents: Inheritance | None = None, *,
                 in_biblatex_file: bool = False) -> list[Finding]:
    """The findings for one entry (without library-wide ones such as duplicates);
    ``parents`` resolves the fields it inherits through ``crossref``/``xdata``;
    ``in_biblatex_file``: its file is written for biblatex (:func:`schema.biblatex_file`)."""
    out: list[Finding] = []

    def add(field: str | None, code: str, message: str) -> None:
        out.append(Finding(rec.line, rec.key, field, code, message, WARNING))

    fields = rec.fields
    if rec.type not in KNOWN_TYPES:
        near = closest(rec.type, sorted(KNOWN_TYPES))
        add(None, "unknown-type", f"entry '{rec.key}': unknown entry type '@{rec.type}'"
            + (f" (did you mean '@{near}'?)" if near else ""))
    elif parents is None or not parents.is_parent(rec):  # a parent passes data down
        available = dict(parents.inherited(rec)) if parents is not None else {}
        available.update((k, v) for k, v in fields.items() if v.strip())
        for need in required_for(rec.type, available, in_biblatex_file=in_biblatex_file):
            options = need.split("|")
            if not any(available.get(name, "").strip() for name in options):
                add(options[0], "missing-field",
                    f"entry '{rec.key}' (@{rec.type}) has no {' or '.join(options)}")

    for name, kind, problem in values.field_problems(fields):  # each by its one rule
        add(name, f"bad-{kind}", f"entry '{rec.key}': {problem}")
    for name in resource_fields(fields):
        why = link_problem(fields[name])
        if why:
            add(name, "bad-link", f"entry '{rec.key}': link {name} = {fields[name]!r} {why}")
    if vocabulary:
        for area in split_areas(fields.get(AREA_FIELD)):
            if area_key(area) in vocabulary:
                continue
            near = suggest(area, list(vocabulary.values()))
            hint = f" (did you mean '{near}'?)" if near else \
                " (add it to areas in pubcli.toml, or fix the entry)"
            add(AREA_FIELD, "unknown-area",
                f"entry '{rec.key}': area '{area}' is not one of the configured areas{hint}")
    return out


def _unprotected(library: Library) -> list[Finding]:
    from pubcli.bibtex.form import TITLE_FIELDS
    from pubcli.text.encode import unprotected_words

    out = []
    for rec in library.records:
        for name in TITLE_FIELDS:
            words = unprotected_words(rec.fields.get(name, ""))
            if words:
                shown = ", ".join(dict.fromkeys(words))
                out.append(Finding(rec.line, rec.key, name, "unprotected-acronym",
                                   f"entry '{rec.key}': {name} words {shown} are not braced, "
                                   "so styles that lower-case titles lower-case them; brace "
                                   "them, or set [fmt] protect = \"acronyms\" and run "
                                   "'pubcli fmt'", WARNING))
    return out


def _duplicates(library: Library) -> list[Finding]:
    """One finding per group of entries :mod:`pubcli.dedupe` takes for one work,
    on the first entry's line; pairs remembered as "not duplicates" are left out."""
    from pubcli import dedupe
    from pubcli.usecases import distinct

    remembered = distinct.load(library.path) if library.path is not None else set()
    out = []
    for group in dedupe.find_groups(library.records, distinct=remembered,
                                    digest=library.document.digest):
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
