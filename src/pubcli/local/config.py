"""Where the library is, and the owner's settings.

The library is, in order: ``--library/-l PATH``; ``$PUBCLI_LIBRARY``;
``data/library.bib`` found from the current folder upward (the way git finds
``.git``).

Settings come from ``pubcli.toml`` beside the library, else from the
``[tool.pubcli]`` table of a ``pyproject.toml`` beside it; both are also looked
for one folder up (the project root, for the usual ``data/library.bib``)::

    owner = "Olatunji Ruwase"     # highlighted in author lists
    role = "Team Lead"            # shown under the name on exported pages
    areas = ["Artificial intelligence", "Systems and networking"]  # display order
    orcid = "0000-0002-1825-0097"  # the owner's ids, for 'pubcli sync'
    dblp = "251/3272"
    openalex = "A5023888391"
    private_fields = ["note"]     # also left out of the BibTeX a page visitor copies
    max_authors = 10              # authors a page shows before "... and N more"
    git = true                    # commit each write in the library's git repository

    [fmt]                         # the form pubcli writes entries in (pubcli fmt)
    indent = 2                    # spaces (or "\t"); default: the file's own
    delimiters = "braces"         # or "quotes" (where BibTeX reads it the same)
    align = false                 # the '=' of an entry's fields in one column
    trailing_comma = true
    order = []                    # e.g. ["author", "title"]: these first, the rest as written
    lowercase = true              # field names and entry types
    blank_lines = 1               # between entries; false: as they are
    sort = "none"                 # or "key", "year" (newest first), "type"
    months = true                 # month = {May} -> month = may
    pages = false                 # true: 1-10 -> 1--10
    bare_doi = false              # true: https://doi.org/10.1/x -> 10.1/x
    drop = []                     # fields to remove, e.g. ["abstract", "file"]
    encoding = "none"             # "latex" (Müller -> M{\\"u}ller) or "unicode"
    protect = "none"              # "acronyms": {BERT}, {GPT}-3 in titles
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pubcli.errors import ConfigError, LibraryNotFound

if TYPE_CHECKING:
    from pubcli.bibtex.form import Form

DEFAULT_RELATIVE = Path("data") / "library.bib"
CONFIG_NAME = "pubcli.toml"


@dataclass
class Config:
    owner: str | None = None
    role: str | None = None
    areas: list[str] = field(default_factory=list)
    orcid: str | None = None
    dblp: str | None = None
    openalex: str | None = None
    private_fields: list[str] = field(default_factory=list)
    max_authors: int = 10
    fmt: "Form" = field(default_factory=lambda: _default_form())
    git: bool = False  # commit each write of the library in its git repository
    path: Path | None = None  # the file the settings came from


def _default_form() -> "Form":
    from pubcli.bibtex.form import DEFAULT_FORM

    return DEFAULT_FORM


def find_library(explicit: str | os.PathLike[str] | None = None,
                 cwd: str | os.PathLike[str] | None = None) -> Path:
    """Resolve the library path (see the module docstring)."""
    if explicit is not None:
        if str(explicit).strip() == "":
            raise LibraryNotFound("the --library path is empty")
        return Path(explicit)
    env = os.environ.get("PUBCLI_LIBRARY")
    if env is not None and env.strip():
        return Path(env)
    start = Path(cwd) if cwd is not None else Path.cwd()
    start = start.resolve()
    for folder in (start, *start.parents):
        candidate = folder / DEFAULT_RELATIVE
        if candidate.is_file():
            return candidate
    raise LibraryNotFound(f"no library found: looked for {DEFAULT_RELATIVE} in {start} and "
                          "the folders above it; pass --library PATH, set PUBCLI_LIBRARY, "
                          "or create one with 'pubcli init'")


def config_candidates(library: Path) -> list[Path]:
    folder = library.resolve().parent if library.exists() else library.parent.absolute()
    out = []
    for f in (folder, folder.parent):
        out += [f / CONFIG_NAME, f / "pyproject.toml"]
    return out


def load_config(library: str | os.PathLike[str] | None) -> Config:
    """The settings that apply to ``library`` (an empty Config when there are none)."""
    if library is None:
        return Config()
    for candidate in config_candidates(Path(library)):
        if not candidate.is_file():
            continue
        table = _read_toml(candidate)
        if candidate.name == "pyproject.toml":
            table = table.get("tool", {}).get("pubcli")
            if table is None:
                continue
        return _config_from(table, candidate)
    return Config()


def _read_toml(path: Path) -> dict:
    import tomllib

    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+)", str(exc))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ConfigError(f"invalid TOML: {msg}", path=path,
                          line=int(m.group(1)) if m else None) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", path=path) from None


def _config_from(table: dict, path: Path) -> Config:
    known = {"owner", "role", "areas", "orcid", "dblp", "openalex", "private_fields",
             "max_authors", "fmt", "git"}
    for k in table:
        if k not in known:
            raise ConfigError(f"unknown setting '{k}' (known: {', '.join(sorted(known))})",
                              path=path, field=k)
    cfg = Config(path=path)
    for k in ("owner", "role", "orcid", "dblp", "openalex"):
        v = table.get(k)
        if v is not None and not isinstance(v, str):
            raise ConfigError("must be a string", path=path, field=k)
        setattr(cfg, k, v or None)
    areas = table.get("areas", [])
    if not isinstance(areas, list) or not all(isinstance(a, str) for a in areas):
        raise ConfigError("must be a list of strings", path=path, field="areas")
    for a in areas:
        if "," in a or ";" in a:
            raise ConfigError(f"area {a!r} contains a separator (',' or ';')", path=path,
                              field="areas")
    cfg.areas = [" ".join(a.split()) for a in areas if a.strip()]
    private = table.get("private_fields", [])
    if not isinstance(private, list) or not all(isinstance(f, str) for f in private):
        raise ConfigError("must be a list of field names", path=path, field="private_fields")
    cfg.private_fields = [f.strip().lower() for f in private if f.strip()]
    most = table.get("max_authors", 10)
    if not isinstance(most, int) or isinstance(most, bool) or most < 1:
        raise ConfigError("must be a whole number of at least 1", path=path,
                          field="max_authors")
    cfg.max_authors = most
    fmt = table.get("fmt", {})
    if not isinstance(fmt, dict):
        raise ConfigError("must be a table ([fmt])", path=path, field="fmt")
    cfg.fmt = form_from(fmt, path)
    git = table.get("git", False)
    if not isinstance(git, bool):
        raise ConfigError("must be true or false", path=path, field="git")
    cfg.git = git
    return cfg


_FMT_CHOICES = {"delimiters": ("braces", "quotes"), "sort": ("none", "key", "year", "type"),
                "encoding": ("none", "latex", "unicode"), "protect": ("none", "acronyms")}
_FMT_FLAGS = ("align", "trailing_comma", "lowercase", "months", "pages", "bare_doi")


def form_from(table: dict[str, Any], path: Path | None = None) -> "Form":
    """The :class:`~pubcli.bibtex.form.Form` a ``[fmt]`` table describes (see the
    module docstring); a wrong key or value is a ConfigError naming it."""
    from pubcli.bibtex.form import Form
    from pubcli.bibtex.writable import FIELD_NAME_RE

    known = set(_FMT_CHOICES) | set(_FMT_FLAGS) | {"indent", "order", "blank_lines", "drop"}
    for k in table:
        if k not in known:
            raise ConfigError(f"unknown setting 'fmt.{k}' (known: {', '.join(sorted(known))})",
                              path=path, field=f"fmt.{k}")
    args: dict[str, Any] = {}
    for k in _FMT_FLAGS:
        if k in table:
            if not isinstance(table[k], bool):
                raise ConfigError("must be true or false", path=path, field=f"fmt.{k}")
            args[k] = table[k]
    for k, choices in _FMT_CHOICES.items():
        if k in table:
            v = table[k]
            if v is False:
                v = "none"
            if v not in choices:
                raise ConfigError(f"must be one of {', '.join(map(repr, choices))}", path=path,
                                  field=f"fmt.{k}")
            if k == "delimiters":
                args["quotes"] = v == "quotes"
            else:
                args[k] = "" if v == "none" else v
    if "indent" in table:
        v = table["indent"]
        if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 16:
            v = " " * v
        if not isinstance(v, str) or v.strip(" \t"):
            raise ConfigError("must be a number of spaces or a string of spaces and tabs",
                              path=path, field="fmt.indent")
        args["indent"] = v
    if "blank_lines" in table:
        v = table["blank_lines"]
        if v is False:
            args["blank_lines"] = None
        elif isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 10:
            args["blank_lines"] = v
        else:
            raise ConfigError("must be a number from 0 to 10, or false (kept as they are)",
                              path=path, field="fmt.blank_lines")
    for k in ("order", "drop"):
        if k in table:
            v = table[k]
            if not isinstance(v, list) or not all(isinstance(n, str) and FIELD_NAME_RE.match(n)
                                                  for n in v):
                raise ConfigError("must be a list of field names", path=path, field=f"fmt.{k}")
            args[k] = tuple(dict.fromkeys(n.lower() for n in v))
    return Form(**args)


def write_config(path: Path, owner: str | None, role: str | None, areas: list[str]) -> None:
    """Write a new pubcli.toml (used by ``pubcli init``)."""
    def q(s: str) -> str:
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["# pubcli settings for the library beside this file.",
             "# owner: highlighted in author lists; role: shown on exported pages.",
             f"owner = {q(owner)}" if owner else '# owner = "Your Name"',
             f"role = {q(role)}" if role else '# role = "Your role"',
             "# research areas, in the order lists and pages show them",
             "areas = [" + ", ".join(q(a) for a in areas) + "]", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def _areas_list(cfg: Config) -> tuple[Any, Any]:
    """The config file as a tomlkit document (comments and layout kept) and its ``areas``
    list (None when there is no file or no list)."""
    import tomlkit

    if cfg.path is None:
        return None, None
    try:
        text = cfg.path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", path=cfg.path) from None
    doc = tomlkit.parse(text)
    table = doc.get("tool", {}).get("pubcli") if cfg.path.name == "pyproject.toml" else doc
    return doc, (table.get("areas") if table is not None else None)


def rename_area(cfg: Config, old: str, new: str) -> bool:
    """Rename area ``old`` to ``new`` in the ``areas`` list of the config file, keeping
    its comments and layout (tomlkit); when ``new`` is listed too, ``old`` is dropped.
    Returns False when the file does not list ``old`` (nothing written)."""
    import tomlkit

    from pubcli.text.fold import fold
    from pubcli.store import atomic_write

    doc, areas = _areas_list(cfg)
    if areas is None or cfg.path is None:
        return False
    at = next((i for i, a in enumerate(areas) if fold(" ".join(str(a).split())) == fold(old)),
              None)
    if at is None:
        return False
    if any(fold(" ".join(str(a).split())) == fold(new) for i, a in enumerate(areas) if i != at):
        del areas[at]
    else:
        areas[at] = new
    atomic_write(cfg.path, tomlkit.dumps(doc).encode("utf-8"))
    return True


def add_areas(cfg: Config, names: list[str]) -> list[str]:
    """Append ``names`` to the ``areas`` list of the config file (those it does not list
    yet, case and accents aside), keeping its comments and layout (tomlkit). Returns
    the names added ([] when the file has no ``areas`` list: nothing written)."""
    import tomlkit

    from pubcli.text.fold import fold
    from pubcli.store import atomic_write

    if not names:
        return []
    doc, areas = _areas_list(cfg)
    if areas is None or cfg.path is None:
        return []
    have = {fold(" ".join(str(a).split())) for a in areas}
    added = []
    for name in names:
        if fold(name) not in have:
            have.add(fold(name))
            areas.append(name)
            added.append(name)
    if added:
        atomic_write(cfg.path, tomlkit.dumps(doc).encode("utf-8"))
    return added
