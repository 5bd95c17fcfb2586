"""Exporters: the publications page as HTML or Markdown; CSL-JSON in :mod:`.csl`,
citation styles in :mod:`.cslstyle`.

Three steps, each in its own place:

1. **style** (:mod:`.style`): records -> a :class:`~.style.Page` of entries,
   deciding what to say about each one (built on :mod:`pubcli.text.view`);
2. **templates** (Jinja2, shipped in ``pubcli/templates``; ``--template FILE``
   for a user's own): the layout;
3. **backend** (:mod:`.html`, :mod:`.markdown`): escaping, filters, and the
   environment the templates run in (autoescaping always on).

The registry :data:`EXPORTERS` maps a format name to its backend module, which
defines ``TEMPLATE``, ``environment(loader)`` and ``context(page, env)``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from collections.abc import Iterator

from ..errors import PubcliError, ValidationError
from .sections import PAGE_GROUPINGS
from .style import Page, build_page

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"


@dataclass(frozen=True)
class Exporter:
    name: str
    module: str          # backend module inside this package

    @property
    def backend(self) -> ModuleType:
        return importlib.import_module(f"{__name__}.{self.module}")

    def render(self, page: Page, template: str | Path | None = None) -> str:
        """The page as text, with the shipped template or the user's ``template`` file."""
        return render(self, page, template)

    def chunks(self, page: Page, template: str | Path | None = None) -> Iterator[str]:
        """:meth:`render` as pieces of text, made as the template runs."""
        return render_chunks(self, page, template)


EXPORTERS: dict[str, Exporter] = {
    "html": Exporter("html", "html"),
    "markdown": Exporter("markdown", "markdown"),
}


def get(name: str) -> Exporter:
    try:
        return EXPORTERS[name]
    except KeyError:
        raise ValidationError(f"unknown export format {name!r} "
                              f"(known: {', '.join(sorted(EXPORTERS))})") from None


class TemplateError(PubcliError):
    """A user template that cannot be read, parsed or rendered."""


def _loader(user_dir: Path | None):
    from jinja2 import ChoiceLoader, FileSystemLoader, PrefixLoader

    shipped = FileSystemLoader(str(TEMPLATE_DIR), encoding="utf-8")
    loaders = [FileSystemLoader(str(user_dir), encoding="utf-8")] if user_dir else []
    # "pubcli/page.html.j2" always names the shipped template (to extend it).
    return ChoiceLoader(loaders + [PrefixLoader({"pubcli": shipped}), shipped])


def _once_filter():
    """``{{ e|once(entry) }}``: call the macro once per entry, reuse its output.

    An entry reads the same in every group it appears in, so a page of 10k
    entries renders 10k entries, not one per group membership."""
    done: dict[tuple[int, str], object] = {}

    def once(entry, macro):
        key = (id(entry), getattr(macro, "name", ""))
        out = done.get(key)
        if out is None:
            out = done[key] = macro(entry)
        return out
    return once


def _bytecode_cache():
    """Compiled templates kept in pubcli's private cache folder (compiling the page's
    template costs more than rendering 200 entries); None when there is no folder of
    ours. Jinja keys each by the template's name and source, and its own version."""
    from jinja2 import FileSystemBytecodeCache

    from pubcli.local import cachedir

    if cachedir.disabled():
        return None
    root = cachedir.make_private_dir()
    if root is None:
        return None
    folder = root / "templates"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    return FileSystemBytecodeCache(str(folder)) if cachedir.private(folder, is_dir=True) \
        else None


def render(exporter: Exporter, page: Page, template: str | Path | None = None) -> str:
    return "".join(render_chunks(exporter, page, template))


def render_chunks(exporter: Exporter, page: Page,
                  template: str | Path | None = None) -> Iterator[str]:
    """The page as pieces of text, made as the template runs (a 100k page is never
    held whole); joined, :func:`render`'s text. A template error raises
    :class:`TemplateError`, also part way through."""
    import jinja2

    backend = exporter.backend
    path = Path(template) if template is not None else None
    if path is not None and not path.is_file():
        raise TemplateError("template file not found", path=path)
    env = backend.environment(_loader(path.resolve().parent if path else None))
    env.bytecode_cache = _bytecode_cache()
    env.filters["once"] = _once_filter()
    name = path.name if path else backend.TEMPLATE
    try:
        tpl = env.get_template(name)
        yield from tpl.generate(backend.context(page, env))
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"template syntax error: {exc.message}",
                            path=exc.filename or path, line=exc.lineno) from None
    except jinja2.TemplateError as exc:
        raise TemplateError(f"template error: {exc}", path=path or name) from None
    except UnicodeDecodeError:
        raise TemplateError("template is not UTF-8 text", path=path or name) from None


__all__ = ["EXPORTERS", "Exporter", "get", "render", "render_chunks", "build_page", "Page",
           "PAGE_GROUPINGS", "TemplateError"]
