"""The models layer: neutral message types, the `ModelClient` protocol, the catalog.

Provider adapters live in `nucleo_core.models.anthropic` and `nucleo_core.models.openai`; each
imports its SDK only when a client is made.
"""

from nucleo_core.models.catalog import PROVIDERS, Grade, ModelCatalog, ModelEntry
from nucleo_core.models.client import ModelClient, ResponseComplete, StreamEvent, TextDelta
from nucleo_core.models.declaration import AnswerSize, ThinkerDeclaration
from nucleo_core.models.messages import (
    ContentBlock,
    Message,
    ProviderBlock,
    ReasoningBlock,
    Role,
    StopReason,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from nucleo_core.models.request import ModelRequest, ModelResponse, ToolChoice
from nucleo_core.models.seam import override_client

__all__ = [
    "PROVIDERS",
    "AnswerSize",
    "ContentBlock",
    "Grade",
    "Message",
    "ModelCatalog",
    "ModelClient",
    "ModelEntry",
    "ModelRequest",
    "ModelResponse",
    "ProviderBlock",
    "ReasoningBlock",
    "ResponseComplete",
    "Role",
    "StopReason",
    "StreamEvent",
    "TextBlock",
    "TextDelta",
    "ThinkerDeclaration",
    "ToolChoice",
    "ToolResultBlock",
    "ToolUseBlock",
    "Usage",
    "override_client",
]
