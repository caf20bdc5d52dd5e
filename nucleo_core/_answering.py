"""`answer_of`: what a callable answers, plain or ``async``, awaited.

The guard's approvers, and the MCP client's elicitation answerers and sampling handlers, are
each a callable that answers a request, as a plain function or an ``async`` one: each is
asked through this, then its answer checked by its caller.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TypeVar

__all__ = ["answer_of"]

_Q = TypeVar("_Q")


async def answer_of(ask: Callable[[_Q], object], question: _Q) -> object:
    """``ask(question)``, awaited when it answers an awaitable; what it raises, it raises."""
    answer = ask(question)
    if inspect.isawaitable(answer):
        answer = await answer
    return answer
