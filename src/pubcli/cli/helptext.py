"""Help pages whose examples survive a narrow terminal.

click rewraps every paragraph of a docstring at the terminal's width, so at 60
columns ``pubcli tag k --add "Systems and networking"`` broke inside its quotes.
An indented paragraph of ``pubcli ...`` lines is an example: each command wraps
between its shell words (never inside quotes), each line but the last ending in
`` \\`` so the example still pastes into a shell (:func:`pubcli.render.wrap.command_lines`).
"""

from __future__ import annotations

from typing import Any

from ._click import Context, HelpFormatter, wrap_text


def _is_example(paragraph: list[str]) -> bool:
    return bool(paragraph) and all(line.startswith(" ") and line.strip().startswith("pubcli ")
                                   for line in paragraph)


class ExampleFormatter(HelpFormatter):
    """click's help formatter, with examples wrapped as commands (see the module).
    $COLUMNS, when set, is the width (as the terminal's size is read everywhere
    else, and as typer's CliRunner, which forces 80, would otherwise hide)."""

    def __init__(self, indent_increment: int = 2, width: int | None = None,
                 max_width: int | None = None) -> None:
        import os

        columns = os.environ.get("COLUMNS", "")
        if width is None and columns.isdigit():
            width = max(min(int(columns), max_width or 80) - 2, 50)
        super().__init__(indent_increment, width, max_width)

    def write_text(self, text: str) -> None:
        from ..render.wrap import command_lines

        indent = " " * self.current_indent
        paragraphs: list[list[str]] = [[]]
        for line in text.expandtabs().splitlines():
            if line.strip():
                paragraphs[-1].append(line)
            elif paragraphs[-1]:
                paragraphs.append([])
        out: list[str] = []
        prose: list[str] = []

        def flush() -> None:
            if prose:
                out.append(wrap_text("\n\n".join(prose), self.width, initial_indent=indent,
                                     subsequent_indent=indent, preserve_paragraphs=True))
                prose.clear()

        for paragraph in filter(None, paragraphs):
            if not _is_example(paragraph):
                prose.append("\n".join(paragraph))
                continue
            flush()
            lines: list[str] = []
            for line in paragraph:
                lead = indent + " " * (len(line) - len(line.lstrip()))
                lines += command_lines(line.strip(), self.width, lead)
            out.append("\n".join(lines))
        flush()
        self.write("\n\n".join(out))
        self.write("\n")


class PubcliContext(Context):
    formatter_class = ExampleFormatter


def use_example_formatter(command: Any) -> None:
    """Make ``command`` (and its subcommands) write help through :class:`ExampleFormatter`."""
    command.context_class = PubcliContext
    for sub in getattr(command, "commands", {}).values():
        use_example_formatter(sub)
