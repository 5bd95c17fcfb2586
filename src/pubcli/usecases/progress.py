"""The progress seam: long core work says how far it is through one callback.

A core function that can take more than about a second (an import of thousands,
asking the online services, a styled export) takes ``progress: Progress | None``
and calls ``progress(what, done, total)`` now and then (``total`` 0: not known).
It never draws anything: the CLI renders the calls (a bar on a terminal's stderr,
nothing in a pipe; :func:`pubcli.cli.common.progress_bar`), a test records them.
"""

from __future__ import annotations

from typing import Callable

Progress = Callable[[str, int, int], None]  # (what is being done, done, total; 0: unknown)


def stepper(progress: Progress | None, what: str, total: int,
            steps: int = 200) -> Callable[[int], None]:
    """``tick(done)`` that calls ``progress`` about ``steps`` times over ``total``
    (and at the end), so a loop over a million items costs a million integer
    comparisons, not a million redraws. Without ``progress``, ``tick`` does nothing."""
    if progress is None:
        return _nothing
    report = progress
    every = max(1, total // steps)
    next_at = [0]

    def tick(done: int) -> None:
        if done >= next_at[0] or done >= total:
            next_at[0] = done + every
            report(what, done, total)

    return tick


def _nothing(done: int) -> None:
    return None


__all__ = ["Progress", "stepper"]
