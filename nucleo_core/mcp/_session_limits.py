"""The time limits and bounds of an MCP server's session (free of the SDK: the pool reads them)."""

from __future__ import annotations

__all__ = [
    "BACKOFF_BASE",
    "BACKOFF_CAP",
    "CLOSE_TIMEOUT",
    "HEALTHY_AFTER",
    "MAX_PAGES",
    "PROBE_TIMEOUT",
    "WRITE_GRACE",
]

#: Backoff before the n-th restart in a row: BACKOFF_BASE * 2**(n-1), at most BACKOFF_CAP.
BACKOFF_BASE = 0.25
BACKOFF_CAP = 4.0
#: A session that stayed up this long before breaking starts its restart count afresh.
HEALTHY_AFTER = 30.0
#: How long a server that let a call time out has to answer ``tools/list`` before it counts
#: as hung (and is restarted); a server that answers only had one slow tool.
PROBE_TIMEOUT = 5.0
#: How long past its timeout a call may take in all, its request's write included (the
#: SDK's clock starts once the request is written, and then sends the server a cancel).
WRITE_GRACE = 2.0
#: At most this many ``tools/list`` pages are read (a paginator that never ends cannot hang).
MAX_PAGES = 100
#: How long closing waits for a session's task (the stdio shutdown escalates within ~9 s).
CLOSE_TIMEOUT = 15.0
