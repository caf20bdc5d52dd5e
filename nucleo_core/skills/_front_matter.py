"""Reading ``SKILL.md``: YAML front matter between ``---`` lines, checked against the spec."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from nucleo_core.skills.errors import SkillFormatError
from nucleo_core.skills.naming import skill_name_problem

__all__ = ["SkillDocument", "read_skill_document"]

_DESCRIPTION_MAX_LENGTH = 1024
_COMPATIBILITY_MAX_LENGTH = 500
_FENCE = "---"


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillDocument:
    """The checked content of one ``SKILL.md``: the fields `Skill` takes from the file."""

    name: str
    description: str
    instructions: str
    allowed_tools: tuple[str, ...] | None
    license: str | None
    compatibility: str | None
    metadata: Mapping[str, str]


def read_skill_document(text: str, *, location: str, folder_name: str) -> SkillDocument:
    """Parse and check the text of a ``SKILL.md``.

    Args:
        text: The file's text.
        location: The file's location, for messages.
        folder_name: The name of the skill's folder, which the front matter's name must equal.

    Raises:
        SkillFormatError: The file breaks the Agent Skills layout; the reason says how to fix it.
    """
    front_matter, body = _split(text, location)
    fields = _load_yaml(front_matter, location)
    checker = _Checker(fields, location)
    return SkillDocument(
        name=checker.name(folder_name),
        description=checker.description(),
        instructions=body.lstrip("\r\n").rstrip(),
        allowed_tools=checker.allowed_tools(),
        license=checker.license(),
        compatibility=checker.compatibility(),
        metadata=checker.metadata(),
    )


def _split(text: str, location: str) -> tuple[str, str]:
    """The front matter's YAML and the Markdown body below it."""
    lines = text.removeprefix("\ufeff").split("\n")
    if lines[0].rstrip() != _FENCE:
        raise SkillFormatError(
            location,
            "SKILL.md does not start with YAML front matter; make its first line '---', "
            "followed by 'name: ...' and 'description: ...' lines and a closing '---' line",
        )
    for index in range(1, len(lines)):
        if lines[index].rstrip() == _FENCE:
            return "\n".join(lines[1:index]), "\n".join(lines[index + 1 :])
    raise SkillFormatError(
        location,
        "the front matter opened by the first '---' line is never closed; add a '---' line "
        "after its last field",
    )


def _load_yaml(source: str, location: str) -> Mapping[Any, Any]:
    # Imported on first use, so that `import nucleo_core` never pays for PyYAML.
    import yaml

    try:
        fields = yaml.safe_load(source)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        # The front matter starts on the file's second line; marks count from zero.
        where = f" at line {mark.line + 2}, column {mark.column + 1}" if mark else ""
        problem = exc.problem or exc.context or "invalid YAML"
        raise SkillFormatError(
            location,
            f"the front matter is not valid YAML ({problem}{where}); fix the YAML, quoting "
            "any value that holds ': ' or starts with a character YAML reserves",
        ) from exc
    except Exception as exc:
        # Not only YAMLError: PyYAML's constructors raise bare ValueError, AttributeError and
        # the like on some malformed scalars (`!!int abc`, or `2001-13-45`, read as a date),
        # and its recursive composer can exhaust the stack on deeply nested input.
        summary = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SkillFormatError(
            location,
            f"the front matter is not valid YAML ({summary}); fix the YAML, quoting any value "
            "that is meant as plain text",
        ) from exc
    if fields is None:
        raise SkillFormatError(
            location,
            "the front matter is empty; add 'name: <folder name>' and 'description: ...' "
            "between the '---' lines",
        )
    if not isinstance(fields, Mapping):
        raise SkillFormatError(
            location,
            f"the front matter is {_kind(fields)}, not a mapping of fields; write it as "
            "'key: value' lines, such as 'name: ...' and 'description: ...'",
        )
    return fields


