"""The thinker class a command names by its import path (``nucleo run``, ``chat``, ``catalog``).

``package.module:ClassName``, ``package.module.ClassName`` or ``path/to/file.py:ClassName`` is
imported as `import_source` imports a tool source (the current directory first on
``sys.path``); what it names must subclass `ThinkerBase`. Every mistake is a `CommandError`
saying what is wrong with the path.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence

from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.importing import ImportFailure, import_source, looks_like_path
from nucleo_core.hub import ThinkerBase

__all__ = ["load_thinker_class"]

_PATH_FORMS = "package.module:ClassName or package.module.ClassName"


def load_thinker_class(path: str) -> type[ThinkerBase]:
    """Import the thinker class ``path`` names.

    Args:
        path: ``package.module:ClassName`` (``ClassName`` may be dotted, for a nested class),
            ``package.module.ClassName``, or ``path/to/file.py:ClassName``.

    Raises:
        CommandError: The path is malformed, its module cannot be imported, it names nothing,
            or what it names is not a subclass of `ThinkerBase`.
    """
    found = _resolve(path)
    if isinstance(found, type) and issubclass(found, ThinkerBase):
        return found
    if isinstance(found, type):
        raise CommandError(
            f"'{path}' is not a thinker class: it does not subclass nucleo_core.ThinkerBase"
        )
    raise CommandError(f"'{path}' is not a thinker class but {_described(found)}")


def _resolve(path: str) -> object:
    module_part, colon, attribute_part = path.rpartition(":")
    if colon:
        attributes = attribute_part.split(".")
        if not module_part or not all(part.isidentifier() for part in attributes):
            raise CommandError(f"'{path}' is not a class's import path; write {_PATH_FORMS}")
        return _attribute(path, _import(path, module_part), module_part, attributes)
    parts = path.split(".")
    if len(parts) < 2 or looks_like_path(path) or not all(p.isidentifier() for p in parts):
        raise CommandError(
            f"'{path}' is not a class's import path; write {_PATH_FORMS} (or "
            "path/to/file.py:ClassName)"
        )
    # The module is the longest prefix that imports: `pkg.mod.Outer.Inner` is tried as the
    # module pkg.mod.Outer first, then pkg.mod (Outer.Inner being attributes), as pkgutil does.
    for split in range(len(parts) - 1, 0, -1):
        module_name = ".".join(parts[:split])
        try:
            module = import_source(module_name)
        except ImportFailure as exc:
            if exc.missing == module_name and split > 1:
                continue  # that prefix is no module: it may be an attribute of a shorter one
            raise CommandError(f"cannot import thinker '{path}': {exc.reason}") from exc
        return _attribute(path, module, module_name, parts[split:])
    raise AssertionError("unreachable: the loop returns or raises at split == 1")


def _import(path: str, source: str) -> object:
    try:
        return import_source(source)
    except ImportFailure as exc:
        raise CommandError(f"cannot import thinker '{path}': {exc.reason}") from exc


def _attribute(path: str, found: object, owner: str, attributes: Sequence[str]) -> object:
    for attribute in attributes:
        try:
            found = getattr(found, attribute)
        except AttributeError as exc:
            raise CommandError(
                f"cannot import thinker '{path}': {owner} has no attribute '{attribute}'"
            ) from exc
        owner = f"{owner}.{attribute}"
    return found


def _described(found: object) -> str:
    if inspect.ismodule(found):
        return f"the module {found.__name__}"
    if inspect.isroutine(found):
        return "a function"
    return f"an object of type {type(found).__name__}"
