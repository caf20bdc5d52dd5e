"""Two answerers of elicitations: `ScriptedAnswerer` (tests) and `TerminalAnswerer` (a user)."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import IO, Any

from nucleo_core.guard.elicitation_answer import answer_problems
from nucleo_core.mcp._elicitation_values import ElicitationAnswer, ElicitationRequest

__all__ = ["ScriptedAnswerer", "TerminalAnswerer"]


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
