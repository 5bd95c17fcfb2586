"""pubcli: keep a publication list in a plain BibTeX file and publish it.

The Python API (the CLI is one client of it)::

    import pubcli
    lib = pubcli.load("data/library.bib")          # or pubcli.find_library()
    for group, records in pubcli.group(lib.records, pubcli.GroupBy.year):
        print(group, len(records))
    with pubcli.transaction("data/library.bib") as lib:   # locked read-modify-write
        rec = lib["wang2024zero"]
        lib.replace(rec, rec.copy(fields={**rec.fields, "note": "Oral"}))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the public API as a reader and mypy see it; loaded lazily below
    from pubcli.errors import PubcliError
    from pubcli.local.config import Config, find_library, load_config
    from pubcli.schema.model import GroupBy, Record
    from pubcli.store import load, loads, transaction
    from pubcli.store import save  # type: ignore[no-redef]  # the function, not store/save.py
    from pubcli.store.library import Library
    from pubcli.usecases.grouping import Filters, group, select

__version__ = "0.1.0"

__all__ = [
    "__version__", "load", "loads", "save", "transaction", "Library", "Record", "GroupBy",
    "group", "select", "Filters", "find_library", "load_config", "Config", "PubcliError",
]


def __getattr__(name: str):  # lazy re-exports keep `pubcli --help` fast
    if name in {"load", "loads", "save", "transaction"}:
        from . import store
        return getattr(store, name)
    if name == "Library":
        from pubcli.store.library import Library
        return Library
    if name in {"Record", "GroupBy"}:
        from pubcli.schema import model
        return getattr(model, name)
    if name in {"group", "select", "Filters"}:
        from pubcli.usecases import grouping
        return getattr(grouping, name)
    if name in {"find_library", "load_config", "Config"}:
        from pubcli.local import config
        return getattr(config, name)
    if name == "PubcliError":
        from .errors import PubcliError
        return PubcliError
    raise AttributeError(f"module 'pubcli' has no attribute {name!r}")
