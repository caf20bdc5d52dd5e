"""The I/O shapes thinkers share: conveyed artifacts in, reasoning and artifact custody out.

An input is a value the caller builds, so it is a frozen dataclass; an output is what a model
answers, so it is a pydantic model whose JSON schema is the answer schema the model is held to.

- `ThinkerInput` carries an `ArtifactRef` for each artifact conveyed to the thinker: a
  reference, never the content, read through the thinker's own conversation once linked there.
- `ThinkerOutput` carries the model's reasoning; `ArtifactThinkerOutput` adds the ids of the
  artifacts the answer rests on (artifact custody: the caller reads them, the answer names them).
- `SubThinkerInput` / `SubThinkerOutput` are what a `SubThinker` is asked and answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from nucleo_core.conversations.artifacts import ArtifactRef

__all__ = [
    "ArtifactThinkerOutput",
    "SubThinkerInput",
    "SubThinkerOutput",
    "ThinkerInput",
    "ThinkerOutput",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkerInput:
    """What every thinker input may carry besides its objective.

    Attributes:
        artifact_refs: Artifacts conveyed to the thinker: it reads them through its own
            conversation, under the same ids, with ``get_artifact_field`` and
            ``search_artifact_content``.
    """

    artifact_refs: tuple[ArtifactRef, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class SubThinkerInput(ThinkerInput):
    """What a `SubThinker` is asked: one bounded objective, and the artifacts it needs.

    Attributes:
        objective: The part of the parent's objective delegated, stated on its own.
    """

    objective: str


class ThinkerOutput(BaseModel):
    """What every typed answer carries: the reasoning behind it."""

    model_config = ConfigDict(frozen=True)

    reasoning: str = Field(
        default="", description="How you reached the answer, briefly: what you did and why."
    )


class ArtifactThinkerOutput(ThinkerOutput):
    """An answer that rests on artifacts, and names them so its reader can read them too."""

    artifact_refs: list[str] = Field(
        default_factory=list,
        description=(
            "The ids (art_...) of the artifacts your answer rests on, for the reader to read "
            "them; only ids of artifacts you can read, none when the answer stands alone."
        ),
    )


class SubThinkerOutput(ArtifactThinkerOutput):
    """What a `SubThinker` answers its parent."""

    answer: str = Field(description="The answer to the delegated objective, complete in itself.")
