"""Elicitation: an MCP server asking the user for input, answered by an *answerer*.

A server may ask, in the middle of a call, for a small form to be filled in (``form`` mode: a
flat JSON Schema of strings, numbers, booleans and enums) or for the user to open a URL
(``url`` mode: an OAuth flow, a payment page). nucleo declares the ``elicitation`` capability
and hands each request to the answerer given to `MCPClientPool` (or `MCPServers`) as
``elicitation=``: a callable, plain or ``async``, taking an `ElicitationRequest` and answering
an `ElicitationAnswer`.

Everything fails closed: with no answerer every request is declined (no answer means no
consent), and so is a request whose answerer raised. An accepted form answer is checked
against the schema the server sent before it is sent; one that does not fit is never sent:
the server is told ``cancel`` and the problems (field and reason, never the value) are logged
on ``nucleo.mcp``.

In a durable run with no answerer, a request is *pending* instead (`ElicitationScope`): the
server is told ``cancel``, the call ends, and the run pauses (see `CallElicitations` and
`nucleo_core.thinking._execution_durable.ElicitationScope`) with an approval of kind
``"elicitation"`` (decided with ``nucleo approvals approve ID --content JSON`` or ``reject``);
the resumed run makes the call again and answers the same request from the decision, once.

`TerminalAnswerer` asks on the terminal (``nucleo run`` and ``nucleo chat`` use it when they
run interactively); `ScriptedAnswerer` answers from a script, for tests.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import sys
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Literal, TypeAlias

if TYPE_CHECKING:
    from nucleo_core.thinking._execution_durable import ElicitationScope

__all__ = [
    "CallElicitations",
    "ElicitationAction",
    "ElicitationAnswer",
    "ElicitationAnswerer",
    "ElicitationRequest",
    "ScriptedAnswerer",
    "TerminalAnswerer",
    "answer_problems",
    "decline_every_request",
    "settle_elicitation",
]

logger = logging.getLogger("nucleo.mcp")

#: ``accept`` (the user filled in the form, or agreed to open the URL), ``decline`` (the user
#: said no) or ``cancel`` (no explicit choice was made).
ElicitationAction: TypeAlias = Literal["accept", "decline", "cancel"]
_ACTIONS = ("accept", "decline", "cancel")
#: The value types a form answer may hold (the MCP specification's).
_VALUE_TYPES = (str, int, float, bool, type(None))


@dataclass(frozen=True, slots=True, kw_only=True)
class ElicitationRequest:
    """What a server asks the user for.

    Attributes:
        server: The id of the server that asks.
        message: What the server says it needs, to show the user.
        mode: ``"form"`` (fill in ``schema``) or ``"url"`` (open ``url``).
        schema: The requested schema (``form`` mode): a flat JSON Schema object whose
            properties are strings, numbers, integers, booleans, enums or arrays of enums.
        url: The URL to open (``url`` mode).
    """

    server: str
    message: str
    mode: Literal["form", "url"] = "form"
    schema: Mapping[str, Any] = field(default_factory=dict)
    url: str | None = None


@dataclass(frozen=True, slots=True)
class ElicitationAnswer:
    """An answerer's answer: an action, and for an accepted form its content.

    Attributes:
        action: ``accept``, ``decline`` or ``cancel``.
        content: The form's values by field name (``accept`` in ``form`` mode only).
    """

    action: ElicitationAction
    content: Mapping[str, Any] | None = None

    @classmethod
    def accept(cls, content: Mapping[str, Any] | None = None) -> ElicitationAnswer:
        """Accept: with the form's values (``form`` mode), or none (consent to a URL)."""
        return cls("accept", content)

    @classmethod
    def decline(cls) -> ElicitationAnswer:
        """The user said no."""
        return cls("decline")

    @classmethod
    def cancel(cls) -> ElicitationAnswer:
        """No explicit choice was made."""
        return cls("cancel")


#: Answers one `ElicitationRequest`; may be ``async``.
ElicitationAnswerer: TypeAlias = Callable[
    [ElicitationRequest], "ElicitationAnswer | Awaitable[ElicitationAnswer]"
]


