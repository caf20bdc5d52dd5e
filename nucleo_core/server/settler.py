"""The server's background settler: API executions approved in another process run soon.

``nucleo approvals approve ID`` decides an API execution in its own process, which cannot run
the call (the server holds the tools). The server looks for such approvals every
`ServerSettings.settle_seconds` and runs each through `Executions.settle`: the call door again,
the approval bound to the exact arguments and claimed first, so it runs exactly once however
many servers share the store. A round that fails is logged and the next one tries again; the
settler never stops the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nucleo_core.server.executions import Executions

__all__ = ["settling"]

logger = logging.getLogger("nucleo.server")


@contextlib.asynccontextmanager
async def settling(executions: Executions, every: float) -> AsyncIterator[None]:
    """Settle ``executions`` approved elsewhere every ``every`` seconds while inside.

    ``every`` of ``0`` settles nothing in the background (each runs when it is next read).
    """
    if every <= 0:
        yield
        return
    task = asyncio.create_task(_settle_forever(executions, every), name="nucleo-settler")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _settle_forever(executions: Executions, every: float) -> None:
    while True:
        await asyncio.sleep(every)
        try:
            ran = await executions.settle_decided()
        except Exception:  # a store that failed this time may answer next time
            logger.exception("settling the API executions approved elsewhere failed")
            continue
        if ran:
            logger.info("ran %d API execution(s) approved elsewhere", ran)
