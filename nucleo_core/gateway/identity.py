"""`ClientIdentity`: who a gateway client is, as the audit record and the approvals name it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ClientIdentity"]

#: What a value taken from the client may hold on the record (it is the client's to choose).
_MAX_LENGTH = 100


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientIdentity:
    """One client of the gateway.

    Attributes:
        name: The client's name, as its ``initialize`` said (``clientInfo.name``).
        version: Its version, as its ``initialize`` said.
        token: Who holds the bearer token it sent (over HTTP), else ``None`` (stdio: the
            user who started the gateway).
        session: The connection it is served on (the HTTP session id; ``stdio``).
    """

    name: str = "unknown"
    version: str = ""
    token: str | None = None
    session: str = "stdio"

    @classmethod
    def of(
        cls, name: object, version: object, *, token: str | None = None, session: str = "stdio"
    ) -> ClientIdentity:
        """The identity a client declared, its free text cut to a bounded, printable length."""
        return cls(
            name=_printable(name) or "unknown",
            version=_printable(version),
            token=token,
            session=session,
        )

    @property
    def label(self) -> str:
        """``mcp-client NAME VERSION``: the client as the record names it."""
        return " ".join(part for part in ("mcp-client", self.name, self.version) if part)

    def chain(self) -> tuple[str, ...]:
        """Who asked from outside the process, root first: the token's holder, the client."""
        return (self.token, self.label) if self.token else (self.label,)

    def approvals_key(self, profile: str) -> str:
        """What binds an approval to this client: a retried call elsewhere does not claim it.

        The gateway's profile, the token's holder and the client's name (not its session: a
        client that reconnects keeps its approvals; not its version: an update does too).
        """
        holder = self.token or "stdio"
        return f"mcp-gateway:{profile}:{holder}:{self.name}"


def _printable(value: object) -> str:
    if not isinstance(value, str):
        return ""
    kept = "".join(ch if ch.isprintable() else "?" for ch in value.strip())
    return kept[:_MAX_LENGTH]
