"""The interactive prompt of ``pubcli dedupe --merge``: one group at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Union

import typer

if TYPE_CHECKING:
    from ..dedupe import Group, MergeResult

SKIP = "skip"
DISTINCT = "distinct"
Decision = Union["MergeResult", str, None]  # a merge, SKIP, DISTINCT, or None (quit)


def ask(console, n: int, total: int, g: "Group", tables: Callable[[list["Group"]], list]
        ) -> Decision:
    """Show group ``n`` and ask what to do with it."""
    from rich.markup import escape
    from rich.prompt import Prompt

    from .. import dedupe

    for table in tables([g]):
        table.title = f"Group {n} of {total}: {len(g.records)} entries, score {g.score:.0f}"
        console.print(table)
    try:
        action = Prompt.ask("merge (m), skip (s), mark as not duplicates (d), or quit (q)",
                            choices=["m", "s", "d", "q"], default="m", console=console)
        if action == "q":
            return None
        if action == "s":
            return SKIP
        if action == "d":
            return DISTINCT
        recs = g.records
        suggested = dedupe.suggest_keep(recs)
        default = next(i for i, r in enumerate(recs, 1) if r is suggested)
        pick = Prompt.ask("keep which entry", choices=[str(i) for i in range(1, len(recs) + 1)],
                          default=str(default), console=console)
        result = dedupe.merge(recs, recs[int(pick) - 1])
        for c in result.conflicts:
            options = [(result.record.key, c.kept)] + c.others
            console.print(f"[bold]{escape(c.field)}[/bold] differs:")
            for i, (k, v) in enumerate(options, 1):
                console.print(f"  {i}. {escape(v)}  [dim]({escape(k)})[/dim]", highlight=False)
            choice = Prompt.ask(f"keep which {c.field}",
                                choices=[str(i) for i in range(1, len(options) + 1)],
                                default="1", console=console)
            value = options[int(choice) - 1][1]
            if c.field == "@type":
                result.record = result.record.copy(type=value)
            else:
                fields = dict(result.record.fields)
                fields[c.field] = value
                result.record = result.record.copy(fields=fields)
        return result
    except EOFError:
        raise typer.Abort() from None
