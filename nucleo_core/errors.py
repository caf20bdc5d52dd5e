"""The one error hierarchy of nucleo.

Errors are kept apart by who has to act on them::

    NucleoError
    ├── CorrectableError            meant for the model: names the field, type, allowed names or
    │   │                           reason, and never echoes what the model sent
    │   ├── InvalidToolInput        a tool call's input does not fit the published schema
    │   ├── UnknownTool             a call named a tool the registry cannot reach
    │   └── ReadOnlyViolation       a read-only palette was asked to run a mutating tool
    └── MisuseError                 meant for the developer: a mistake in code or configuration
        ├── ToolDeclarationError    a tool is misdeclared (every problem listed at once)
        ├── SchemaRefinementError   a schema refiner failed; the unrefined schema is not published
        └── ToolCollisionError      two different kinds of provider claim one tool name

A correctable error's ``str()`` is what the model reads. Anything that could quote the model's own
input (a JSON decoder's complaint, pydantic's or jsonschema's message) survives only as
``__cause__``, where only a stack trace shows it.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "CorrectableError",
    "InvalidToolInput",
    "MisuseError",
    "NucleoError",
    "ReadOnlyViolation",
    "SchemaRefinementError",
    "ToolCollisionError",
    "ToolDeclarationError",
    "UnknownTool",
]


class NucleoError(Exception):
    """Base class of every error nucleo raises on purpose."""


class CorrectableError(NucleoError):
    """An error whose message is written for the model, so that it can correct its next call."""


class InvalidToolInput(CorrectableError):
    """A tool call's input does not fit the tool's published input schema.

    Attributes:
        tool: The name of the tool whose input was refused.
        problems: One line per problem, each naming a field path and the declared type or
            constraint; never the value that was sent.
    """

    def __init__(self, tool: str, problems: Sequence[str]) -> None:
        self.tool = tool
        self.problems = tuple(problems)
        listed = "; ".join(self.problems)
        super().__init__(f"Invalid input for tool '{tool}': {listed}")


class UnknownTool(CorrectableError):
    """A call named a tool that is not registered (or not reachable right now).

    The requested name is deliberately not repeated: it is the model's own text.

    Attributes:
        available: The names a call may reach, in the registry's order.
    """

    def __init__(self, available: Sequence[str]) -> None:
        self.available = tuple(available)
        names = ", ".join(self.available) if self.available else "(none)"
        super().__init__(f"No such tool is available. Available tools: {names}")


class ReadOnlyViolation(CorrectableError):
    """A thinker bound to a read-only palette was asked to run a tool not declared read-only.

    Attributes:
        tool: The name of the refused tool.
    """

    def __init__(self, tool: str) -> None:
        self.tool = tool
        super().__init__(
            f"Tool '{tool}' is not declared read-only and this palette is bound read-only; "
            "choose a read-only tool instead"
        )


class MisuseError(NucleoError):
    """A mistake in the developer's code or configuration."""


class ToolDeclarationError(MisuseError, TypeError):
    """A tool is misdeclared. Lists every problem found, not just the first.

    Attributes:
        target: A readable name of the misdeclared class or function.
        problems: One line per problem, each saying what is wrong and how to fix it.
    """

    def __init__(self, target: str, problems: Sequence[str]) -> None:
        self.target = target
        self.problems = tuple(problems)
        listed = "\n".join(f"  - {problem}" for problem in self.problems)
        super().__init__(f"{target} is not a valid tool declaration:\n{listed}")


class SchemaRefinementError(MisuseError):
    """A tool's declared schema refiner failed, so its schema is not published at all.

    Publishing the unrefined schema would offer the model exactly what the refiner exists to
    narrow away.
    """


class ToolCollisionError(MisuseError):
    """A registration under an existing name by a different kind of provider.

    Attributes:
        name: The contested tool name.
    """

    def __init__(self, name: str, existing: str, incoming: str) -> None:
        self.name = name
        super().__init__(
            f"Tool name '{name}' is already registered by a {existing}; a {incoming} cannot "
            "take it. Rename one of the tools, or register with shadow=True to replace the "
            "existing tool deliberately (the replacement is recorded in registry.shadowed)."
        )
