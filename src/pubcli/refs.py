"""Naming one entry on the command line: ``KEY``, or ``KEY@LINE`` when a key repeats.

Real files use a key twice; ``smith2020@42`` is the entry with key ``smith2020``
that starts on line 42. A key that itself ends in ``@digits`` is looked up as a
key first by the callers, so no key becomes unreachable.
"""

from __future__ import annotations

import re

_REF_RE = re.compile(r"^(?P<key>.+)@(?P<line>\d+)$")


def split_ref(ref: str) -> tuple[str, int | None]:
    """``"smith2020@42"`` -> ("smith2020", 42); a plain key -> (key, None)."""
    m = _REF_RE.match(ref)
    return (m.group("key"), int(m.group("line"))) if m else (ref, None)


def ref(key: str, line: int) -> str:
    """The reference of the entry ``key`` starting on ``line``."""
    return f"{key}@{line}"
