"""What the meta-tools answer: `RequestToolsResult`, `RequestSkillResult`, `SearchToolsResult`.

Each is what the model reads back (``str()`` is its JSON), and what the thinker's door returns
to the meta-tool that asked. They import nothing of the hub, so both sides can name them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

__all__ = [
    "FoundTool",
    "Refusal",
    "RequestSkillResult",
    "RequestToolsResult",
    "SearchToolsResult",
]


@dataclass(frozen=True, slots=True)
class Refusal:
    """One refused name and the reason the model is told."""

    name: str
    reason: str


@dataclass(frozen=True, slots=True)
class RequestToolsResult:
    """What ``request_tools`` answers: the names granted and those refused, with reasons.

    A granted tool is callable from the next turn on; a name already in the palette reads as
    granted.
    """

    granted: tuple[str, ...]
    refused: tuple[Refusal, ...]

    def __str__(self) -> str:
        return json.dumps(asdict(self))


@dataclass(frozen=True, slots=True)
class RequestSkillResult:
    """What ``request_skill`` answers: whether the skill was attached, or why not."""

    skill: str
    granted: bool
    reason: str = ""

    def __str__(self) -> str:
        return json.dumps(asdict(self))


@dataclass(frozen=True, slots=True)
class FoundTool:
    """One tool ``search_tools`` granted: callable from the next turn on."""

    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class SearchToolsResult:
    """What ``search_tools`` answers: the matches granted (with schemas) and those refused.

    A match already in the palette reads as granted. No match at all leaves both empty.
    """

    granted: tuple[FoundTool, ...]
    refused: tuple[Refusal, ...]
    note: str = ""

    def __str__(self) -> str:
        data = asdict(self)
        if not self.note:
            del data["note"]
        return json.dumps(data, default=dict)
