""""Did you mean ...?": the one rule for suggesting a known name close to a mistyped one
(areas, entry types, citation keys, option values), backed by rapidfuzz."""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

#: rapidfuzz ratio (0-100) from which a known name is suggested
CUTOFF = 75.0


def closest(name: str, known: Iterable[str], *, cutoff: float = CUTOFF,
            fold: Callable[[str], str] | None = None) -> str | None:
    """The name in ``known`` closest to ``name`` when it is close enough, else None.
    ``fold`` maps both sides before comparing (e.g. case and accents)."""
    choices: dict[str, str] = {}
    for k in known:
        choices.setdefault(fold(k) if fold else k, k)
    if not choices:
        return None
    from rapidfuzz import fuzz, process

    best = process.extractOne(fold(name) if fold else name, list(choices), scorer=fuzz.ratio,
                              score_cutoff=cutoff)
    return choices[best[0]] if best else None


def did_you_mean(name: str | None) -> str:
    """The one wording of a suggestion: "; did you mean 'NAME'?", or "" for None."""
    return f"; did you mean '{name}'?" if name else ""


def known_list(known: Sequence[str], shown: int = 8) -> str:
    """"; known: 'A', 'B', ... " naming a few of the known names (when none is close)."""
    if not known:
        return ""
    more = f" and {len(known) - shown} more" if len(known) > shown else ""
    return "; known: " + ", ".join(f"'{k}'" for k in known[:shown]) + more
