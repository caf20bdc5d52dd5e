"""A call's outcome when it did not run to its end, and the text the model reads of it.

Every way a call can fail (refused at the door, raised, timed out, cancelled, never run,
repeating an id) becomes a `CallOutcome` whose result block is an error the model reads, never
an exception. Of an exception that is not a `CorrectableError` the model reads only its type
(its message may quote the model's input or a secret); the developer reads it in the
``nucleo.tools`` log, with its traceback (`_log_failure`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from nucleo_core.errors import CorrectableError
from nucleo_core.models.messages import ToolResultBlock
from nucleo_core.thinking._execution_report import CallOutcome, CallStatus, ToolFailure

if TYPE_CHECKING:
    from nucleo_core.thinking.tool_call import ToolCall

__all__: list[str] = []

#: Where each failed call is recorded for the developer, with its traceback.
tools_logger = logging.getLogger("nucleo.tools")


def _log_failure(outcome: CallOutcome) -> None:
    """Record a failed call for the developer: what the model was told was recorded."""
    failure = ToolFailure.of(outcome)
    if failure is None:
        return
    error = failure.error
    # A tool's own correctable error and a timeout are expected ways to fail; anything else is
    # a bug for the developer to look at.
    expected = failure.status is CallStatus.TIMEOUT or isinstance(error, CorrectableError)
    tools_logger.log(
        logging.WARNING if expected else logging.ERROR,
        "tool %r (call %r) %s: %s",
        failure.tool,
        failure.call_id,
        "timed out" if failure.status is CallStatus.TIMEOUT else "failed",
        type(error).__name__,
        exc_info=(type(error), error, error.__traceback__),
        extra={"nucleo_tool": failure.tool, "nucleo_call_id": failure.call_id},
    )


def _error_block(call: ToolCall, message: str) -> ToolResultBlock:
    return ToolResultBlock(tool_use_id=call.id, content=message, is_error=True)


def _error(
    call: ToolCall,
    status: CallStatus,
    message: str,
    error: BaseException | None,
    duration: float = 0.0,
) -> CallOutcome:
    return CallOutcome(
        call=call,
        status=status,
        result=_error_block(call, message),
        error=error,
        duration=duration,
    )


def _failure(what: str, exc: BaseException) -> str:
    """The model's text for a failure: a correctable error's own message, else only its type."""
    if isinstance(exc, CorrectableError):
        return str(exc)
    return _internal(what, exc)


def _internal(what: str, exc: BaseException) -> str:
    # The exception's message is withheld: it may quote the model's input or a secret.
    return (
        f"{what}: an internal error ({type(exc).__name__}); the details were recorded for the "
        "developer."
    )


def _cancelled(name: str) -> str:
    return f"Tool '{name}' was cancelled before it finished."


def _not_run(call: ToolCall) -> CallOutcome:
    # The name is not repeated: the call may never have been checked, so it is model text.
    message = "The call was cancelled before it ran."
    return CallOutcome(call=call, status=CallStatus.CANCELLED, result=_error_block(call, message))


def _duplicate(call: ToolCall) -> CallOutcome:
    message = "This call repeats the id of an earlier call of the same turn; it was not run."
    return CallOutcome(call=call, status=CallStatus.REFUSED, result=_error_block(call, message))