def decline_every_request(request: ElicitationRequest) -> ElicitationAnswer:
    """The default answerer: declines, and says so on the ``nucleo.mcp`` logger."""
    logger.info(
        "MCP server '%s' asked for input (elicitation, %s mode); declined: no answerer is "
        "configured (pass elicitation= to MCPServers, or run nucleo interactively)",
        request.server,
        request.mode,
    )
    return ElicitationAnswer.decline()


def answer_problems(schema: Mapping[str, Any], content: object) -> list[str]:
    """What makes ``content`` unfit as an answer to ``schema``: one line per problem.

    Each line names the field and the reason, never the value given. No problems means the
    answer may be sent.
    """
    if not isinstance(content, Mapping):
        return ["the answer must be an object of field values"]
    problems = []
    for key, value in content.items():
        if not isinstance(key, str):
            problems.append("every field name must be a string")
        elif not (
            isinstance(value, _VALUE_TYPES)
            or (isinstance(value, list) and all(isinstance(item, str) for item in value))
        ):
            problems.append(
                f"{key}: must be a string, a number, a boolean, null or a list of strings"
            )
    if problems:
        return problems
    try:
        from jsonschema import validators
        from jsonschema.exceptions import SchemaError
    except ImportError:  # pragma: no cover - jsonschema is a dependency of nucleo-core
        return ["the answer cannot be checked (jsonschema is not installed)"]
    try:
        validator_class = validators.validator_for(dict(schema))
        validator_class.check_schema(dict(schema))
    except SchemaError:
        return ["the server's requested schema is not a valid JSON Schema"]
    validator = validator_class(dict(schema))
    for error in sorted(validator.iter_errors(dict(content)), key=lambda e: list(e.path)):
        problems.append(_problem(error))
    return problems


def _problem(error: Any) -> str:
    """A validation error as ``field: reason``, from the schema's side only (never the value)."""
    where = ".".join(str(part) for part in error.path) or "the answer"
    keyword = error.validator
    expected = error.validator_value
    if keyword == "required":
        missing = [name for name in expected if name not in (error.instance or {})]
        return f"{', '.join(missing) or 'a field'}: required"
    if keyword == "additionalProperties":
        return f"{where}: holds a field the form does not ask for"
    if keyword == "type":
        return f"{where}: must be of type {expected}"
    if keyword in ("enum", "const", "oneOf", "anyOf"):
        return f"{where}: must be one of the values the form offers"
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        relation = {
            "minimum": ">=",
            "maximum": "<=",
            "exclusiveMinimum": ">",
            "exclusiveMaximum": "<",
        }[keyword]
        return f"{where}: must be {relation} {expected}"
    if keyword in ("minLength", "maxLength", "minItems", "maxItems"):
        bound = "at least" if keyword.startswith("min") else "at most"
        unit = "characters" if keyword.endswith("Length") else "items"
        return f"{where}: must hold {bound} {expected} {unit}"
    if keyword == "format":
        return f"{where}: must be a valid {expected}"
    if keyword == "pattern":
        return f"{where}: must match the pattern {expected}"
    return f"{where}: does not satisfy {keyword}"


async def settle_elicitation(
    answerer: ElicitationAnswerer | None, request: ElicitationRequest
) -> ElicitationAnswer:
    """Ask ``answerer`` (declining without one) and check its answer; never raises.

    An answerer that raises, or answers anything but an `ElicitationAnswer`, declines. An
    accepted form whose content does not fit the schema becomes ``cancel`` (nothing unchecked
    is sent), and the problems are logged; an accepted URL carries no content.
    """
    if answerer is None:
        return decline_every_request(request)
    try:
        answer: object = answerer(request)
        if inspect.isawaitable(answer):
            answer = await answer
    except Exception:
        logger.exception(
            "the elicitation answerer failed on a request of MCP server '%s'; declined",
            request.server,
        )
        return ElicitationAnswer.decline()
    if not isinstance(answer, ElicitationAnswer) or answer.action not in _ACTIONS:
        logger.error(
            "the elicitation answerer answered a %s to MCP server '%s' (an ElicitationAnswer "
            "is expected); declined",
            type(answer).__name__,
            request.server,
        )
        return ElicitationAnswer.decline()
    if answer.action != "accept":
        return ElicitationAnswer(answer.action)
    if request.mode == "url":
        return ElicitationAnswer.accept()
    problems = answer_problems(request.schema, answer.content or {})
    if problems:
        logger.warning(
            "an answer to MCP server '%s' was not sent: it does not fit the requested schema "
            "(%s); the server is told cancel",
            request.server,
            "; ".join(problems),
        )
        return ElicitationAnswer.cancel()
    return ElicitationAnswer.accept(dict(answer.content or {}))


