"""A read-only palette: offer only read-only tools, and refuse anything else at the call."""

from nucleo_core import ReadOnlyPalette, ReadOnlyViolation, ToolRegistry, tool


@tool(read_only=True, risk="low")
def get_balance(account: str) -> float:
    """Get an account's balance."""
    return 0.0


@tool(risk="high")
def transfer(source: str, target: str, amount: float) -> str:
    """Transfer money between accounts."""
    return "done"


registry = ToolRegistry([get_balance, transfer])
removed = ReadOnlyPalette.sweep(registry)  # what the model is offered
print("removed:", removed, "left:", registry.names())

# The sweep is advice; the per-call check is the guarantee, whatever was added since.
registry.register(transfer)
for name in ("get_balance", "transfer"):
    provider = registry.get(name)
    assert provider is not None
    try:
        ReadOnlyPalette.require_read_only(provider)
        print(name, "may run")
    except ReadOnlyViolation as exc:
        print(exc)
