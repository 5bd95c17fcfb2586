"""The click exceptions pubcli's error boundary needs, wherever typer keeps them.

Recent typer releases vendor click as ``typer._click``; older ones depend on click.
"""

from typer import Abort

try:
    from typer._click.exceptions import ClickException, UsageError  # type: ignore
except ImportError:  # typer releases that depend on click itself
    from click.exceptions import ClickException, UsageError  # type: ignore[no-redef]

__all__ = ["Abort", "ClickException", "UsageError"]