class ScriptedAnswerer:
    """An answerer that answers from a script and records every request, for tests.

    Give it answers (consumed in order) or one function of the request. Once the script is
    used up, every further request is declined.

    Attributes:
        requests: Every request received, in order.
    """

    def __init__(
        self,
        script: Iterable[ElicitationAnswer]
        | Callable[[ElicitationRequest], ElicitationAnswer] = (),
    ) -> None:
        self.requests: list[ElicitationRequest] = []
        self._function = script if callable(script) else None
        self._queue: deque[ElicitationAnswer] = deque(() if callable(script) else script)

    def push(self, *answers: ElicitationAnswer) -> None:
        """Append answers to the script."""
        self._queue.extend(answers)

    def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        """The next scripted answer (a decline once the script is used up)."""
        self.requests.append(request)
        if self._function is not None:
            return self._function(request)
        return self._queue.popleft() if self._queue else ElicitationAnswer.decline()


class TerminalAnswerer:
    """An answerer that asks on the terminal: the server's message, then one field at a time.

    Prompts go to ``output`` (stderr by default, so stdout stays the answers) and lines are
    read from ``input`` (stdin), in a worker thread, so the event loop runs on meanwhile. An
    empty first answer declines; a field's value that does not fit its schema is asked again
    (at most three times, then the request is cancelled). Requests are asked one at a time.
    """

    def __init__(self, input: IO[str] | None = None, output: IO[str] | None = None) -> None:
        self._input = input
        self._output = output
        # A thread lock, taken in the worker thread: sessions may live on different loops.
        self._lock = threading.Lock()

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        """Ask the user, on the terminal."""
        return await asyncio.to_thread(self._ask_alone, request)

    def _ask_alone(self, request: ElicitationRequest) -> ElicitationAnswer:
        with self._lock:
            return self._ask(request)

    def _say(self, text: str) -> None:
        output = self._output or sys.stderr
        output.write(text)
        output.flush()

    def _read(self, prompt: str) -> str | None:
        self._say(prompt)
        line = (self._input or sys.stdin).readline()
        return None if not line else line.rstrip("\n")

    def _ask(self, request: ElicitationRequest) -> ElicitationAnswer:
        self._say(f"\nMCP server '{request.server}' asks: {request.message}\n")
        if request.mode == "url":
            self._say(f"  It asks you to open: {request.url}\n")
            agreed = self._read("  Open it? [y/N] ")
            if agreed is None:
                return ElicitationAnswer.cancel()
            return (
                ElicitationAnswer.accept()
                if agreed.strip().lower() in ("y", "yes")
                else ElicitationAnswer.decline()
            )
        go = self._read("  Answer it? [y/N] ")
        if go is None:
            return ElicitationAnswer.cancel()
        if go.strip().lower() not in ("y", "yes"):
            return ElicitationAnswer.decline()
        properties = request.schema.get("properties", {})
        required = set(request.schema.get("required", ()))
        content: dict[str, Any] = {}
        for name, spec in properties.items() if isinstance(properties, Mapping) else ():
            spec = spec if isinstance(spec, Mapping) else {}
            value = self._field(name, spec, name in required)
            if value is _CANCEL:
                return ElicitationAnswer.cancel()
            if value is not _SKIP:
                content[name] = value
        return ElicitationAnswer.accept(content)

    def _field(self, name: str, spec: Mapping[str, Any], required: bool) -> Any:
        title = spec.get("title") or name
        hint = spec.get("description")
        kind = spec.get("type", "string")
        choices = spec.get("enum")
        shown = f"  {title}" + (f" ({hint})" if hint else "")
        if isinstance(choices, list):
            shown += f" [{' / '.join(map(str, choices))}]"
        elif kind == "boolean":
            shown += " [y/n]"
        shown += "" if required else " (optional, Enter skips)"
        for _ in range(3):
            line = self._read(shown + ": ")
            if line is None:
                return _CANCEL
            if not line and not required:
                return _SKIP
            value = _parsed(line, kind)
            if value is not _INVALID and not answer_problems(
                {"type": "object", "properties": {name: spec}}, {name: value}
            ):
                return value
            self._say(f"  That does not fit: {name} must be of type {kind}")
            self._say(" (one of the values offered)\n" if isinstance(choices, list) else "\n")
        return _CANCEL


