"""A module for `tools_in_module`: its own tools interleaved with things that are not."""

from _scan_elsewhere import borrowed  # an imported tool is not this module's own
from pydantic import BaseModel

from nucleo_core import Tool, tool

__all__ = ["ZetaTool", "alpha", "borrowed", "middle", "not_a_tool", "omega"]


@tool
def omega(text: str) -> str:
    """Defined first, though its name sorts last."""
    return text


def not_a_tool(text: str) -> str:
    """A plain function, never declared."""
    return text


class ZetaInput(BaseModel):
    value: int


@tool(name="zeta")
class ZetaTool(Tool[ZetaInput, int]):
    """A class tool defined second."""

    def run(self, input: ZetaInput) -> int:
        return input.value


class Undeclared(Tool[ZetaInput, int]):
    """A Tool subclass nobody declared."""

    def run(self, input: ZetaInput) -> int:
        return input.value


@tool
async def middle(text: str) -> str:
    """An async function tool defined third."""
    return text


@tool
def alpha(text: str) -> str:
    """Defined last, though its name sorts first."""
    return text


# The same tool bound under a second name is still one tool.
alpha_again = alpha
