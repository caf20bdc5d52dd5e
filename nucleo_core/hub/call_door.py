"""The call door: the one check every tool call passes, which no subclass can replace.

DESIGN.md's order is available → read-only → input → permission → execute → record. This
module holds the checks, in that order, for every thinker family: `call_door` answers with the
provider to run and the input to run it with, or raises the correctable error the model reads.
The permission guard is the step after the input (marked in `call_door`). The thinker loop
passes each call to `call_door` itself, never to an overridable method, and the function calls
`ThinkerBase`'s own implementations by name, so an override of `check_call` (or of anything
else) can narrow what a thinker offers but cannot widen what may run.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, final

from nucleo_core._frozen import quick_init
from nucleo_core.errors import CorrectableError, InvalidToolInput, PermissionDenied, UnknownTool
from nucleo_core.hub._availability import PaletteHolder
from nucleo_core.hub._palette_assembly import within
from nucleo_core.tools.palette import ReadOnlyPalette

if TYPE_CHECKING:
    from nucleo_core.guard.permission import PermissionDecision
    from nucleo_core.hub._thinker_entries import ThinkerEntries
    from nucleo_core.tools.provider import ToolProvider

__all__ = [
    "CallRequest",
    "ClearedCall",
    "DoorThinker",
    "UnusableToolName",
    "available_provider",
    "call_door",
    "parsed_input",
]


class UnusableToolName(UnknownTool):
    """A call whose tool name is not a non-empty string (``null``, a number, ``""``)."""

    def __init__(self, available: Sequence[str]) -> None:
        super().__init__(available)
        names = ", ".join(self.available) if self.available else "(none)"
        # The message UnknownTool composes says "no such tool"; this call named none at all.
        self.args = (f"The tool name must be a string naming one of the available tools: {names}",)


class CallRequest(Protocol):
    """What the door reads of a call (a `nucleo_core.thinking.ToolCall` is one).

    ``provider``, ``input`` and ``error`` are what the answer's parser found when it resolved
    the call: the door reuses that parse only when it was made against the very provider the
    name resolves to now. ``input_problem`` says why the input is unusable whatever tool the
    name resolves to (it is not a JSON object, or nests too deep), or is ``None``.
    """

    @property
    def name(self) -> str:
        """The tool name the call sent ("" when it sent none)."""
        ...

    @property
    def raw_input(self) -> Mapping[str, Any] | str:
        """What the call sent as input: a decoded object, or the raw text."""
        ...

    @property
    def provider(self) -> ToolProvider | None:
        """The provider the answer's parser resolved the name to, or ``None``."""
        ...

    @property
    def input(self) -> Any:
        """The input the parser validated against ``provider``, or ``None``."""
        ...

    @property
    def error(self) -> CorrectableError | None:
        """Why the parser could not resolve or validate the call, or ``None``."""
        ...

    @property
    def input_problem(self) -> str | None:
        """Why the input is unusable for any tool, or ``None``."""
        ...


@quick_init
@dataclass(frozen=True, slots=True)
class ClearedCall:
    """A call that passed the door: the provider to run and its validated input.

    Attributes:
        provider: The provider the call runs (the one available now, under the name sent).
        input: The input parsed against that provider's published schema.
        permission: The permission guard's decision (``auto``, ``notify`` or ``confirm``: a
            ``confirm`` runs only once approved), or ``None`` when the hub has no guard.
    """

    provider: ToolProvider
    input: Any
    permission: PermissionDecision | None = None


class DoorThinker(PaletteHolder, Protocol):
    """What the call door reads of the thinker a call is for: a `ThinkerBase`'s palette state."""

    @property
    def _entries(self) -> ThinkerEntries:
        """The thinker's own implementations (whether a tool is still offered)."""


