"""Whether a model's failure came of a timeout: an attempt's, or the exchange's deadline.

``nucleo run`` says to raise ``--timeout`` or ``--deadline`` for one; the demo tells a thinker
whose model answered too slowly as stopped, and goes on.
"""

from __future__ import annotations

__all__ = ["timed_out"]


def timed_out(error: BaseException) -> bool:
    """Whether ``error``, or an error it was raised from, is a timeout."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, TimeoutError) or "Timeout" in type(seen).__name__:
            return True
        seen = seen.__cause__
    return False
