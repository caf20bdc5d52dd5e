"""Where the command line's tools come from: the one place a new kind of source is added.

`collect_registry` builds the registry every command reads. Today a process has no tools of its
own, so the registry holds exactly the tools of the ``--from`` sources; installed tool packs
(entry points) will be collected here too.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from nucleo_core.errors import MisuseError, ToolDeclarationError
from nucleo_core.tools import ToolProvider, ToolRegistry, tools_in_module

__all__ = ["ToolSourceError", "collect_registry", "load_source"]

#: The prefix of the module names files are imported under, so that a file never takes the
#: name of a real module (a ``json.py`` of tools must not become ``json``).
FILE_MODULE_PREFIX = "nucleo_source_"

_NOT_IDENTIFIER = re.compile(r"\W")


class ToolSourceError(MisuseError):
    """A ``--from`` source cannot be loaded, or the tools it defines are misdeclared.

    Attributes:
        source: The source as the user gave it.
        reason: What went wrong, written for the user.
    """

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = reason
        super().__init__(f"cannot load tools from '{source}': {reason}")


def collect_registry(sources: Iterable[str] = ()) -> ToolRegistry:
    """The registry of the tools this process has, plus those of each source.

    Each source is a dotted module name or a path to a ``.py`` file; its tools are the
    ``@tool``-declared classes and functions the module defines itself, registered in source
    order, then in definition order. Every tool is checked (schemas built, refiner applied) so
    that a misdeclaration is reported here rather than when the tool is first shown.

    Args:
        sources: Module names or file paths; a source named twice is loaded once.

    Returns:
        A fresh registry; for now a process has no tools but those of ``sources``.

    Raises:
        ToolSourceError: A source cannot be imported, defines a misdeclared tool, or defines a
            tool under a name another source already uses.
    """
    registry = ToolRegistry()
    origins: dict[str, str] = {}
    loaded: set[str] = set()
    for source in sources:
        module = load_source(source)
        if module.__name__ in loaded:
            continue
        loaded.add(module.__name__)
        for provider in _checked_tools(source, module):
            _register(registry, provider, source, origins)
    return registry


def load_source(source: str) -> ModuleType:
    """Import a source: a path to a ``.py`` file, or a dotted module name.

    A module name is imported the way ``python -m`` finds one, with the current working
    directory first on ``sys.path``. A file is imported the way ``python FILE`` runs one, with
    its directory on ``sys.path`` (so it can import its siblings), under a module name of its
    own. A file already imported by this process is not imported again.

    Raises:
        ToolSourceError: The file does not exist, the name is not a module name, or importing
            failed (the reason names the error; no traceback is shown to the user).
    """
    if _looks_like_path(source):
        return _load_file(source)
    if not all(part.isidentifier() for part in source.split(".")):
        raise ToolSourceError(
            source, "it is neither an existing .py file nor a dotted module name (pkg.module)"
        )
    return _load_module(source)


def _looks_like_path(source: str) -> bool:
    separators = [os.sep, "/"] + ([os.altsep] if os.altsep else [])
    return source.endswith(".py") or any(separator in source for separator in separators)


def _load_module(name: str) -> ModuleType:
    _put_first_on_path(os.getcwd())
    # A module written since the last import in this process (a test's tmp_path, say) would
    # otherwise be missed by the path finders' cached directory listings.
    importlib.invalidate_caches()
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise ToolSourceError(
                name,
                f"no module named '{exc.name}' (is it installed, or is the current directory "
                "the one that contains it?)",
            ) from exc
        raise ToolSourceError(name, _import_failure(exc)) from exc
    except Exception as exc:
        raise ToolSourceError(name, _import_failure(exc)) from exc


def _load_file(source: str) -> ModuleType:
    path = Path(source)
    if not path.exists():
        raise ToolSourceError(source, "no such file")
    if path.is_dir():
        raise ToolSourceError(
            source, "it is a directory; pass a .py file, or the package's dotted module name"
        )
    path = path.resolve()
    for name, module in list(sys.modules.items()):
        if name.startswith(FILE_MODULE_PREFIX) and _file_of(module) == path:
            return module
    name = _free_module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ToolSourceError(source, "it is not a Python file (.py)")
    _put_first_on_path(str(path.parent))
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, as `import` does: dataclasses and pydantic look a class's
    # module up in sys.modules while the module is still executing.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise ToolSourceError(source, _import_failure(exc)) from exc
    return module


def _checked_tools(source: str, module: ModuleType) -> list[ToolProvider]:
    try:
        providers = tools_in_module(module)
        for provider in providers:
            provider.check()
    except MisuseError as exc:
        raise ToolSourceError(source, str(exc)) from exc
    except Exception as exc:
        # Checking runs the module's own code (refiners, custom pydantic types), which can fail
        # in its own terms; the user still gets one message, not a traceback.
        raise ToolSourceError(
            source, f"checking its tools raised {type(exc).__name__}: {exc}"
        ) from exc
    return providers


def _register(
    registry: ToolRegistry, provider: ToolProvider, source: str, origins: dict[str, str]
) -> None:
    existing = registry.get_provider_by_name(provider.name)
    if existing is not None and existing != provider:
        # The registry would quietly upsert a same-kind provider; two sources defining one
        # name is a mistake the user should see, not a silent replacement.
        raise ToolSourceError(
            source,
            f"tool '{provider.name}' is already defined by '{origins[provider.name]}'; "
            "a catalog holds one tool per name, so rename one of them",
        )
    try:
        registry.register(provider)
    except MisuseError as exc:
        raise ToolSourceError(source, str(exc)) from exc
    origins.setdefault(provider.name, source)


def _free_module_name(path: Path) -> str:
    stem = _NOT_IDENTIFIER.sub("_", path.stem)
    name = FILE_MODULE_PREFIX + stem
    suffix = 1
    while name in sys.modules:
        suffix += 1
        name = f"{FILE_MODULE_PREFIX}{stem}_{suffix}"
    return name


def _file_of(module: object) -> Path | None:
    # sys.modules may hold None (an import blocked on purpose) or any object, not only modules.
    location = getattr(module, "__file__", None)
    return Path(location).resolve() if isinstance(location, str) else None


def _put_first_on_path(directory: str) -> None:
    if directory not in sys.path:
        sys.path.insert(0, directory)


def _import_failure(exc: Exception) -> str:
    if isinstance(exc, ToolDeclarationError):  # raised by @tool: its message is the reason
        return str(exc)
    return f"importing it raised {type(exc).__name__}: {exc}"
