"""The click pieces pubcli's CLI needs, wherever typer keeps them.

Recent typer releases vendor click as ``typer._click``; older ones depend on click.
"""

from typer import Abort

try:
    from typer._click.core import Context  # type: ignore
    from typer._click.exceptions import ClickException, UsageError  # type: ignore
    from typer._click.formatting import HelpFormatter, wrap_text  # type: ignore
    from typer._click.globals import get_current_context  # type: ignore
except ImportError:  # typer releases that depend on click itself
    from click.core import Context  # type: ignore
    from click.exceptions import ClickException, UsageError  # type: ignore
    from click.formatting import HelpFormatter, wrap_text  # type: ignore
    from click.globals import get_current_context  # type: ignore

__all__ = ["Abort", "ClickException", "Context", "HelpFormatter", "UsageError",
           "get_current_context", "wrap_text"]
