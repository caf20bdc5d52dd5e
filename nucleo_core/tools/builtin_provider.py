"""`BuiltinToolProvider`: what nucleo's own per-turn tools share.

The meta-tools (``request_tools``, ``request_skill``, ``search_tools``), ``read_skill_file``
and the artifact tools are built by the framework, often afresh for every turn they are
offered in. They declare their risk low (what they grant or read is decided elsewhere: by
admission, by the attached skills, by the conversation's own store), are one registry entry
per class, so a provider registered again each turn replaces the last one, and check a call's
input against the schema they publish, with the door's model-safe errors (`SchemaInput`).
"""

from __future__ import annotations

from typing import Any

from nucleo_core.tools.provider import RawInput, ToolProvider
from nucleo_core.tools.risk import Risk
from nucleo_core.tools.schema_input import SchemaInput

__all__ = ["BuiltinToolProvider"]


class BuiltinToolProvider(ToolProvider):
    """A provider of one of nucleo's own tools: declared low risk, one registry entry a class.

    Two instances of one class are equal (and hash alike), so per-turn re-registration
    replaces rather than duplicates; a subclass bound to something (a store) says otherwise.
    `checked_input` validates a call against the provider's `input_schema`.
    """

    __slots__ = ("_checker",)

    def __init__(self) -> None:
        self._checker: SchemaInput | None = None

    @property
    def risk(self) -> Risk:
        """Declared ``low``: what the tool grants or reads is decided elsewhere, not by the call."""
        return Risk.LOW

    @property
    def risk_declared(self) -> bool:
        """The risk is declared."""
        return True

    def checked_input(self, raw: RawInput) -> dict[str, Any]:
        """The call's arguments, checked against the provider's `input_schema`.

        The checker is built at the first call and kept, so the schema must not change after.

        Raises:
            InvalidToolInput: ``raw`` is not JSON or does not fit; the message names field
                paths and declared types, never the value sent.
        """
        checker = self._checker
        if checker is None:
            checker = self._checker = SchemaInput(self.name, self.input_schema)
        return checker.parse(raw)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))
