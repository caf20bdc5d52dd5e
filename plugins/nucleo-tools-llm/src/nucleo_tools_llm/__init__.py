"""nucleo-tools-llm: the tools of installed ``llm`` plugins (``llm-tools-*``), in nucleo.

Installed, the bridge's ``nucleo.tools`` entry point ``llm`` brings a provider per tool that
the installed ``llm`` plugins register; a thinker offers them with
``ToolSelector().add_pack("llm")``. What ``llm`` cannot say (whether a tool is read-only, its
risk) and what a Toolbox's constructor needs come from the ``[llm]`` table of ``nucleo.toml``
or ``[tool.nucleo.llm]`` of ``pyproject.toml`` (`LLMConfig`).
"""

from __future__ import annotations

from nucleo_tools_llm.bridge import LLM_GROUP, LLMBridge, llm_tools
from nucleo_tools_llm.config import Declaration, LLMConfig, LLMConfigError, discover_config
from nucleo_tools_llm.provider import (
    LLM_PREFIX,
    LLMToolCall,
    LLMToolProvider,
    ToolboxInstances,
    render_result,
)

__all__ = [
    "LLM_GROUP",
    "LLM_PREFIX",
    "Declaration",
    "LLMBridge",
    "LLMConfig",
    "LLMConfigError",
    "LLMToolCall",
    "LLMToolProvider",
    "ToolboxInstances",
    "discover_config",
    "llm_tools",
    "render_result",
]
