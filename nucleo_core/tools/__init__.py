"""The tools layer: declaring, describing, parsing, building and looking up tools."""

from nucleo_core.tools.class_provider import ClassToolProvider
from nucleo_core.tools.declaration import (
    TOOL_NAME_PATTERN,
    SchemaRefiner,
    ToolDeclaration,
    declaration_of,
)
from nucleo_core.tools.decorator import STRICT_ENVIRONMENT_VARIABLE, tool
from nucleo_core.tools.function_provider import FunctionTool, FunctionToolProvider
from nucleo_core.tools.palette import ReadOnlyPalette
from nucleo_core.tools.phase import Phase
from nucleo_core.tools.provider import NATIVE_PREFIX, RawInput, ToolProvider
from nucleo_core.tools.providers import ToolLike, provider_for
from nucleo_core.tools.registry import ToolRegistry, ToolSkippedWarning
from nucleo_core.tools.render import ToolFormat, render_tools, to_anthropic, to_mcp, to_openai
from nucleo_core.tools.risk import Risk
from nucleo_core.tools.scan import tools_in_module
from nucleo_core.tools.schema_input import SchemaInput
from nucleo_core.tools.seat import ModelDependent, ModelSeat, ModelSeatUnavailable, SeatGrade
from nucleo_core.tools.shadow import ShadowRecord
from nucleo_core.tools.spec import ToolSpec
from nucleo_core.tools.state import CarriedState
from nucleo_core.tools.tool import Tool, run_tool

__all__ = [
    "NATIVE_PREFIX",
    "STRICT_ENVIRONMENT_VARIABLE",
    "TOOL_NAME_PATTERN",
    "CarriedState",
    "ClassToolProvider",
    "FunctionTool",
    "FunctionToolProvider",
    "ModelDependent",
    "ModelSeat",
    "ModelSeatUnavailable",
    "Phase",
    "RawInput",
    "ReadOnlyPalette",
    "Risk",
    "SchemaInput",
    "SchemaRefiner",
    "SeatGrade",
    "ShadowRecord",
    "Tool",
    "ToolDeclaration",
    "ToolFormat",
    "ToolLike",
    "ToolProvider",
    "ToolRegistry",
    "ToolSkippedWarning",
    "ToolSpec",
    "declaration_of",
    "provider_for",
    "render_tools",
    "run_tool",
    "to_anthropic",
    "to_mcp",
    "to_openai",
    "tool",
    "tools_in_module",
]
