"""How the command line imports the user's code: a ``.py`` file, or a dotted module name.

``--from`` sources and the class ``nucleo catalog`` inspects are imported the same way, so
that a module that works with one works with the other. A failure is an `ImportFailure`
whose reason is written for the user; each command says what it was importing.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from pathlib import Path
from types import ModuleType

from nucleo_core.errors import ToolDeclarationError

__all__ = ["FILE_MODULE_PREFIX", "ImportFailure", "import_source", "looks_like_path"]

#: The prefix of the module names files are imported under, so that a file never takes the
#: name of a real module (a ``json.py`` of tools must not become ``json``).
FILE_MODULE_PREFIX = "nucleo_source_"

_NOT_IDENTIFIER = re.compile(r"\W")


class ImportFailure(Exception):
    """A source could not be imported; ``reason`` says why, for the user."""

    def __init__(self, reason: str, *, missing: str | None = None) -> None:
        self.reason = reason
        #: The module that does not exist, when that is the failure (the source's own module
        #: or a package above it, not a dependency it imports).
        self.missing = missing
        super().__init__(reason)


def import_source(source: str) -> ModuleType:
    """Import a source: a path to a ``.py`` file, or a dotted module name.

    A module name is imported the way ``python -m`` finds one, with the current working
    directory first on ``sys.path``. A file is imported the way ``python FILE`` runs one, with
    its directory on ``sys.path`` (so it can import its siblings), under a module name of its
    own. A file already imported by this process is not imported again.

    Raises:
        ImportFailure: The file does not exist, the name is not a module name, or importing
            failed (the reason names the error; no traceback is shown to the user).
    """
    if looks_like_path(source):
        return _load_file(source)
    if not all(part.isidentifier() for part in source.split(".")):
        raise ImportFailure(
            "it is neither an existing .py file nor a dotted module name (pkg.module)"
        )
    return _load_module(source)


def looks_like_path(source: str) -> bool:
    """Whether ``source`` is written as a file path rather than a dotted module name."""
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
            raise ImportFailure(
                f"no module named '{exc.name}' (is it installed, or is the current directory "
                "the one that contains it?)",
                missing=exc.name,
            ) from exc
        raise ImportFailure(_import_failure(exc)) from exc
    except Exception as exc:
        raise ImportFailure(_import_failure(exc)) from exc


def _load_file(source: str) -> ModuleType:
    path = Path(source)
    if not path.exists():
        raise ImportFailure("no such file")
    if path.is_dir():
        raise ImportFailure(
            "it is a directory; pass a .py file, or the package's dotted module name"
        )
    path = path.resolve()
    for name, module in list(sys.modules.items()):
        if name.startswith(FILE_MODULE_PREFIX) and _file_of(module) == path:
            return module
    name = _free_module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportFailure("it is not a Python file (.py)")
    _put_first_on_path(str(path.parent))
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, as `import` does: dataclasses and pydantic look a class's
    # module up in sys.modules while the module is still executing.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise ImportFailure(_import_failure(exc)) from exc
    return module


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