_CANCEL = object()
_SKIP = object()
_INVALID = object()


def _parsed(line: str, kind: object) -> Any:
    text = line.strip()
    if kind == "boolean":
        lowered = text.lower()
        if lowered in ("y", "yes", "true"):
            return True
        if lowered in ("n", "no", "false"):
            return False
        return _INVALID
    if kind in ("integer", "number"):
        try:
            return int(text) if kind == "integer" else float(text)
        except ValueError:
            return _INVALID
    if kind == "array":
        return [item.strip() for item in text.split(",") if item.strip()]
    return line


# -- durable runs: an elicitation nobody answers inline is pending -----------------------------


def _asked(server: str, tool: str, request: ElicitationRequest) -> dict[str, Any]:
    """What an elicitation approval keeps of a request (and what a resumed call matches)."""
    asked: dict[str, Any] = {
        "server": server,
        "tool": tool,
        "message": request.message,
        "mode": request.mode,
    }
    if request.mode == "url":
        asked["url"] = request.url
    else:
        asked["schema"] = dict(request.schema)
    return asked


@dataclass(slots=True, eq=False)
class CallElicitations:
    """One MCP call's elicitations in a durable run (taken where the call starts).

    Attributes:
        server: The server called.
        tool: The tool's name on the server.
        scope: The turn's scope.
        pending: What the server asked that nobody could answer inline: the call pauses.
    """

    server: str
    tool: str
    scope: ElicitationScope
    pending: dict[str, Any] | None = None

    @classmethod
    def now(cls, server: str, tool: str) -> CallElicitations | None:
        """The current turn's, for a call of ``tool`` on ``server``; ``None`` outside one."""
        from nucleo_core.thinking._execution_durable import current_elicitation_scope

        scope = current_elicitation_scope()
        return None if scope is None else cls(server, tool, scope)

    def decided_answer(self, request: ElicitationRequest) -> ElicitationAnswer | None:
        """The answer a resumed turn's decision gives ``request`` (once), else ``None``."""
        record = self.scope.decision_for(_asked(self.server, self.tool, request))
        if record is not None:
            logger.info(
                "MCP server '%s' asked for input again; answered from its decided approval %s",
                self.server,
                record.id,
            )
            if record.status not in ("approved", "consumed"):
                return ElicitationAnswer.decline()
            if request.mode == "url":
                return ElicitationAnswer.accept()
            return ElicitationAnswer.accept(dict(record.content or {}))
        return None

    def answer(self, request: ElicitationRequest) -> ElicitationAnswer:
        """Answer from a decision, else keep it pending (``cancel``), else decline."""
        decided = self.decided_answer(request)
        if decided is not None:
            return decided
        if self.scope.pausable:
            if self.pending is None:  # the first one pauses the run; a later one is asked anew
                self.pending = _asked(self.server, self.tool, request)
            logger.info(
                "MCP server '%s' asked for input with nobody to answer it now: it is told "
                "cancel, and the run pauses with the request pending",
                self.server,
            )
            return ElicitationAnswer.cancel()
        return decline_every_request(request)