def call_door(thinker: DoorThinker, call: CallRequest) -> ClearedCall:
    """Check ``call`` now, at the call: what it may run, and with which input.

    In order: **available** — the name is in this turn's palette as the thinker itself put it
    there, inside every restriction and phase and, for a delegate, inside the surface its
    parent had at launch; and still offered at this moment (a system-wide tool withdrawn since
    the palette was built is refused, and so is a granted tool whose catalog no longer holds it,
    whose grant is then revoked on the record). **Read-only** — a read-only thinker runs only
    tools declared read-only. **Input** — parsed against the published schema of the provider
    that runs. **Permission** — the hub's permission guard, when it has one, decides from the
    tool's declared risk, the rules and the ``nucleo_permission`` hooks (`nucleo_core.guard`).
    Each step runs only when the one before passed, so a refused tool's schema is never
    reported to the model.

    Raises:
        UnknownTool: The name is not available now (the model is told the names that are).
        ReadOnlyViolation: The thinker is bound read-only and the tool is not declared so.
        InvalidToolInput: The input does not fit the tool's schema (or is not an object).
        PermissionDenied: The permission guard denied the call (its reason names the rule).
    """
    provider = available_provider(thinker, call.name, nameless=not call.name)
    value = parsed_input(provider, call)
    guard = thinker._hub.guard
    if guard is None:
        return ClearedCall(provider, value)
    arguments = value if type(value) is dict else _Arguments(value, call)
    decided = guard.decide(thinker, provider, arguments)
    if decided.denied:
        raise PermissionDenied(provider.name, decided.reason, decided_by=decided.decided_by)
    return ClearedCall(provider, value, decided)


def available_provider(
    thinker: DoorThinker, name: str | None, *, nameless: bool = False
) -> ToolProvider:
    """The door's first two steps for ``name``: the provider available now, read-only checked.

    `ThinkerBase.check_call` answers with it; `call_door` goes on to the input.

    Raises:
        UnknownTool: The name is not available now (`UnusableToolName` when ``nameless``).
        ReadOnlyViolation: The thinker is bound read-only and the tool is not declared so.
    """
    registry = thinker._registry
    ceiling = thinker._ceiling
    provider = registry.available(name) if name else None
    if (
        provider is None
        or not within(ceiling, provider)
        or not thinker._entries.offered_now(provider)
    ):
        names = [
            each.name
            for each in registry.providers()
            if registry.available(each.name) is each
            and thinker._offered.get(each.name) == each
            and within(ceiling, each)
        ]
        raise UnusableToolName(names) if nameless else UnknownTool(names)
    if thinker._read_only:
        ReadOnlyPalette.require_read_only(provider)
    return provider


def parsed_input(provider: ToolProvider, call: CallRequest) -> Any:
    """The input of ``call`` parsed against ``provider``'s schema: the door's third step.

    The parse made when the answer was read is reused when it was made against ``provider``
    itself; otherwise the raw input is parsed now. An input unusable for any tool stays refused.

    Raises:
        InvalidToolInput: The input does not fit (a provider that raises anything else is
            reported as "could not be validated", without its message).
    """
    if call.input_problem is not None:
        raise InvalidToolInput(provider.name, [call.input_problem])
    if call.provider is provider:  # parsed against this very provider when the answer came
        if call.error is None:
            return call.input
        if isinstance(call.error, InvalidToolInput):
            raise call.error
    try:
        return provider.parse_input(call.raw_input)
    except CorrectableError:
        raise
    except Exception as exc:  # a provider may break its contract; the model reads no detail
        raise InvalidToolInput(provider.name, ["input: could not be validated"]) from exc


@final
class _Arguments(Mapping[str, Any]):
    """A validated input model as the read-only mapping the permission hooks read.

    Dumped at its first read, once: a guard whose policy decides alone (no hook implemented)
    never reads it, so a call pays for no dump it does not use.
    """

    __slots__ = ("_call", "_dumped", "_value")

    def __init__(self, value: Any, call: CallRequest) -> None:
        self._value = value
        self._call = call
        self._dumped: Mapping[str, Any] | None = None

    def _mapping(self) -> Mapping[str, Any]:
        dumped = self._dumped
        if dumped is None:
            dumped = self._dumped = _arguments(self._value, self._call)
        return dumped

    def __getitem__(self, key: str) -> Any:
        return self._mapping()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._mapping())

    def __len__(self) -> int:
        return len(self._mapping())

    def __repr__(self) -> str:
        return repr(dict(self._mapping()))


def _arguments(value: Any, call: CallRequest) -> Mapping[str, Any]:
    """The validated input as the mapping the permission hooks read."""
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        dumped = dump()
        if isinstance(dumped, Mapping):
            return dumped
    return call.raw_input if isinstance(call.raw_input, Mapping) else {}
