"""crossref and xdata: the fields an entry inherits from the entries it points to.

BibTeX copies every field a child lacks from its ``crossref`` parent; biblatex does
the same through ``crossref`` (renaming some: a proceedings' ``title`` is its papers'
``booktitle``, see :func:`pubcli.schema.types.inherited_name`) and copies ``xdata``
containers' fields as they are. Inherited fields count for validation and show in
listings and on the page; they are never written into the child.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pubcli.schema.keys import split_keys
from pubcli.schema.model import Record
from pubcli.schema.types import NOT_INHERITED, inherited_name

MAX_DEPTH = 8  # chains longer than this (or circular ones) stop inheriting


#: title fields BibTeX does not know: a parent passes them by biblatex's names only
_BIBLATEX_TITLES = frozenset({"subtitle", "titleaddon", "shorttitle", "sorttitle",
                              "indextitle", "indexsorttitle"})


class Inheritance:
    """Resolves ``crossref``/``xdata`` against one set of records (keys compared
    case-insensitively, as biber does; the first entry with a key is the target)."""

    def __init__(self, records: Iterable[Record]) -> None:
        self._by_key: dict[str, Record] = {}
        self._targets: set[str] = set()  # keys that some entry inherits from
        for rec in records:
            self._by_key.setdefault(rec.key.casefold(), rec)
            for name in ("xdata", "crossref"):
                self._targets.update(k.casefold() for k in split_keys(rec.fields.get(name)))

    def is_parent(self, rec: Record) -> bool:
        """Whether another entry inherits from ``rec`` (a proceedings, a whole journal
        issue): such an entry passes data down and needs no fields of its own type."""
        return bool(rec.key) and rec.key.casefold() in self._targets

    def parents(self, rec: Record) -> list[Record]:
        """The entries ``rec`` names in ``crossref`` and ``xdata`` that exist."""
        out = []
        for name in ("xdata", "crossref"):
            for key in split_keys(rec.fields.get(name)):
                parent = self._by_key.get(key.casefold())
                if parent is not None and parent is not rec:
                    out.append(parent)
        return out

    def inherited(self, rec: Record) -> dict[str, str]:
        """The fields ``rec`` gets from its parents and theirs (its own not included):
        biblatex's names first (a proceedings' ``title`` as ``booktitle``), then any
        other field as BibTeX copies it."""
        mapped: dict[str, str] = {}
        plain: dict[str, str] = {}
        self._collect(rec, rec.type, mapped, plain, {id(rec)}, 0)
        for name, value in plain.items():
            mapped.setdefault(name, value)
        for name in rec.fields:
            mapped.pop(name, None)
        return mapped

    def _collect(self, rec: Record, child_type: str, mapped: dict[str, str],
                 plain: dict[str, str], seen: set[int], depth: int) -> None:
        if depth >= MAX_DEPTH:
            return
        for name in ("xdata", "crossref"):
            for key in split_keys(rec.fields.get(name)):
                parent = self._by_key.get(key.casefold())
                if parent is None or id(parent) in seen:
                    continue
                seen.add(id(parent))
                for field, value in parent.fields.items():
                    if not value.strip() or field in NOT_INHERITED:
                        continue
                    target = field if name == "xdata" else \
                        inherited_name(field, parent.type, child_type)
                    if target:
                        mapped.setdefault(target, value)
                    if target == field or field not in _BIBLATEX_TITLES:
                        # BibTeX's copy by name; biblatex's own title fields pass by
                        # biblatex's names only (a book's subtitle is its chapter's
                        # booksubtitle, its shorttitle stays): BibTeX has no such field
                        plain.setdefault(field, value)
                self._collect(parent, child_type, mapped, plain, seen, depth + 1)

    def fields(self, rec: Record) -> dict[str, str]:
        """``rec``'s fields with the inherited ones added (its own win)."""
        if "crossref" not in rec.fields and "xdata" not in rec.fields:
            return rec.fields
        merged = self.inherited(rec)
        merged.update(rec.fields)
        return merged

    def resolved(self, rec: Record) -> Record:
        """A copy of ``rec`` with the inherited fields, for display and validation
        (it keeps ``rec``'s place in the file, so its text is still ``rec``'s own)."""
        if "crossref" not in rec.fields and "xdata" not in rec.fields:
            return rec
        return rec.copy(fields=self.fields(rec))


def resolve_all(records: Sequence[Record]) -> list[Record]:
    """Every record with its inherited fields (records without parents as they are)."""
    if not any("crossref" in r.fields or "xdata" in r.fields for r in records):
        return list(records)
    inh = Inheritance(records)
    return [inh.resolved(r) for r in records]


def publications(records: Sequence[Record], *, inherits: bool | None = None) -> list[Record]:
    """What listings and the page show: every entry with what it inherits, without the
    data containers biblatex never prints (``@xdata``). ``inherits=False``: the caller
    knows no record has ``crossref`` or ``xdata`` (a listing from the display cache), so
    no record's fields are read."""
    from pubcli.schema.types import CONTAINER_TYPES

    resolved = records if inherits is False else resolve_all(records)
    return [r for r in resolved if r.type not in CONTAINER_TYPES]
