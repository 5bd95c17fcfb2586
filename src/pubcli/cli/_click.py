"""click, as typer ships it: recent typer releases vendor it as ``typer._click``."""

try:
    from typer import _click as click  # type: ignore[attr-defined]
except ImportError:  # typer releases that depend on click itself
    import click  # type: ignore[no-redef]

__all__ = ["click"]
