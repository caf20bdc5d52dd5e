"""`BearerToken`: the secret an HTTP client of the gateway must send, and how it is checked.

The token is ``$NUCLEO_API_TOKEN`` when set; otherwise it is generated on first start into
``.nucleo/gateway-token`` (created readable by the user only, ``0600``) and read from there
afterwards. A request carries it as ``Authorization: Bearer <token>``; it is compared in
constant time, and never logged nor put on the record: the record names the token by where
it came from and a short fingerprint of its digest.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

from nucleo_core.gateway.errors import GatewayError

__all__ = ["TOKEN_ENVIRONMENT_VARIABLE", "TOKEN_FILE", "BearerToken"]

#: The environment variable that gives the token.
TOKEN_ENVIRONMENT_VARIABLE = "NUCLEO_API_TOKEN"
#: Where a generated token is kept, relative to the project folder.
TOKEN_FILE = Path(".nucleo") / "gateway-token"

#: The shortest token accepted: shorter ones are guessable.
_MIN_LENGTH = 16


@dataclass(frozen=True, slots=True)
class BearerToken:
    """The gateway's bearer token.

    Attributes:
        origin: Where it came from (``$NUCLEO_API_TOKEN``, or the file), for messages.
    """

    _secret: bytes = field(repr=False)
    origin: str

    @classmethod
    def load(cls, folder: str | os.PathLike[str] | None = None) -> BearerToken:
        """``$NUCLEO_API_TOKEN``, else the token kept under ``folder`` (made on first start).

        Raises:
            GatewayError: The variable holds a token too short to be safe, or the file cannot
                be made, or is readable by others than its owner (the message says how to fix).
        """
        configured = os.environ.get(TOKEN_ENVIRONMENT_VARIABLE)
        if configured is not None:
            if len(configured.strip()) < _MIN_LENGTH:
                raise GatewayError(
                    f"${TOKEN_ENVIRONMENT_VARIABLE} must hold at least {_MIN_LENGTH} characters "
                    "(make one: python -c 'import secrets; print(secrets.token_urlsafe())')"
                )
            return cls(configured.strip().encode(), f"${TOKEN_ENVIRONMENT_VARIABLE}")
        path = Path(folder if folder is not None else Path.cwd()) / TOKEN_FILE
        return cls(_kept_secret(path), str(path))

    @classmethod
    def of(cls, secret: str, origin: str = "code") -> BearerToken:
        """A token given in code (tests, embedding)."""
        if len(secret) < _MIN_LENGTH:
            raise GatewayError(f"a bearer token must hold at least {_MIN_LENGTH} characters")
        return cls(secret.encode(), origin)

    @property
    def secret(self) -> str:
        """The token itself (what a client is configured with)."""
        return self._secret.decode()

    @property
    def identity(self) -> str:
        """Who holds the token, for the record: where it came from and its fingerprint."""
        fingerprint = hashlib.sha256(self._secret).hexdigest()[:12]
        return f"token {self.origin} sha256:{fingerprint}"

    def admits(self, authorization: str | None) -> bool:
        """Whether an ``Authorization`` header carries this token (constant-time compare)."""
        if authorization is None:
            return False
        scheme, _, sent = authorization.partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(sent.strip().encode(), self._secret)


def _kept_secret(path: Path) -> bytes:
    """The token in ``path``, generated there (``0600``) when there is none yet."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    except OSError as exc:
        raise GatewayError(f"the gateway's token cannot be kept at {path}: {exc}") from exc
    else:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(secrets.token_urlsafe(32) + "\n")
    try:
        mode = path.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise GatewayError(
                f"{path} is readable by others than its owner; run: chmod 600 {path}"
            )
        secret = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise GatewayError(f"the gateway's token cannot be read from {path}: {exc}") from exc
    if len(secret) < _MIN_LENGTH:
        raise GatewayError(
            f"{path} holds a token shorter than {_MIN_LENGTH} characters; delete the file "
            "to have a new one generated"
        )
    return secret.encode()
