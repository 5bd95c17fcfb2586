"""The one home of pubcli's garbage-collector policy.

Reading a big library builds hundreds of thousands of small objects (records,
their field dicts, their sources) and no reference cycles. CPython's cyclic
collector would walk all of them again and again while they are being built,
and once more, all of them, at the first allocation after it is switched back
on. Two tools avoid both:

* :func:`paused` switches the collector off while a block builds many objects;
* when the block built many objects that will live on (a loaded library), they
  are *frozen* on the way out (``gc.freeze``): moved where no later collection
  looks, so switching the collector back on costs nothing and it keeps
  collecting what the rest of the command creates (no memory is lost to
  garbage that only a collection frees). Refcounting still frees them when
  the library is dropped.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

FREEZE_AT = 50_000  # objects tracked since the pause began


@contextlib.contextmanager
def paused(*, always_freeze: bool = False) -> Iterator[None]:
    """Pause the cyclic GC for the block; freeze what it built if that was a lot
    (``always_freeze``: whatever it built, for objects that live as long as the process)."""
    if not gc.isenabled():  # an outer pause is in charge
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if always_freeze:
            gc.freeze()
        else:
            settle()
        gc.enable()


def settle() -> None:
    """Before the collector is switched back on after a pause: when many objects
    were built meanwhile (``gc.get_count()`` counts the young generation), freeze
    them, so that no collection ever walks them."""
    if gc.get_count()[0] >= FREEZE_AT:
        gc.freeze()


def start_up() -> contextlib.AbstractContextManager[None]:
    """The program's start-up (importing the CLI): its objects (modules, functions,
    classes) live as long as the process, so no collection runs while they are built,
    and they are frozen once built (no later collection walks them)."""
    return paused(always_freeze=True)
