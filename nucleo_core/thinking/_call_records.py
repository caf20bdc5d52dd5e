"""The text of a call's ``call_start`` and ``call_finish`` records, written without an event.

`CallAudit` (``nucleo_core.thinking._execution_audit``) writes every call's start and finish
from parts kept per tool (`tool_tails`) and, for an ``auto`` call, when their batch is stored
(`CallRecords`, an `AuditLog` queue entry): the same text an `AuditEvent` of the same fields
gives, which a test holds equal.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from json.encoder import encode_basestring as _text
from typing import TYPE_CHECKING, Any, Protocol

from nucleo_core.guard.audit.records import time_text
from nucleo_core.plugins.decision import Decision

if TYPE_CHECKING:
    from nucleo_core.thinking.tool_call import ToolCall
    from nucleo_core.tools.provider import ToolProvider

__all__ = [
    "Auditing",
    "CallRecords",
    "Finish",
    "head_of",
    "seconds_text",
    "start_tail",
    "tool_tails",
]

logger = logging.getLogger("nucleo.guard")

# A call's finish, for `CallRecords`: when (ns), its decision, outcome, reason and duration (ns).
Finish = tuple[int, "str | None", str, "str | None", int]
# A decision as its call records write it (keyed by the `Decision`, a str, or by its name).
_SAID_DECISION: dict[str | None, str] = {
    None: "",
    **{decision.value: f',"decision":"{decision.value}"' for decision in Decision},
}

# The tools' parts of call records (see `CallAudit._fast_tail`), by provider and rule.
_TAILS: dict[tuple[int, str | None], tuple[ToolProvider, str, str]] = {}
_MAX_TAILS = 4096


class Auditing(Protocol):
    """What the records read of the `CallAudit` that writes them."""

    _said_by: str
    _digests: dict[str, tuple[object, str]]

    def _digest(self, call: ToolCall) -> str | None: ...

    def _fast_tail(self, provider: ToolProvider, rule: str | None) -> str: ...


def tool_tails(provider: ToolProvider, rule: str | None) -> tuple[str, str]:
    """A call's records' content after ``requester``: the start's (with ``rule``), the finish's.

    ``risk``, ``rule`` and ``source`` and ``tool``, the same for every call of a tool under a
    rule: written once and kept across runs (see `CallAudit._fast_tail`).
    """
    key = (id(provider), rule)
    kept = _TAILS.get(key)
    # Kept with the provider it was written from, so that a recycled id never finds it.
    if kept is None or kept[0] is not provider:
        risk = ',"risk":' + _text(provider.risk.value) if provider.risk_declared else ""
        said_rule = "" if rule is None else ',"rule":' + _text(rule)
        what = f',"source":{_text(provider.source)},"tool":{_text(provider.name)}}}'
        if len(_TAILS) >= _MAX_TAILS:
            _TAILS.clear()  # a bound, not a policy: they are cheap to write again
        kept = _TAILS[key] = (provider, risk + said_rule + what, risk + what)
    return kept[1], kept[2]


def start_tail(
    audit: Auditing, call: ToolCall, provider: ToolProvider, decision: str | None, rule: str | None
) -> str:
    said_decision = "" if decision is None else f',"decision":"{decision}"'
    return f'","call_id":{_text(call.id)}{said_decision},"kind":"call_start"' + audit._fast_tail(
        provider, rule
    )


class CallRecords:
    """A call's ``call_start``, its ``call_finish``, or both, written when their batch is stored.

    Written from the call, its tool, the decision and the outcome, none of which changes once
    recorded: the same text an `AuditEvent` of them gives (a test holds them equal). Each
    record is written on its own, and never raises: a field of an unexpected type still
    leaves a record saying at least what it was.

    Attributes:
        at: When the call started (or, with no start, finished), in ns since the epoch.
        start: The start's decision and rule, or ``None`` for a finish alone.
        then: The finish: its time, decision, outcome, reason and duration; ``None`` until it
            is known (`AuditLog._follow`).
    """

    __slots__ = ("at", "audit", "call", "provider", "start", "then")

    def __init__(
        self,
        audit: Auditing,
        call: ToolCall,
        provider: ToolProvider,
        start: tuple[str | None, str | None] | None,
    ) -> None:
        self.at = time.time_ns()
        self.audit = audit
        self.call = call
        self.provider = provider
        self.start = start
        self.then: Finish | None = None

    def count(self) -> int:
        """How many records `write` writes: one or two."""
        return (self.start is not None) + (self.then is not None)

    def write(self, add: Any) -> None:
        """Pass the start's content, then the finish's, to ``add``."""
        audit, call, start, then = self.audit, self.call, self.start, self.then
        try:
            head = head_of(audit, call)
            called = _text(call.id)
            tails = tool_tails(self.provider, None if start is None else start[1])
        except Exception:  # a field of an unexpected type: each record says what it was
            logger.exception("the audit records of call %r could not be written in full", call.id)
            tails = None
        if start is not None:
            if tails is None:
                add(f'{{"at":"{time_text(self.at)}","kind":"call_start"}}')
            else:
                said = _SAID_DECISION[start[0]]
                add(
                    f'{head}{time_text(self.at)}","call_id":{called}{said},"kind":"call_start"'
                    f"{audit._said_by}{tails[0]}"
                )
        if then is None:
            return
        at, decision, outcome, reason, duration = then
        try:
            if tails is None:
                raise TypeError("the call's fields")
            said = _SAID_DECISION[decision]
            said_reason = "" if reason is None else ',"reason":' + _text(reason)
            add(
                f'{head}{time_text(at)}","call_id":{called}{said},"duration":{seconds_text(duration)},'
                f'"kind":"call_finish","outcome":"{outcome}"{said_reason}{audit._said_by}'
                f"{tails[1]}"
            )
        except Exception:
            if tails is not None:
                logger.exception("the audit record of a call_finish could not be written in full")
            add(f'{{"at":"{time_text(at)}","kind":"call_finish","outcome":"{outcome}"}}')


def head_of(audit: Auditing, call: ToolCall) -> str:
    """A call record's content up to its time: the arguments' digest (`CallAudit._fast_head`)."""
    arguments = call.raw_input
    if type(arguments) is not dict and not isinstance(arguments, Mapping):
        return '{"at":"'  # the text a model sent: no digest, as an event writes it
    kept = audit._digests.get(call.id)
    digest = kept[1] if kept is not None and kept[0] is arguments else audit._digest(call)
    if digest is None:  # arguments with no canonical form: recorded without their digest
        logger.warning("the arguments of call %s have no canonical JSON form", call.id)
        return '{"at":"'
    return f'{{"arguments_digest":"{digest}","at":"'


def seconds_text(nanoseconds: int) -> str:
    """``repr(nanoseconds / 1e9)``, as canonical JSON writes that float, from the whole number.

    The shortest repr of ``k / 1e9`` (for ``0 <= k < 10**15``) is the decimal ``k * 10**-9``
    itself: written here from ``k``'s digits, in repr's form (an exponent below ``1e-4``), at
    a fraction of the cost of a float's repr. A test holds the two equal.
    """
    if not nanoseconds:
        return "0.0"
    digits = str(nanoseconds)
    point = len(digits) - 9  # where the decimal point falls, counted from the first digit
    digits = digits.rstrip("0")
    if point < -3:
        rest = "." + digits[1:] if len(digits) > 1 else ""
        return f"{digits[0]}{rest}e-{1 - point:02d}"
    if point <= 0:
        return "0." + "0" * -point + digits
    if point >= len(digits):
        return digits + "0" * (point - len(digits)) + ".0"
    return digits[:point] + "." + digits[point:]
