"""nucleo: LLM agents whose tools are decided in code and enforced at every call.

Importing this package does no I/O, loads no plugin and imports neither pydantic nor any
provider SDK: those are imported when first used.
"""

from nucleo_core.errors import (
    CorrectableError,
    InvalidToolInput,
    MisuseError,
    NucleoError,
    ReadOnlyViolation,
    SchemaRefinementError,
    ToolCollisionError,
    ToolDeclarationError,
    UnknownTool,
)
from nucleo_core.tools import (
    CarriedState,
    ClassToolProvider,
    FunctionToolProvider,
    Phase,
    ReadOnlyPalette,
    Risk,
    ShadowRecord,
    Tool,
    ToolDeclaration,
    ToolProvider,
    ToolRegistry,
    ToolSkippedWarning,
    ToolSpec,
    provider_for,
    render_tools,
    run_tool,
    to_anthropic,
    to_mcp,
    to_openai,
    tool,
    tools_in_module,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "CarriedState",
    "ClassToolProvider",
    "CorrectableError",
    "FunctionToolProvider",
    "InvalidToolInput",
    "MisuseError",
    "NucleoError",
    "Phase",
    "ReadOnlyPalette",
    "ReadOnlyViolation",
    "Risk",
    "SchemaRefinementError",
    "ShadowRecord",
    "Tool",
    "ToolCollisionError",
    "ToolDeclaration",
    "ToolDeclarationError",
    "ToolProvider",
    "ToolRegistry",
    "ToolSkippedWarning",
    "ToolSpec",
    "UnknownTool",
    "__version__",
    "provider_for",
    "render_tools",
    "run_tool",
    "to_anthropic",
    "to_mcp",
    "to_openai",
    "tool",
    "tools_in_module",
]
