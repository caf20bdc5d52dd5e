"""The tail of a server's stderr, bounded however much the server wrote.

The server writes its stderr to a file (the child writes to the descriptor); what nucleo
reports of it, on `MCPServerUnavailable`, in a session's status and in the warning logged
when a server is given up on, is its end: at most STDERR_LINES lines and STDERR_BYTES bytes,
read from the end of the file, never the whole of it.
"""

from __future__ import annotations

import os
from typing import IO

__all__ = ["CUT", "STDERR_BYTES", "STDERR_LINES", "STDERR_LINE_BYTES", "tail"]

#: A server's stderr tail, as reported: at most this many lines...
STDERR_LINES = 40
#: ...of at most this many bytes in all (UTF-8)...
STDERR_BYTES = 8192
#: ...each line at most this long, an over-long one cut and marked with CUT.
STDERR_LINE_BYTES = 1024
CUT = "[…]"
#: How much of the end of its stderr file is read for the tail (never the whole file).
STDERR_WINDOW = 64 * 1024


def tail(errlog: IO[bytes]) -> str:
    """The end of a server's stderr, bounded: STDERR_LINES lines, STDERR_BYTES bytes in all.

    Only the last STDERR_WINDOW bytes of the file are read (a server may write gigabytes). A
    line longer than STDERR_LINE_BYTES keeps its start and ends in CUT; a line that began
    before the window starts with CUT.
    """
    try:
        size = errlog.seek(0, os.SEEK_END)
        # One byte before the window too: whether its first line starts there.
        start = max(0, size - STDERR_WINDOW - 1)
        errlog.seek(start)
        window = errlog.read(STDERR_WINDOW + 1)
    except (OSError, ValueError):
        return ""
    whole = start == 0 or window[:1] in (b"\n", b"\r")
    lines = window[0 if start == 0 else 1 :].decode("utf-8", errors="replace").splitlines()
    if not whole and lines:
        lines[0] = f"{CUT} {lines[0]}"  # its start lies before the window
    kept: list[str] = []
    budget = STDERR_BYTES
    for line in reversed(lines[-STDERR_LINES:]):
        line = _cut(line, STDERR_LINE_BYTES)
        budget -= len(line.encode()) + (1 if kept else 0)  # its newline
        if budget < 0:
            break
        kept.append(line)
    return "\n".join(reversed(kept))


def _cut(line: str, limit: int) -> str:
    """``line`` if it fits in ``limit`` bytes, else its start and CUT within them."""
    encoded = line.encode()
    if len(encoded) <= limit:
        return line
    room = limit - len(CUT.encode()) - 1
    return encoded[:room].decode(errors="ignore") + " " + CUT
