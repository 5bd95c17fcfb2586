"""Findings in the formats CI systems read."""

from __future__ import annotations

import os


def shown_path(path: str | os.PathLike[str]) -> str:
    """The path relative to the current folder when it lies inside it (for CI logs)."""
    try:
        rel = os.path.relpath(os.path.abspath(path))
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def github_annotation(level: str, path: str, line: int | None, title: str, message: str) -> str:
    """One GitHub Actions workflow command (``::warning file=...,line=...::message``),
    escaped as the runner expects: ``%``, CR and LF everywhere, ``:`` and ``,`` in
    properties. ``path`` is shown relative to the current folder when inside it."""
    from .text import clean

    def data(s: str) -> str:
        return clean(s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))

    def prop(s: str) -> str:
        return data(s).replace(":", "%3A").replace(",", "%2C")

    props = [f"file={prop(shown_path(path))}"]
    if line:
        props.append(f"line={line}")
    props.append(f"title={prop(title)}")
    return f"::{level} {','.join(props)}::{data(message)}"


def finding_line(path: str | os.PathLike[str], f) -> str:
    """``file:line: severity: message [code]`` (one line, cleaned)."""
    from .text import one_line

    where = f"{shown_path(path)}:{f.line}" if f.line else shown_path(path)
    return f"{one_line(where)}: {f.severity}: {one_line(f.message)} [{f.code}]"


def findings(results, fmt: str) -> str:
    """The findings of ``pubcli check`` (``results``: (path, findings) pairs) as
    ``text`` lines, a ``json`` list or ``github`` annotations."""
    if fmt == "json":
        import json

        from .text import json_safe

        rows = [{"file": shown_path(path), **f.as_dict()} for path, found in results
                for f in found]
        return json_safe(json.dumps(rows, indent=2, ensure_ascii=False)) + "\n"
    if fmt == "github":
        return "".join(github_annotation(f.severity, str(path), f.line, "pubcli " + f.code,
                                         f.message) + "\n"
                       for path, found in results for f in found)
    return "".join(finding_line(path, f) + "\n" for path, found in results for f in found)
