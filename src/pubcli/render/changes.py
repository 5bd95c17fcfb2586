"""What a write did or would do, in words (tag, edit, remove, rename)."""

from __future__ import annotations

from typing import Sequence

from pubcli.schema.model import FEATURED_FIELD, Record
from .text import clean


def entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


def tag_change(old: Record, new: Record) -> str:
    """``KEY: areas: A -> A, B; featured: no -> yes``."""
    parts = []
    if old.areas != new.areas:
        parts.append(f"areas: {', '.join(old.areas) or '-'} -> {', '.join(new.areas) or '-'}")
    if old.featured != new.featured or (FEATURED_FIELD in old.fields) != \
            (FEATURED_FIELD in new.fields):
        parts.append(f"featured: {'yes' if old.featured else 'no'} -> "
                     f"{'yes' if new.featured else 'no'}")
    return clean(f"{new.key}: {'; '.join(parts)}")


def tag_changes(changes: Sequence[tuple[Record, Record]]) -> str:
    return "".join(tag_change(old, new) + "\n" for old, new in changes)


def outcome(n: int, dry_run: bool, *, verb: str, none: str) -> str:
    """"changed 2 entries" / "dry run: would change 2 entries; nothing was written"."""
    if dry_run:
        return f"dry run: would {verb} {entries(n)}; nothing was written"
    if not n:
        return none
    past = {"change": "changed", "remove": "removed", "rename": "renamed"}.get(verb, verb + "d")
    return f"{past} {entries(n)}"
