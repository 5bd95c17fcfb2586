"""Many strings searched as one: the titles of a library joined by newlines, so that
"which titles hold this text" or "start with it" is one C-speed ``str.find`` scan
instead of a loop over every title (:mod:`.blocking` asks it for contained titles)."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence


class Blob:
    """Strings joined by newlines, searchable as one (substring or prefix), and the
    strings added since (``extra``, searched one by one)."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.size = len(texts)
        self.extra: list[str] = []
        parts = []
        starts = []
        pos = 1
        for t in texts:
            t = t.replace("\n", " ")
            starts.append(pos)
            parts.append(t)
            pos += len(t) + 1
        self.text = "\n" + "\n".join(parts) + "\n"
        self.starts = starts

    def _hits(self, needle: str, shift: int = 0, whole: bool = False) -> Iterator[int]:
        text, find = self.text, self.text.find
        n = len(needle)
        i = find(needle)
        while i >= 0:
            if not whole or not (text[i - 1].isalnum() or text[i + n].isalnum()):
                yield bisect.bisect_right(self.starts, i + shift) - 1
                i = text.find("\n", i + 1)
            else:
                i += 1
            if i >= 0:
                i = find(needle, i)
        for k, t in enumerate(self.extra):
            if ("\n" + t).startswith(needle) if shift else needle in t:
                yield self.size + k

    def containing(self, needle: str, whole: bool = False) -> Iterator[int]:
        """Strings holding ``needle`` (``whole``: not inside a longer word or number)."""
        return self._hits(needle, 0, whole) if needle and "\n" not in needle else iter(())

    def starting(self, head: str) -> Iterator[int]:
        return self._hits("\n" + head, 1) if head and "\n" not in head else iter(())
