"""Where the audit record is kept, and whether it keeps arguments: `audit_settings`.

Read from ``[tool.nucleo.guard.audit]`` of ``pyproject.toml`` or ``[guard.audit]`` of
``nucleo.toml``, in the project folder: going up from the working directory, the first folder
that holds a ``nucleo.toml``, a ``pyproject.toml`` or a ``.nucleo`` folder (``nucleo.toml``
wins over ``pyproject.toml`` in one folder). Without one, the working directory is the
project folder.

============================  =================================================================
key                           meaning
============================  =================================================================
``path``                      the SQLite file (relative to the configuration file's folder);
                              default ``.nucleo/audit.sqlite3`` in the project folder
``record_arguments``          ``true`` to keep every call's arguments in full (they may carry
                              secrets); default ``false``: only their digest is kept
============================  =================================================================

``$NUCLEO_AUDIT``, when set, names the file instead (the CLI's ``--path`` wins over both).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from nucleo_core._project import PROJECT_FOLDER_NAME, project_folder
from nucleo_core._project_table import NUCLEO_TOML, PYPROJECT_TOML, read_table
from nucleo_core.guard.audit.errors import AuditConfigError

__all__ = [
    "AUDIT_ENVIRONMENT_VARIABLE",
    "AUDIT_FILE_NAME",
    "PROJECT_FOLDER_NAME",
    "AuditSettings",
    "audit_settings",
    "project_folder",
]

#: Names the audit's SQLite file, over the configuration.
AUDIT_ENVIRONMENT_VARIABLE: Final = "NUCLEO_AUDIT"
#: The audit's file in the project's ``.nucleo`` folder.
AUDIT_FILE_NAME: Final = "audit.sqlite3"

_KEYS = frozenset({"path", "record_arguments"})


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditSettings:
    """The audit's configuration, as found.

    Attributes:
        path: The SQLite file.
        record_arguments: Whether calls' arguments are kept in full.
        origin: Where the path came from: a file and its table, the environment variable,
            or ``"default"``.
    """

    path: Path
    record_arguments: bool = False
    origin: str = "default"


def audit_settings(start: str | os.PathLike[str] | None = None) -> AuditSettings:
    """The audit's settings for the project nearest to ``start`` (the working directory).

    Raises:
        AuditConfigError: The configuration file is not valid TOML, or its audit table holds
            an unknown key or a value of the wrong type (the message names the file and key).
    """
    folder = project_folder(start)
    table: dict[str, Any] = {}
    origin = "default"
    for name in (NUCLEO_TOML, PYPROJECT_TOML):
        file = folder / name
        if file.is_file():
            found, origin = read_table(file, ("guard", "audit"), AuditConfigError)
            table = found or {}
            break
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise AuditConfigError(
            f"{origin}: unknown key {', '.join(unknown)}; the audit table takes "
            f"{', '.join(sorted(_KEYS))}"
        )
    record_arguments = table.get("record_arguments", False)
    if not isinstance(record_arguments, bool):
        raise AuditConfigError(f"{origin}: record_arguments must be true or false")
    configured = table.get("path")
    if configured is not None and not isinstance(configured, str):
        raise AuditConfigError(f"{origin}: path must be a string (a file path)")
    environment = os.environ.get(AUDIT_ENVIRONMENT_VARIABLE)
    if environment:
        path = Path(environment).expanduser()
        origin = f"${AUDIT_ENVIRONMENT_VARIABLE}"
    elif configured is not None:
        path = folder / Path(configured).expanduser()
    else:
        path = folder / PROJECT_FOLDER_NAME / AUDIT_FILE_NAME
        origin = "default"
    return AuditSettings(path=path, record_arguments=record_arguments, origin=origin)
