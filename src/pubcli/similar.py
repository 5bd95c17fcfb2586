""""Did you mean ...?": the one rule for suggesting a known name close to a mistyped one
(areas, entry types, citation keys, option values), backed by rapidfuzz."""

from __future__ import annotations

from typing import Callable, Iterable

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
