"""What an OpenAI-compatible server's error body says: its own message, or a validation report.

An error's message is the server's own, shortened; a validation report (pydantic's, FastAPI's
``detail`` list) is summarized as the fields it names and what was wrong with each
(``messages.2.content: Input should be a valid string``), never the values sent. A 5xx that
carries such a report is deterministic: the adapter raises it at once rather than retrying it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from nucleo_core.models._lenient import field_of

__all__ = ["provider_message", "validation_issues"]

_PROVIDER_MESSAGE_LIMIT = 500

#: A pydantic ``ValidationError`` as text: its header, then a location line and an indented
#: message line (``  Input should be ... [type=..., input_value=..., ...]``) per problem.
_PYDANTIC_HEADER = re.compile(r"\d+ validation errors? for \S+")
#: A problem in a dict or JSON rendering of pydantic's ``errors()``: ``'type': ..., 'loc': (...),
#: 'msg': ...``, in that order (the ``type`` may be missing).
_LOC_MSG = re.compile(
    r"""(?:["']type["']\s*:\s*["']([^"']*)["']\s*,\s*)?"""
    r"""["']loc["']\s*:\s*[\[(]([^\])]*)[\])]\s*,\s*["']msg["']\s*:\s*(["'])(.*?)(?<!\\)\3"""
)
_ISSUES_SHOWN = 3


@dataclass(frozen=True, slots=True)
class _Issue:
    kind: str
    location: tuple[str, ...]
    message: str

    def __str__(self) -> str:
        return f"{'.'.join(self.location) or '(the request)'}: {self.message}"


def validation_issues(body: object) -> list[str]:
    """The problems a validation report in ``body`` names, as ``location: message``.

    Reads FastAPI's ``{"detail": [{"loc": ..., "msg": ...}]}``, pydantic's text rendering and
    a dict or JSON rendering of its ``errors()``, wherever the message is. The values the
    report echoes (``input_value``, ``input``) are left out. A message that fits none of a
    union's shapes is reported against each; the shapes whose ``role`` or ``type`` did not
    match are dropped, so what is left is the cause (``messages.1.…AssistantMessage.content:
    Input should be a valid string``). Empty when there is no report.
    """
    issues: list[_Issue] = []
    if isinstance(body, Mapping) and isinstance(body.get("detail"), list):
        issues = [
            _issue(item.get("type"), item.get("loc"), item.get("msg"))
            for item in body["detail"]
            if isinstance(item, Mapping) and isinstance(item.get("msg"), str)
        ]
    text = body if isinstance(body, str) else _raw_message(body)
    if not issues and text:
        issues = [
            _issue(kind, [part.strip().strip("'\"") for part in loc.split(",")], msg)
            for kind, loc, _, msg in _LOC_MSG.findall(text)
        ]
    if not issues and text and (header := _PYDANTIC_HEADER.search(text)) is not None:
        location = ""
        for line in text[header.end() :].splitlines():
            if not line.strip() or line.lstrip().startswith("For further information"):
                continue
            if not line[0].isspace():
                location = line.strip()
            elif location:
                message = line.strip().split(" [type=", 1)[0]
                issues.append(_Issue("", tuple(location.split(".")), message))
                location = ""
    return [str(issue) for issue in _causes(issues)]


def _issue(kind: object, location: object, message: object) -> _Issue:
    parts = (
        [str(part) for part in location if str(part)] if isinstance(location, list | tuple) else []
    )
    if parts and parts[0] == "body":
        parts = parts[1:]  # FastAPI's: every field of a request is in its body
    return _Issue(kind if isinstance(kind, str) else "", tuple(parts), str(message))


def _causes(issues: list[_Issue]) -> list[_Issue]:
    """``issues`` without those of the union members the value was never meant to be."""
    mismatched = {
        issue.location[:-1]
        for issue in issues
        if issue.kind == "literal_error" and issue.location[-1:] in (("role",), ("type",))
    }
    kept = [issue for issue in issues if issue.location[:-1] not in mismatched]
    return kept or issues


def _raw_message(body: object) -> str:
    """The message of an error object, under the keys OpenAI and local servers use; or ``""``."""
    if isinstance(body, Mapping):
        for candidate in (
            body.get("message"),
            body.get("error"),
            field_of(body.get("error"), "message"),
        ):
            if isinstance(candidate, str) and candidate.strip():
                return candidate
    return ""


def provider_message(body: object) -> str:
    """The provider's own error message, from the shapes OpenAI and local servers use.

    A validation report is summarized as the problems it names (`validation_issues`).
    """
    issues = list(dict.fromkeys(validation_issues(body)))
    if issues:
        more = len(issues) - _ISSUES_SHOWN
        shown = "; ".join(issues[:_ISSUES_SHOWN]) + (f"; and {more} more" if more > 0 else "")
        return _shorten(f"the request does not fit the server's schema: {shown}")
    message = _raw_message(body)
    if message:
        return _shorten(message)
    if isinstance(body, str) and body.strip():
        return _shorten(body)
    return "no error message"


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= _PROVIDER_MESSAGE_LIMIT:
        return text
    return text[: _PROVIDER_MESSAGE_LIMIT - 1] + "…"
