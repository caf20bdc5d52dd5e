"""The hub layer: the process catalog, thinker catalogs, admission, and the meta-tools."""

from nucleo_core.hub.admission import (
    Admission,
    AdmissionEvent,
    AdmissionRule,
    GuardrailOutcome,
    SkillAdmissionRule,
    SkillGuardrail,
    ToolGuardrail,
)
from nucleo_core.hub.hub import ToolHub
from nucleo_core.hub.meta_tools import (
    REQUEST_SKILL,
    REQUEST_TOOLS,
    Refusal,
    RequestSkillProvider,
    RequestSkillResult,
    RequestToolsProvider,
    RequestToolsResult,
)
from nucleo_core.hub.search_tool import (
    OFFER_BUDGET,
    SEARCH_TOOLS,
    DeferredToolProvider,
    FoundTool,
    SearchToolsProvider,
    SearchToolsResult,
    ToolNotAdmitted,
    ToolOffer,
)
from nucleo_core.hub.selector import ToolSelector
from nucleo_core.hub.thinker_base import ThinkerBase

__all__ = [
    "OFFER_BUDGET",
    "REQUEST_SKILL",
    "REQUEST_TOOLS",
    "SEARCH_TOOLS",
    "Admission",
    "AdmissionEvent",
    "AdmissionRule",
    "DeferredToolProvider",
    "FoundTool",
    "GuardrailOutcome",
    "Refusal",
    "RequestSkillProvider",
    "RequestSkillResult",
    "RequestToolsProvider",
    "RequestToolsResult",
    "SearchToolsProvider",
    "SearchToolsResult",
    "SkillAdmissionRule",
    "SkillGuardrail",
    "ThinkerBase",
    "ToolGuardrail",
    "ToolHub",
    "ToolNotAdmitted",
    "ToolOffer",
    "ToolSelector",
]
