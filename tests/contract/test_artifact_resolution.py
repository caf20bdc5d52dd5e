"""A single-objective thinker resolves the artifacts its answer names before accepting it."""

from __future__ import annotations

import asyncio
import re

from nucleo_core import ModelCatalog, SingleObjectiveThinker, ThinkerDeclaration, ToolHub, tool
from nucleo_core.models import ModelRequest, ModelResponse, ToolResultBlock
from nucleo_core.testing import ScriptedModel, tool_use_response
from nucleo_core.thinking import Depth
from nucleo_core.thinking.io import ArtifactThinkerOutput


@tool(read_only=True, risk="low")
def export_rows() -> str:
    """Export every row of the table (a large output, kept as an artifact)."""
    return "\n".join(f"row {index}: value {index * 7}" for index in range(2000))


class Exporter(SingleObjectiveThinker[str, ArtifactThinkerOutput]):
    """Exports rows and answers with the artifact that holds them."""

    @classmethod
    def declare_default_tools(cls) -> list[object]:
        return [export_rows]


def test_an_answer_naming_an_unknown_artifact_is_corrected_then_accepted() -> None:
    """An artifact id the conversation does not hold is refused; a real one is accepted."""
    kept: list[str] = []

    def answer(request: ModelRequest) -> ModelResponse | str:
        messages = request.messages
        if len(messages) == 1:
            return tool_use_response(("export_rows", {}))
        if not kept:
            block = messages[-1].content[0]
            assert isinstance(block, ToolResultBlock)
            preview = block.content
            found = re.search(r"art_[0-9a-f]+", preview)
            assert found is not None, "a large tool output is kept as an artifact"
            kept.append(found.group(0))
            return '{"reasoning": "exported", "artifact_refs": ["art_made_up"]}'
        return f'{{"reasoning": "exported", "artifact_refs": ["{kept[0]}"]}}'

    model = ScriptedModel(answer)
    thinker = Exporter(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(),
        catalog=ModelCatalog(grades={"standard": "anthropic:claude-test"}),
        client=model,
        depth=Depth.QUICK,
    )

    result = asyncio.run(thinker.run("Export the table."))

    assert result.artifact_refs == kept
    correction = model.requests[-1].messages[-1].text
    assert "artifact_refs may list only ids of artifacts you can read" in correction
    assert "art_made_up" not in correction
