"""What the models read and send in a delegation: the tool's description and input, the prompt."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SubThinkerRequest"]

_DESCRIPTION = (
    "Delegate one bounded part of your objective to a sub-thinker. It works in a conversation "
    "of its own, with the tools you have now (and may ask for the tools and skills you may), "
    "and answers with its result, its reasoning and the ids of any artifacts its answer rests "
    "on, which you can then read. It does not see this conversation: state the objective "
    "completely, and list in artifact_refs the artifacts it needs to read."
)

_SYSTEM = (
    "You are a sub-thinker: another thinker delegated one bounded objective to you. Work on "
    "that objective only, with the tools you are given, then answer with one JSON object: "
    '"answer" (your result, complete in itself: the thinker that delegated sees nothing else), '
    '"reasoning" (briefly, how you reached it) and "artifact_refs" (the ids of artifacts your '
    "answer rests on, if any)."
)


class SubThinkerRequest(BaseModel):
    """What the model sends to ``sub_thinker``."""

    model_config = ConfigDict(extra="forbid")

    objective: str = Field(
        min_length=1,
        description="The objective to delegate, stated completely: the sub-thinker sees "
        "nothing of this conversation.",
    )
    artifact_refs: list[str] = Field(
        default_factory=list,
        description="Ids (art_...) of artifacts of this conversation the sub-thinker needs "
        "to read.",
    )
