"""Duplicate groups and match explanations as text, JSON data and CI annotations
(``pubcli dedupe``); never prints itself."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ..dedupe import Group, Link, Match, Model, Verdict

HEADERS = ["#", "Entry", "Type", "Line", "Year", "Title", "Authors"]
#: People shown per entry in a group's table (then "et al.").
SHOWN_PEOPLE = 3


def summary(n: int) -> str:
    return f"{n} group{'s' if n != 1 else ''} of possible duplicates"


def heading(n: int, total: int | None, g: Group) -> str:
    of = f" of {total}" if total else ""
    return f"Group {n}{of}: {len(g.records)} entries, score {g.score:.0f}"


def rows(g: Group) -> list[list[str]]:
    """One table row per entry: number, key, type, line, year, title, the first people."""
    from ..dedupe import person_strings
    from pubcli.text.latex import to_text

    out = []
    for i, rec in enumerate(g.records, 1):
        people = person_strings(rec.fields.get("author") or rec.fields.get("editor"))
        authors = "; ".join(to_text(p) for p in people[:SHOWN_PEOPLE]) \
            + (" et al." if len(people) > SHOWN_PEOPLE else "")
        out.append([str(i), rec.key, rec.type, str(rec.line), str(rec.year or ""),
                    to_text(rec.title) or "(no title)", authors])
    return out


def evidence(link: Link) -> str:
    return f"{link.a.key} ~ {link.b.key}: {'; '.join(link.evidence)} ({link.rule})"


def notes(g: Group) -> list[str]:
    """Why the group holds together (each link's evidence), and what needs a human."""
    return [evidence(link) for link in g.links] + [f"needs a human: {c}" for c in g.conflicts]


def json_groups(path: Path, groups: list[Group]) -> list[dict]:
    from pubcli.text.latex import to_text

    return [{
        "library": str(path),
        "score": round(g.score, 1),
        "keys": g.keys,
        "entries": [{"key": r.key, "line": r.line, "type": r.type, "year": r.year,
                     "title": to_text(r.title)} for r in g.records],
        "links": [{"a": link.a.key, "b": link.b.key, "score": round(link.score, 1),
                   "rule": link.rule, "evidence": link.evidence} for link in g.links],
        "conflicts": g.conflicts,
    } for g in groups]


def github(path: Path, groups: list[Group]) -> str:
    """A GitHub Actions warning on each entry's line, naming the entries it duplicates."""
    from .ci import github_annotation

    lines = []
    for g in groups:
        for rec in g.records:
            others = [r.key for r in g.records if r is not rec]
            links = [lk for lk in g.links if rec in (lk.a, lk.b)]
            why = (f"match probability {links[0].score:.1f}% ("
                   + "; ".join(links[0].evidence[:3]) + ")") if links else ""
            msg = f"'{rec.key}' looks like a duplicate of {', '.join(repr(k) for k in others)}"
            if why:
                msg += f": {why}"
            lines.append(github_annotation("warning", str(path), rec.line,
                                           "possible duplicate entry", msg))
    return "".join(line + "\n" for line in lines)


def verdict_data(ka: str, kb: str, v: Verdict) -> dict:
    return {"a": ka, "b": kb, "duplicate": v.duplicate, "probability": v.score,
            "weight": round(v.weight, 2), "threshold": v.threshold, "compared": v.compared,
            "place_only": v.place_only is not None,
            "vetoes": [{"kind": x.kind.name.lower(), "text": x.text} for x in v.vetoes],
            "fields": [{"field": c.field.value, "level": c.level_name, "shown": c.shown,
                        "weight": round(c.weight, 2), "note": c.note, "capped": c.capped}
                       for c in v.contributions], "notes": v.notes}


def verdict_text(ka: str, kb: str, v: Verdict) -> str:
    lines = [f"{ka} ~ {kb}: {v.summary}"]
    if v.vetoes and not v.duplicate:
        lines.append(f"  (weighed: match probability {v.score:.1f}%, {v.weight:+.1f} bits)")
    lines += [f"  {c}" for c in v.evidence]
    return "\n".join(lines) + "\n"


def explanations(judged: Iterable[tuple[str, Sequence[Match]]]) -> str:
    """The full evidence behind the duplicate decisions of ``add`` and ``import``
    (``--explain``): for each new entry (its label) and each entry it matches, the
    verdict, each field's weight and the notes, said once."""
    out = []
    for label, matches in judged:
        for m in matches:
            if m.verdict is not None:
                out.append(verdict_text(label, m.record.key, m.verdict))
            else:
                out.append(f"{label} ~ {m.record.key}: {m.rule}\n")
    return "".join(out)


def weights_data(model: Model) -> dict:
    from ..dedupe import model_summary, weight_lines

    return {"summary": model_summary(model), "prior": model.prior, "pairs": model.pairs,
            "levels": [dict(zip(("field", "level", "m", "u", "weight", "pairs"), r, strict=True))
                       for r in weight_lines(model)]}


def weights_text(model: Model) -> str:
    from ..dedupe import model_summary, weight_lines

    lines = [model_summary(model),
             "weight: log2(m/u), moved toward the prior where few pairs show a level",
             f"{'field':<8} {'level':<16} {'m':>6} {'u':>6} {'weight':>7} {'pairs':>7}"]
    lines += [f"{f:<8} {lv:<16} {m:>6} {u:>6} {w:>7} {n:>7}"
              for f, lv, m, u, w, n in weight_lines(model)]
    return "\n".join(lines) + "\n"
