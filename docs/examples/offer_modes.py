"""Offer modes: auto lists a small catalog in request_tools and searches a large one."""

import json

from nucleo_core import ThinkerBase, ToolHub, ToolSelector, tool
from nucleo_core.hub.search_tool import OFFER_BUDGET
from nucleo_core.tools import provider_for
from nucleo_core.tools.render import to_anthropic


def shelf_tool(number: int):
    """A catalog tool (as an MCP server or a tool pack would bring many)."""

    def move(item: str) -> str:
        return f"{item} is on shelf {number}"

    move.__doc__ = f"Move an item of the warehouse to shelf {number}."
    return provider_for(tool(name=f"move_to_shelf_{number}", read_only=True, risk="low")(move))


class SmallCatalog(ThinkerBase):
    """Ten catalog tools: listed in request_tools."""

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        """The catalog its model may ask for."""
        return ToolSelector.of([shelf_tool(n) for n in range(10)])


class LargeCatalog(ThinkerBase):
    """Five hundred catalog tools: past the budget, so searched."""

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        """The catalog its model may ask for."""
        return ToolSelector.of([shelf_tool(n) for n in range(500)])


class AlwaysListed(LargeCatalog):
    """The same catalog, enumerated whatever its size."""

    tool_offer = "enumerate"


hub = ToolHub()
print(f"budget: {OFFER_BUDGET:,} B of request_tools definition")
for thinker_class in (SmallCatalog, LargeCatalog, AlwaysListed):
    palette = thinker_class(hub=hub).reconcile_tool_registry()
    request_tools = palette.get_provider_by_name("request_tools")
    size = len(json.dumps(to_anthropic([request_tools.spec()])))
    print(
        f"{thinker_class.__name__}: {len(hub.compatible_catalog(thinker_class))} tools, "
        f"offered {palette.names()}, request_tools {size:,} B"
    )
