"""The API's bearer token: from ``$NUCLEO_API_TOKEN``, or a file only its user can read.

On first start the token is generated (`secrets.token_urlsafe`, 256 bits) into
``.nucleo/api-token`` in the project folder, created with mode ``0600`` in one system call
(``O_CREAT | O_EXCL``), so no other user can read it even for a moment. A token file that
others can read, or that is not a regular file, is refused: it fails closed rather than serve
with a token that may have leaked. A request's token is compared in constant time
(`hmac.compare_digest`).

The token's *identity* names it on the audit record and in approvals' ``decided_by``
(``api-token:`` and the first 12 hex digits of its SHA-256): enough to tell tokens apart,
useless for guessing one.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from nucleo_core.server.errors import ServerConfigError

__all__ = [
    "TOKEN_ENVIRONMENT_VARIABLE",
    "TOKEN_FILE_NAME",
    "ApiToken",
    "load_token",
    "token_path",
]

#: Gives the token instead of the file (a secret manager's, a deployment's).
TOKEN_ENVIRONMENT_VARIABLE: Final = "NUCLEO_API_TOKEN"
#: The token's file, in the project's ``.nucleo`` folder.
TOKEN_FILE_NAME: Final = "api-token"
#: The shortest token accepted from the environment or a file: 128 bits of urlsafe base64.
MIN_TOKEN_LENGTH: Final = 22


@dataclass(frozen=True, slots=True)
class ApiToken:
    """The token every request but the health check must bear.

    Attributes:
        origin: Where it came from: ``environment``, ``file`` (it was there), or ``generated``
            (written now, on first start).
        path: The token's file (``None`` when it came from the environment).
    """

    _value: str = field(repr=False)
    origin: Literal["environment", "file", "generated"]
    path: Path | None = None

    @property
    def identity(self) -> str:
        """How the audit record names the token: ``api-token:<12 hex digits of its hash>``."""
        digest = hashlib.sha256(self._value.encode("utf-8")).hexdigest()
        return f"api-token:{digest[:12]}"

    def matches(self, presented: str) -> bool:
        """Whether ``presented`` is the token, compared in constant time."""
        return hmac.compare_digest(presented.encode("utf-8"), self._value.encode("utf-8"))

    def reveal(self) -> str:
        """The token itself (for the operator who started the server, never for a log)."""
        return self._value


def token_path(project: Path) -> Path:
    """The token's file for the project folder ``project``."""
    return project / ".nucleo" / TOKEN_FILE_NAME


def load_token(project: Path, *, create: bool = True) -> ApiToken:
    """The API token: ``$NUCLEO_API_TOKEN``, else the project's token file.

    Args:
        project: The project folder (its ``.nucleo`` folder holds the file).
        create: Generate the file when it is missing (else a missing token is an error).

    Raises:
        ServerConfigError: The token is too short, its file can be read by others or is not a
            regular file, or it is missing and ``create`` is false.
    """
    configured = os.environ.get(TOKEN_ENVIRONMENT_VARIABLE)
    if configured is not None:
        value = configured.strip()
        if len(value) < MIN_TOKEN_LENGTH:
            raise ServerConfigError(
                f"${TOKEN_ENVIRONMENT_VARIABLE} is shorter than {MIN_TOKEN_LENGTH} characters; "
                "give a long random token, e.g. python3 -c 'import secrets; "
                "print(secrets.token_urlsafe(32))'"
            )
        return ApiToken(value, "environment")
    path = token_path(project)
    try:
        return ApiToken(_read(path), "file", path)
    except FileNotFoundError:
        if not create:
            raise ServerConfigError(
                f"no API token is configured: set ${TOKEN_ENVIRONMENT_VARIABLE}, or start "
                f"`nucleo serve` once on 127.0.0.1 to generate {path}"
            ) from None
    return ApiToken(_generate(path), "generated", path)


def _read(path: Path) -> str:
    # O_NOFOLLOW: a symbolic link planted at the token's path is refused, not followed.
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise
    except OSError as exc:  # ELOOP: a symbolic link; EACCES: not the user's to read
        raise ServerConfigError(
            f"{path} cannot be opened ({exc.strerror}): the token must be a regular file "
            "readable only by you, not a symbolic link; remove it to generate one"
        ) from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise ServerConfigError(f"{path} is not a regular file; remove it to generate one")
        if status.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ServerConfigError(
                f"{path} can be read or written by other users (mode "
                f"{stat.S_IMODE(status.st_mode):o}); the token may have leaked: remove the "
                "file to generate a new one, or chmod 600 it if you are sure it did not"
            )
        with os.fdopen(descriptor, "r", encoding="utf-8") as file:
            descriptor = -1
            value = file.read().strip()
    finally:
        if descriptor != -1:
            os.close(descriptor)
    if len(value) < MIN_TOKEN_LENGTH:
        raise ServerConfigError(
            f"{path} holds no usable token (shorter than {MIN_TOKEN_LENGTH} characters); "
            "remove it to generate one"
        )
    return value


def _generate(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(32)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(path, flags, 0o600)
    except FileExistsError:  # another server generated it a moment ago: use that one
        return _read(path)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(value + "\n")
    return value
