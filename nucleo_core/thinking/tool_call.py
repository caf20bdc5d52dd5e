"""`ToolCall`: one tool use of a model's answer, resolved against the palette or not."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nucleo_core._frozen import quick_init
from nucleo_core.errors import InvalidToolInput

if TYPE_CHECKING:
    from nucleo_core.errors import CorrectableError
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["ToolCall"]


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """One tool use, kept whether or not it could be resolved, so no id is ever orphaned.

    Attributes:
        id: The tool-use id its result must answer to (minted for calls parsed from text).
        name: The name the model sent ("" when it sent none).
        raw_input: What the model sent as input: a decoded object, or the raw text.
        input: The validated input (the tool's input model), or ``None`` when unresolved.
        provider: The provider the name resolved to, or ``None``.
        error: Why the call cannot run (unknown name, invalid input), for the model to read.
        input_problem: Why the input is unusable whatever tool the name resolves to (it is
            not a JSON object, or nests too deep), or ``None``; the call door reads it.
        minted_id: Whether ``id`` was minted here because the call came from text.
    """

    id: str
    name: str
    raw_input: Mapping[str, Any] | str
    input: Any = None
    provider: ToolProvider | None = None
    error: CorrectableError | None = None
    input_problem: str | None = None
    minted_id: bool = False

    @property
    def ok(self) -> bool:
        """Whether the call resolved to an available tool with valid input."""
        return self.error is None

    @classmethod
    def parsed(
        cls,
        *,
        id: str,
        name: str,
        raw_input: Mapping[str, Any] | str,
        provider: ToolProvider,
        minted_id: bool = False,
    ) -> ToolCall:
        """A call of ``provider`` with its input parsed, or with the error it keeps if not.

        ``provider.parse_input`` raises `InvalidToolInput` for input that does not fit; a
        provider that breaks that contract (raises anything else) gives a generic invalid
        input instead: the call is still kept, and answered.
        """
        try:
            parsed = provider.parse_input(raw_input)
        except Exception as exc:  # a provider may break its contract; the call is still kept
            if not isinstance(exc, InvalidToolInput):
                exc = InvalidToolInput(provider.name, ["input: could not be validated"])
            return cls(
                id=id,
                name=name,
                raw_input=raw_input,
                provider=provider,
                error=exc,
                minted_id=minted_id,
            )
        return cls(
            id=id,
            name=name,
            raw_input=raw_input,
            input=parsed,
            provider=provider,
            minted_id=minted_id,
        )
