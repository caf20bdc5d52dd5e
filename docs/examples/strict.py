"""Strict mode builds every schema when the tool is declared, so mistakes fail at import."""

import threading

from nucleo_core import ToolDeclarationError, provider_for, tool


# Declared normally, a tool's schema is built when first needed...
@tool(risk="low")
def lazy(lock: threading.Lock) -> str:
    """A tool whose parameter cannot be described as JSON."""
    return ""


try:
    provider_for(lazy).spec()
except ToolDeclarationError as exc:
    print("at first use:", exc.problems[0].split(" (")[0])

# ...with strict=True, at the decorator. NUCLEO_STRICT_TOOLS=1 turns this on for every tool.
try:

    @tool(risk="low", strict=True)
    def eager(lock: threading.Lock) -> str:
        """The same mistake, caught at once."""
        return ""

except ToolDeclarationError as exc:
    print("at declaration:", exc.problems[0].split(" (")[0])
else:
    raise AssertionError("strict mode did not check the schema")
