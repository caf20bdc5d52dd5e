"""The script that plays the model when none is configured: a function of each request.

It reads what a real model would read: the tools it is offered (the names ``request_tools`` and
``request_skill`` may ask for are in their input schemas), the system text, and the
conversation so far, and answers with the next step of the story. It never looks inside the
thinker: whatever it asks for still goes through admission, and every call is still checked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from nucleo_core.hub import REQUEST_SKILL, REQUEST_TOOLS
from nucleo_core.models import ModelRequest, ModelResponse, ToolResultBlock, ToolUseBlock
from nucleo_core.testing import text_response, tool_use_response
from nucleo_core.tools import ToolSpec

__all__ = [
    "CITY",
    "DEMO_OBJECTIVE",
    "MODEL_NAME",
    "invitation_objective",
    "play_the_model",
    "review_objective",
]

#: What the model is called in requests and responses.
MODEL_NAME = "scripted"
CITY = "Lisbon"
#: The planner's objective.
DEMO_OBJECTIVE = f"Plan a picnic in {CITY} tomorrow for the team, and send the invitations."
_REVIEW_PREFIX = "Review this picnic plan, then send the invitations: "
_INVITE_PREFIX = "Send the invitations of this picnic plan: "
_LOOKUPS = ("forecast", "sunset")
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})\b")


def review_objective(plan: str) -> str:
    """The reviewer's objective: the planner's answer, to review and act on."""
    return _REVIEW_PREFIX + plan


def invitation_objective(plan: str) -> str:
    """The host's objective: send the invitations of the plan (its first sentence says what)."""
    return _INVITE_PREFIX + plan.split(". ")[0].removesuffix(".") + "."


def play_the_model(request: ModelRequest) -> ModelResponse:
    """The model's next answer to ``request``: the planner's story, the reviewer's, the host's."""
    first = request.messages[0].text if request.messages else ""
    if first.startswith(_REVIEW_PREFIX):
        return _review(request)
    if first.startswith(_INVITE_PREFIX):
        return _invite(request)
    return _plan(request)


def _plan(request: ModelRequest) -> ModelResponse:
    offered = {spec.name: spec for spec in request.tools}
    used = {use.name for use in _tool_uses(request)}
    if REQUEST_TOOLS in offered and REQUEST_TOOLS not in used:
        # Ask for the whole catalog the schema lists: what to send the invitations with too.
        wanted = _members(offered[REQUEST_TOOLS], "tools")
        return _calls(
            request,
            [(REQUEST_TOOLS, {"tools": wanted})],
            "I start with no tools: I ask for the ones the task needs.",
        )
    if REQUEST_SKILL in offered and REQUEST_SKILL not in used:
        skill = _members(offered[REQUEST_SKILL], "skill")[0]
        return _calls(
            request,
            [(REQUEST_SKILL, {"skill": skill})],
            "There is a skill for planning picnics; I load it.",
        )
    lookups = [name for name in _LOOKUPS if name in offered and name not in used]
    if lookups:
        return _calls(
            request,
            [(name, {"city": CITY, "day": "tomorrow"}) for name in lookups],
            "The skill says: the forecast and the sunset, in the same turn.",
        )
    return text_response(_plan_text(request), model=MODEL_NAME)


def _plan_text(request: ModelRequest) -> str:
    results = _results_by_tool(request)
    weather = _after_colon(results.get("forecast", "unknown"))
    found = _CLOCK.search(results.get("sunset", ""))
    sunset = int(found.group(1)) * 60 + int(found.group(2)) if found else 21 * 60
    # A two-hour window ending on the half hour at least an hour before sunset.
    end = sunset - 60
    end -= end % 30
    plan = (
        f"Picnic in {CITY} tomorrow, {_clock(end - 120)}-{_clock(end)}, in a park with shade. "
        f"The weather: {weather}; the sun sets at {_clock(sunset)}."
    )
    refused = _refusals(results.get(REQUEST_TOOLS, "{}"))
    if refused:
        plan += f" I did not send the invitations: {refused[0]}."
    return plan


def _review(request: ModelRequest) -> ModelResponse:
    uses = _tool_uses(request)
    if not uses:
        plan = request.messages[0].text.removeprefix(_REVIEW_PREFIX)
        first_sentence = plan.split(". ")[0]
        # Named in the objective, though not among the tools it is offered: models do that.
        invitation = {"to": "the team", "message": f"You are invited: {first_sentence}."}
        return _calls(
            request,
            [("send_invitations", invitation)],
            "The plan holds up: dry, warm, and over well before sunset. Sending the invitations.",
        )
    outcome = _results_by_tool(request).get("send_invitations", "")
    return text_response(
        "The plan holds up: dry, warm, and over well before sunset. The invitations were not "
        f"sent; the call was refused: {outcome}",
        model=MODEL_NAME,
    )


def _invite(request: ModelRequest) -> ModelResponse:
    if not _tool_uses(request):
        message = "You are invited: " + request.messages[0].text.removeprefix(_INVITE_PREFIX)
        return _calls(
            request,
            [
                ("send_invitations", {"to": "the team", "message": message}),
                ("send_invitations", {"to": "the families", "message": message}),
            ],
            "Two sendings: the team, and the families.",
        )
    results = _results_by_tool(request).get("send_invitations", "")
    return text_response(f"The invitations: {results}", model=MODEL_NAME)


def _calls(
    request: ModelRequest, calls: Sequence[tuple[str, dict[str, Any]]], text: str
) -> ModelResponse:
    """A tool-use answer whose ids depend on the request only, so every run reads the same."""
    turn = len(request.messages)
    blocks = [
        ToolUseBlock(id=f"toolu_demo_{turn}_{index}", name=name, input=arguments)
        for index, (name, arguments) in enumerate(calls, start=1)
    ]
    return tool_use_response(*blocks, text=text, model=MODEL_NAME)


# -- reading the request ---------------------------------------------------------------------


def _members(spec: ToolSpec, field: str) -> list[str]:
    """The names a meta-tool's schema offers: ``oneOf`` ``const`` entries, in catalog order."""
    schema: Mapping[str, Any] = spec.input_schema["properties"][field]
    choices: Sequence[Mapping[str, Any]] = schema.get("items", schema)["oneOf"]
    return [str(choice["const"]) for choice in choices]


def _tool_uses(request: ModelRequest) -> list[ToolUseBlock]:
    return [
        block
        for message in request.messages
        for block in message.content
        if isinstance(block, ToolUseBlock)
    ]


def _results_by_tool(request: ModelRequest) -> dict[str, str]:
    """Each tool's last result text, by tool name."""
    names = {use.id: use.name for use in _tool_uses(request)}
    return {
        names.get(block.tool_use_id, ""): block.content
        for message in request.messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    }


def _refusals(result: str) -> list[str]:
    try:
        refused = json.loads(result).get("refused", [])
    except (ValueError, AttributeError):
        return []
    return [str(item.get("reason", "")) for item in refused if isinstance(item, dict)]


def _after_colon(text: str) -> str:
    return text.partition(": ")[2].removesuffix(" (demo data)") or text


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"