class _Checker:
    """Checks the front matter field by field; unknown fields are ignored."""

    def __init__(self, fields: Mapping[Any, Any], location: str) -> None:
        self._fields = fields
        self._location = location

    def _fail(self, reason: str) -> SkillFormatError:
        return SkillFormatError(self._location, reason)

    def name(self, folder_name: str) -> str:
        value = self._fields.get("name")
        if value is None:
            raise self._fail(
                f"the front matter has no 'name'; add 'name: {folder_name}' (a skill is named "
                "after its folder)"
            )
        if not isinstance(value, str):
            raise self._fail(
                f"'name' is {_kind(value)}, not a string; write the folder's name, quoted if "
                f'need be: name: "{folder_name}"'
            )
        problem = skill_name_problem(value)
        if problem is not None:
            raise self._fail(
                f"'name' is not a valid skill name: {problem}; use 1 to 64 lowercase letters, "
                "digits and single hyphens (like 'pdf-processing'), in the front matter and "
                "the folder's name alike"
            )
        if value != folder_name:
            raise self._fail(
                f"'name' is '{value}' but the skill's folder is '{folder_name}'; a skill's "
                "name must equal its folder's name, so rename one of them"
            )
        return value

    def description(self) -> str:
        value = self._fields.get("description")
        if value is None:
            raise self._fail(
                "the front matter has no 'description'; add 'description: ...' saying what "
                "the skill does and when to use it"
            )
        if not isinstance(value, str):
            raise self._fail(
                f"'description' is {_kind(value)}, not a string; write it as text, quoted if "
                "need be"
            )
        # A folded or literal block (`description: >`) ends with a newline nobody means.
        text = value.strip()
        if not text:
            raise self._fail("'description' is empty; say what the skill does and when to use it")
        if len(text) > _DESCRIPTION_MAX_LENGTH:
            raise self._fail(
                f"'description' has {len(text)} characters; at most {_DESCRIPTION_MAX_LENGTH} "
                "are allowed, so shorten it and move the detail into the instructions"
            )
        return text

    def license(self) -> str | None:
        value = self._fields.get("license")
        if value is None or isinstance(value, str):
            return value
        raise self._fail(
            f"'license' is {_kind(value)}, not a string; name the license (like "
            "'Apache-2.0') or a license file bundled with the skill"
        )

    def compatibility(self) -> str | None:
        value = self._fields.get("compatibility")
        if value is None:
            return None
        if not isinstance(value, str):
            raise self._fail(
                f"'compatibility' is {_kind(value)}, not a string; describe the environment "
                "the skill needs as text"
            )
        text = value.strip()
        if not text:
            raise self._fail(
                "'compatibility' is empty; describe what the skill needs, or remove the field"
            )
        if len(text) > _COMPATIBILITY_MAX_LENGTH:
            raise self._fail(
                f"'compatibility' has {len(text)} characters; at most "
                f"{_COMPATIBILITY_MAX_LENGTH} are allowed, so shorten it"
            )
        return text

    def metadata(self) -> Mapping[str, str]:
        value = self._fields.get("metadata")
        if value is None:
            return MappingProxyType({})
        if not isinstance(value, Mapping):
            raise self._fail(
                f"'metadata' is {_kind(value)}, not a mapping; write it as indented "
                "'key: \"value\"' lines"
            )
        for key, item in value.items():
            if not isinstance(key, str):
                raise self._fail(
                    f"'metadata' has a key that is {_kind(key)}, not a string; quote the key"
                )
            if not isinstance(item, str):
                raise self._fail(
                    f"'metadata' maps '{key}' to {_kind(item)}, but its values must be "
                    f'strings; quote the value: {key}: "..."'
                )
        return MappingProxyType(dict(value))

    def allowed_tools(self) -> tuple[str, ...] | None:
        value = self._fields.get("allowed-tools")
        if value is None:
            return None
        if isinstance(value, str):
            return tuple(value.split())
        if isinstance(value, list) and all(
            isinstance(item, str) and item.strip() for item in value
        ):
            return tuple(item.strip() for item in value)
        raise self._fail(
            f"'allowed-tools' is {_describe_tools(value)}; write it as a space-separated "
            "string (allowed-tools: Read Grep) or a list of tool names"
        )


def _describe_tools(value: object) -> str:
    if isinstance(value, list):
        return "a list holding something other than non-empty strings"
    return f"{_kind(value)}, neither a string nor a list of strings"


def _kind(value: object) -> str:
    """What a YAML value turned out to be, in words (never the value itself)."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, datetime.date):
        return "a date"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bytes):
        return "binary data"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, set):
        return "a set"
    return f"a {type(value).__name__}"
