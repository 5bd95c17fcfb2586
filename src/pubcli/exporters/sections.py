"""A page's sections: the groupings ``--by`` names, parsed, and their titles."""

from __future__ import annotations

from collections.abc import Sequence

# The groupings a page can show, in the seed page's order.
PAGE_GROUPINGS: tuple[str, ...] = ("year", "area", "type")
SECTION_TITLES = {
    "year": ("Publications by Year", "By year"),
    "area": ("Publications by Research Area", "By research area"),
    "type": ("Publications by Type", "By type"),
}


def parse_grouping(text: str) -> tuple[str, ...]:
    """"year" -> ("year",); "type,year" -> ("type", "year"): one heading per type with
    its years inside."""
    from ..errors import ValidationError

    levels = tuple(p.strip().lower() for p in text.split(",") if p.strip())
    bad = [p for p in levels if p not in PAGE_GROUPINGS]
    if not levels or bad or len(set(levels)) != len(levels) or len(levels) > 2:
        raise ValidationError(f"--by {text!r}: expected one of {', '.join(PAGE_GROUPINGS)}, "
                              "or two of them joined by a comma (type,year)")
    return levels


def section_titles(levels: Sequence[str]) -> tuple[str, str]:
    """("Publications by Type and Year", "By type and year") for ("type", "year")."""
    if len(levels) == 1:
        return SECTION_TITLES[levels[0]]
    heads = [SECTION_TITLES[n][0].split(" by ", 1)[1] for n in levels]
    tabs = [SECTION_TITLES[n][1].split(" ", 1)[1] for n in levels]
    return (f"Publications by {' and '.join(heads)}", f"By {' and '.join(tabs)}")
