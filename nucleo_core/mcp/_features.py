"""What a session needs to answer a server's own requests: roots, elicitation, sampling.

Kept apart from the session (which imports the MCP SDK) so that the pool can hold it without
importing the SDK.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nucleo_core.guard.audit.log import AuditLog
    from nucleo_core.mcp.elicitation import ElicitationAnswerer
    from nucleo_core.mcp.sampling import Sampler

__all__ = ["ClientFeatures"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientFeatures:
    """The answerers a pool's sessions share.

    Attributes:
        elicitation: Answers elicitation requests; ``None`` declines every one.
        sampler: Serves the sampling requests a server's configuration allows.
        audit: Where sampling decisions are recorded, besides the ``nucleo.mcp`` logger.
    """

    elicitation: ElicitationAnswerer | None = None
    sampler: Sampler | None = None
    audit: AuditLog | None = None
