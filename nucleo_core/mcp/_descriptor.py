"""Reading a tool descriptor of ``tools/list``: its JSON Schemas, and what it is declared to be."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nucleo_core.tools.risk import Risk

if TYPE_CHECKING:
    from nucleo_core.mcp.config import MCPServerConfig

__all__ = ["declared_safety", "schema_problems"]


def declared_safety(
    config: MCPServerConfig, tool: str, annotations: Mapping[str, Any]
) -> tuple[bool, Risk | None]:
    """Whether ``tool`` is read-only, and its declared risk (``None``: undeclared).

    From the configuration: a setting for this very tool wins; the server's ``readOnlyHint``
    and ``destructiveHint`` count only where the configuration trusts its annotations; else
    the server's declared risk.
    """
    settings = config.tools.get(tool)
    if settings is not None and settings.read_only is not None:
        read_only = settings.read_only
    elif config.trust_annotations:
        # destructiveHint only means something for a tool that is not read-only, so a
        # tool hinted both read-only and destructive contradicts itself: not read-only.
        read_only = (
            annotations.get("readOnlyHint") is True
            and annotations.get("destructiveHint") is not True
        )
    else:
        read_only = False
    risk: Risk | None
    if settings is not None and settings.risk is not None:
        risk = settings.risk  # declared for this very tool: it wins over any hint
    elif config.trust_annotations and annotations.get("destructiveHint") is True:
        # A trusted server says the tool destroys: that is high, whatever the server-wide
        # risk says (a per-tool risk is the way to say otherwise).
        risk = Risk.HIGH
    else:
        risk = config.risk
    return read_only, risk


def schema_problems(label: str, schema: Mapping[str, Any]) -> list[str]:
    """Why ``schema`` (the descriptor's ``label``) is not a valid JSON Schema; none if it is."""
    from jsonschema.exceptions import SchemaError

    try:
        _validator_class(schema).check_schema(schema)
    except SchemaError as exc:
        at = "/".join(str(part) for part in exc.path) or "(root)"
        return [f"its {label} is not a valid JSON Schema (at {at}: {exc.message})"]
    return []


def _validator_class(schema: Mapping[str, Any]) -> Any:
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for

    # MCP schemas are Draft 2020-12 unless they name another dialect with `$schema`.
    return validator_for(schema, default=Draft202012Validator)
