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
from nucleo_core.hub.selector import ToolSelector
from nucleo_core.hub.thinker_base import ThinkerBase

__all__ = [
    "REQUEST_SKILL",
    "REQUEST_TOOLS",
    "Admission",
    "AdmissionEvent",
    "AdmissionRule",
    "GuardrailOutcome",
    "Refusal",
    "RequestSkillProvider",
    "RequestSkillResult",
    "RequestToolsProvider",
    "RequestToolsResult",
    "SkillAdmissionRule",
    "SkillGuardrail",
    "ThinkerBase",
    "ToolGuardrail",
    "ToolHub",
    "ToolSelector",
]
