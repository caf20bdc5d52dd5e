"""Phase 1 of a turn, one call: settled by a stored state, or checked by the door and created.

A resumed call that ran before the pause keeps its result; one whose approval was rejected,
expired or consumed is refused before the door. Any other call passes the call door (the
``check``), and its tool is created for the parent and bound to the conversation and the
registry when it asks for them; whether it must run alone is decided here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from nucleo_core.errors import CorrectableError, InvalidToolInput, PermissionDenied
from nucleo_core.thinking._execution_durable import ResumesDelegation, settled_refusal
from nucleo_core.thinking._execution_outcome import _error, _failure, _internal
from nucleo_core.thinking._execution_report import CallOutcome, CallStatus
from nucleo_core.thinking._execution_turn import _Ready, _Turn
from nucleo_core.tools.awareness import ConversationAware, RegistryAware

if TYPE_CHECKING:
    from nucleo_core.thinking.tool_call import ToolCall

__all__: list[str] = []

#: Whether a tool class mixes in `ConversationAware` and `RegistryAware`: asked at every call,
#: answered once per class (an ABC's isinstance walks its registry each time).
_AWARENESS: dict[type[Any], tuple[bool, bool]] = {}


def _awareness(cls: type[Any]) -> tuple[bool, bool]:
    known = _AWARENESS.get(cls)
    if known is None:
        # A class registered on either ABC later would be missed; `ABC.register` of a tool
        # class is not how awareness is declared (the docs say: mix it in).
        known = _AWARENESS[cls] = (
            issubclass(cls, ConversationAware),
            issubclass(cls, RegistryAware),
        )
    return known


class _Submission(_Turn):
    """Submitting one call of the turn (see the module)."""

    def _settle(self, index: int, call: ToolCall) -> bool:
        """Answer a resumed call its stored state settles without running; ``True`` if so.

        A call that ran before the pause keeps its result (its records were written then); a
        rejected, expired or already consumed approval refuses its call before the door, so
        a changed policy can never run what a person rejected.
        """
        durable = self._durable
        if durable is None:
            return False
        kept = durable.answered.get(call.id)
        if kept is not None:
            status = CallStatus.FAILED if kept.is_error else CallStatus.OK
            self._outcomes[index] = CallOutcome(call=call, status=status, result=kept)
            self._emit("finished", call, self._outcomes[index])
            return True
        record = durable.decided.get(call.id)
        if record is None:
            return False
        refusal = settled_refusal(record)
        if refusal is None:
            return False
        if self._audit is not None:
            self._audit.approval_resolved(call, record)
        denied = PermissionDenied(record.tool, refusal, decided_by="approval")
        outcome = _error(call, CallStatus.REFUSED, refusal, denied)
        if self._audit is not None:
            self._audit.settled(outcome, record)
        if self._observer is not None:  # refused before the door: its trace starts and ends here
            trace = self._observer.tool_call(call, self._parent)
            trace.approval_resolved(record)
            trace.finished(outcome, None, None)
        self._outcomes[index] = outcome
        self._emit("finished", call, outcome)
        return True

    def _prepare(self, call: ToolCall, index: int) -> _Ready | CallOutcome:
        """Check one call at its submission and create its tool, or say why it cannot run."""
        try:
            cleared = self._check(call)
        except InvalidToolInput as exc:
            return _error(call, CallStatus.INVALID, str(exc), exc)
        except PermissionDenied as exc:
            if self._audit is not None:
                self._audit.denied(call, call.provider, exc.decided_by, str(exc))
            return _error(call, CallStatus.REFUSED, str(exc), exc)
        except CorrectableError as exc:
            return _error(call, CallStatus.REFUSED, str(exc), exc)
        except Exception as exc:
            self._internal.add(index)
            return _error(
                call, CallStatus.FAILED, _internal("The call could not be checked", exc), exc
            )
        provider, value = cleared.provider, cleared.input
        if self._audit is not None and cleared.permission is not None:
            self._audit.permission(call, provider, cleared.permission)
        try:
            tool = provider.create(self._parent)
            conversation_aware, registry_aware = _awareness(type(tool))
            if conversation_aware and self._conversation is not None:
                cast("ConversationAware", tool).bind_conversation(self._conversation)
            if registry_aware and self._registry is not None:
                cast("RegistryAware", tool).bind_registry(self._registry)
            resumed = self._durable.delegations.get(call.id) if self._durable else None
            if resumed is not None:  # a paused sub-thinker's run: continued, never restarted
                if not isinstance(tool, ResumesDelegation):
                    raise TypeError(f"{type(tool).__name__} cannot continue a sub-thinker's run")
                tool.resume_from(resumed)
        except Exception as exc:
            self._internal.add(index)
            message = _failure(f"Tool '{provider.name}' could not be started", exc)
            return _error(call, CallStatus.FAILED, message, exc)
        # As `runs_alone` answers, from the class's awareness looked up once.
        alone = conversation_aware or registry_aware or provider.sequential
        ready = _Ready(provider, tool, value, alone, cleared.permission)
        self._cleared[index] = ready
        return ready
