"""What a tool declares about itself, and the cheap checks made when it is declared."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from nucleo_core.errors import ToolDeclarationError
from nucleo_core.tools.risk import Risk
from nucleo_core.tools.state import ConversationStates

__all__ = [
    "TOOL_NAME_PATTERN",
    "SchemaRefiner",
    "ToolDeclaration",
    "declaration_of",
    "describe_target",
    "required_declaration",
]

#: Names every major model provider accepts for a tool (Anthropic, OpenAI, Gemini, MCP clients).
TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

#: A schema refiner receives a copy of the generated input schema and returns the narrowed schema
#: (or narrows the copy in place and returns ``None``).
SchemaRefiner = Callable[[dict[str, Any]], "dict[str, Any] | None"]

_EMPTY: Mapping[str, Any] = MappingProxyType({})

#: The attribute ``@tool`` sets on the class or function it declares.
DECLARATION_ATTRIBUTE = "__nucleo_tool__"

#: The parameter a function tool declared with ``state=`` receives its state in.
STATE_PARAMETER = "state"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolDeclaration:
    """Everything ``@tool`` records about a tool.

    Attributes:
        name: The name the model calls the tool by (``^[a-zA-Z0-9_-]{1,64}$``).
        description: What the tool does, for the model; ``None`` means "the docstring".
        display_name: A human-readable name for transcripts and UIs.
        action_verb: What a UI shows while the tool runs ("Searching", "Writing").
        weight: A relative cost hint, larger is heavier; never read by admission.
        read_only: Whether the author asserts the tool changes nothing. Defaults to ``False``:
            a tool is treated as mutating unless something asserted otherwise.
        risk: The declared risk, or ``None`` when undeclared (which counts as ``HIGH``).
        refiner: Narrows the generated input schema before it is published.
        metadata: An open mapping for the host; the framework never reads it.
        guardrails: Admission guardrail factories the tool declares itself.
        state: Makes the tool's per-conversation state (see `nucleo_core.tools.state`), or
            ``None`` for a tool that keeps none.
        states: The states made by ``state``, one per conversation; ``None`` without ``state``.
            Kept with the declaration because a tool's providers may be many objects (every
            registry makes its own), and its state must be one per conversation whichever
            provider a call went through.
    """

    name: str
    description: str | None = None
    display_name: str | None = None
    action_verb: str | None = None
    weight: float = 1.0
    read_only: bool = False
    risk: Risk | None = None
    refiner: SchemaRefiner | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    guardrails: tuple[Callable[[Any], Any], ...] = ()
    state: Callable[[], Any] | None = None
    states: ConversationStates[Any] | None = field(default=None, compare=False, repr=False)

    @property
    def effective_risk(self) -> Risk:
        """The risk that policy reads: the declared one, or ``HIGH`` when none was declared."""
        return Risk.HIGH if self.risk is None else self.risk

    @property
    def effective_display_name(self) -> str:
        """The declared display name, or one derived from the tool name."""
        if self.display_name:
            return self.display_name
        return self.name.replace("_", " ").replace("-", " ").strip().capitalize() or self.name


def declaration_of(subject: object) -> ToolDeclaration | None:
    """The declaration ``@tool`` made on exactly this class or function, if any.

    A subclass of a declared tool class is not itself declared: it inherits the attribute but
    not the declaration.
    """
    if isinstance(subject, type):
        found = subject.__dict__.get(DECLARATION_ATTRIBUTE)
    else:
        found = getattr(subject, DECLARATION_ATTRIBUTE, None)
    return found if isinstance(found, ToolDeclaration) else None


def required_declaration(subject: object, decorator: str) -> ToolDeclaration:
    """The declaration ``@tool`` made on ``subject``, which a provider of it needs.

    Raises:
        ToolDeclarationError: ``subject`` is not declared; the fix is to decorate it with
            ``decorator``.
    """
    declaration = declaration_of(subject)
    if declaration is None:
        raise ToolDeclarationError(
            describe_target(subject), [f"it is not declared: decorate it with {decorator}"]
        )
    return declaration


def describe_target(subject: object) -> str:
    """A readable name of a class or function for error messages."""
    kind = "tool class" if isinstance(subject, type) else "tool function"
    module = getattr(subject, "__module__", None) or "?"
    qualname = getattr(subject, "__qualname__", None) or repr(subject)
    return f"{kind} {module}.{qualname}"


def check_common(
    *,
    name: object,
    description: object,
    display_name: object,
    action_verb: object,
    weight: object,
    read_only: object,
    risk: object,
    refiner: object,
    metadata: object,
    problems: list[str],
) -> Risk | None:
    """Check the keyword arguments every tool declares; append a line per problem.

    Returns:
        The declared risk as a `Risk`, or ``None`` when none was declared or it was invalid.
    """
    if not isinstance(name, str) or TOOL_NAME_PATTERN.fullmatch(name) is None:
        problems.append(
            "name must be 1-64 characters of letters, digits, '_' or '-' "
            "(model providers refuse any other tool name); pass name='...' to @tool"
        )
    if description is not None and (not isinstance(description, str) or not description.strip()):
        problems.append("description, when given, must be a non-empty string")
    for label, value in (("display_name", display_name), ("action_verb", action_verb)):
        if value is not None and not isinstance(value, str):
            problems.append(f"{label} must be a string")
    if (
        isinstance(weight, bool)
        or not isinstance(weight, int | float)
        or not math.isfinite(weight)
        or weight < 0
    ):
        problems.append("weight must be a finite number >= 0")
    if not isinstance(read_only, bool):
        problems.append("read_only must be True or False")
    if refiner is not None and not callable(refiner):
        problems.append("refiner must be a callable taking and returning a JSON schema dict")
    if metadata is not None and not isinstance(metadata, Mapping):
        problems.append("metadata must be a mapping")
    if risk is None:
        return None
    if isinstance(risk, Risk):
        return risk
    if isinstance(risk, str):
        try:
            return Risk(risk)
        except ValueError:
            pass
    problems.append("risk must be one of 'low', 'medium', 'high' (undeclared counts as 'high')")
    return None
