"""What the pin store says of tools: a `Pin`, a `Quarantine`, and a listing's `PinCheck`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias

from nucleo_core.mcp._pin_definition import changed_fields, definition_diff, printable

__all__ = ["NEW_TOOLS", "NewTools", "Pin", "PinCheck", "Quarantine", "QuarantineReason"]

#: What happens to a tool that appears on a server that already has pins.
NewTools: TypeAlias = Literal["allow", "quarantine"]
NEW_TOOLS: Final[tuple[NewTools, ...]] = ("allow", "quarantine")

#: Why a tool is withheld: its definition ``changed`` since it was pinned; it is ``new`` on a
#: server configured ``new_tools = "quarantine"``; or the store could not be read, so its
#: definition is ``unverified``.
QuarantineReason: TypeAlias = Literal["changed", "new", "unverified"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Pin:
    """One tool's pinned definition.

    Attributes:
        server: The server's id.
        tool: The tool's name on the server (without any prefix).
        digest: ``sha256:<hex>`` of the definition's canonical JSON.
        definition: The pinned definition (`tool_definition`).
        pinned_at: When it was pinned or accepted (ISO 8601, UTC).
    """

    server: str
    tool: str
    digest: str
    definition: Mapping[str, Any]
    pinned_at: str

    def to_json(self) -> dict[str, Any]:
        """The pin as a JSON object."""
        return {
            "server": self.server,
            "tool": self.tool,
            "digest": self.digest,
            "pinned_at": self.pinned_at,
            "definition": dict(self.definition),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Quarantine:
    """A tool withheld from every catalog, why, and what changed.

    Attributes:
        server: The server's id.
        tool: The tool's name on the server (without any prefix).
        reason: See `QuarantineReason`.
        digest: The digest of the definition published now.
        definition: The definition published now.
        pinned: The pinned definition (``None`` for a new or unverified tool).
        pinned_digest: Its digest.
        seen_at: When this definition was first seen (ISO 8601, UTC).
        diff: `definition_diff` of the pinned and the published definitions (for a new tool,
            all of it; for an unverified one, ``""``).
        store: The pin store's file.
    """

    server: str
    tool: str
    reason: QuarantineReason
    digest: str
    definition: Mapping[str, Any]
    pinned: Mapping[str, Any] | None
    pinned_digest: str | None
    seen_at: str
    store: Path
    diff: str = field(init=False)

    def __post_init__(self) -> None:
        diff = "" if self.reason == "unverified" else definition_diff(self.pinned, self.definition)
        object.__setattr__(self, "diff", diff)

    @property
    def fields(self) -> tuple[str, ...]:
        """The pinned fields that differ (every field present, for a new tool)."""
        return changed_fields(self.pinned, self.definition)

    @property
    def accept_command(self) -> str:
        """The command that accepts the published definition (once reviewed)."""
        import shlex

        return shlex.join(["nucleo", "mcp", "pins", "accept", self.server, printable(self.tool)])

    def summary(self) -> str:
        """Why the tool is withheld, and how to release it, in one line."""
        # The tool's name is the server's choice: printed escaped, as its definition is.
        where = f"MCP server '{self.server}': tool '{printable(self.tool)}' is quarantined"
        if self.reason == "unverified":
            return (
                f"{where}: the pin store {self.store} cannot be read, so its definition cannot "
                "be checked (see the store's error for the fix)"
            )
        if self.reason == "new":
            what = 'it is new since the server\'s tools were pinned (new_tools = "quarantine")'
        else:
            what = f"its definition changed since it was pinned ({', '.join(self.fields)})"
        return (
            f"{where}: {what}; it is withheld from every catalog until accepted. Review the "
            f"change with `nucleo mcp pins`, then accept it with `{self.accept_command}`"
        )

    def to_json(self) -> dict[str, Any]:
        """The quarantine as a JSON object."""
        return {
            "server": self.server,
            "tool": self.tool,
            "reason": self.reason,
            "fields": list(self.fields) if self.reason != "unverified" else [],
            "digest": self.digest,
            "pinned_digest": self.pinned_digest,
            "seen_at": self.seen_at,
            "diff": self.diff,
            "store": str(self.store),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class PinCheck:
    """What checking one listing against the pins gave.

    Attributes:
        allowed: The descriptors that may be offered, in listing order: pinned and unchanged,
            newly pinned, or without a usable name (left for the caller to report).
        quarantined: The tools withheld.
        new: Tools pinned now on a server that had pins already (reported, and allowed).
        first: The server was never seen before: every tool it lists was pinned now.
    """

    allowed: tuple[Mapping[str, Any], ...]
    quarantined: tuple[Quarantine, ...] = ()
    new: tuple[str, ...] = ()
    first: bool = False
