"""Reading ``SKILL.md``: YAML front matter between ``---`` lines, checked against the spec."""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from nucleo_core.skills.errors import SkillFormatError
from nucleo_core.skills.naming import skill_name_problem

__all__ = [
    "COMPATIBILITY_MAX_LENGTH",
    "DESCRIPTION_MAX_LENGTH",
    "SPEC_FIELDS",
    "SkillDocument",
    "read_skill_document",
    "split_allowed_tools",
]

#: The most characters the specification allows in ``description``.
DESCRIPTION_MAX_LENGTH = 1024
#: The most characters the specification allows in ``compatibility``.
COMPATIBILITY_MAX_LENGTH = 500
#: The front matter fields the Agent Skills specification defines.
SPEC_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
#: A field nucleo reads beside the specification's (Claude Code's): it keeps the skill out of
#: the model's reach (``request_skill``), leaving it to the user and the code.
_DISABLE_MODEL_INVOCATION = "disable-model-invocation"
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
    disable_model_invocation: bool = False
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    commas_in_allowed_tools: bool = False


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
        disable_model_invocation=checker.disable_model_invocation(),
        extra=checker.extra(),
        commas_in_allowed_tools=checker.commas_in_allowed_tools(),
    )


def split_allowed_tools(text: str) -> tuple[str, ...]:
    """The entries of an ``allowed-tools`` string, as the specification and Claude Code write it.

    Entries are separated by whitespace, as the specification says; commas separate them too,
    as Claude Code writes them (``Read, Grep``). Whatever is inside parentheses stays whole, so
    ``Bash(git diff:*)`` is one entry, spaces and all. An unclosed parenthesis keeps the rest
    of the string in its entry.

    Example:
        >>> split_allowed_tools("Read, Grep Bash(git diff:*)")
        ('Read', 'Grep', 'Bash(git diff:*)')
    """
    entries: list[str] = []
    current: list[str] = []
    for character, outside in _at_top_level(text):
        if outside and (character.isspace() or character == ","):
            if current:
                entries.append("".join(current))
                current = []
            continue
        current.append(character)
    if current:
        entries.append("".join(current))
    return tuple(entries)


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
    """Checks the front matter field by field; fields outside the spec are kept as they are."""

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
        return self._text(
            "description",
            value,
            limit=DESCRIPTION_MAX_LENGTH,
            as_text="write it as text, quoted if need be",
            when_empty="say what the skill does and when to use it",
            shorten="shorten it and move the detail into the instructions",
        )

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
        return self._text(
            "compatibility",
            value,
            limit=COMPATIBILITY_MAX_LENGTH,
            as_text="describe the environment the skill needs as text",
            when_empty="describe what the skill needs, or remove the field",
            shorten="shorten it",
        )

    def _text(
        self, key: str, value: object, *, limit: int, as_text: str, when_empty: str, shorten: str
    ) -> str:
        """A text field, stripped: a string, not empty, at most ``limit`` characters.

        Each refusal names the field and says what to do (``as_text``, ``when_empty``,
        ``shorten``).
        """
        if not isinstance(value, str):
            raise self._fail(f"'{key}' is {_kind(value)}, not a string; {as_text}")
        # A folded or literal block (`description: >`) ends with a newline nobody means.
        text = value.strip()
        if not text:
            raise self._fail(f"'{key}' is empty; {when_empty}")
        if len(text) > limit:
            raise self._fail(
                f"'{key}' has {len(text)} characters; at most {limit} are allowed, so {shorten}"
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
            return split_allowed_tools(value)
        if isinstance(value, list) and all(
            isinstance(item, str) and item.strip(" \t\n,") for item in value
        ):
            # An item is one entry, spaces and all; a trailing comma is a slip, not a name.
            return tuple(item.strip(" \t\n,") for item in value)
        raise self._fail(
            f"'allowed-tools' is {_describe_tools(value)}; write it as a space-separated "
            "string (allowed-tools: Read Grep) or a list of tool names"
        )

    def commas_in_allowed_tools(self) -> bool:
        """Whether a string ``allowed-tools`` separates entries with commas (not the spec's way)."""
        value = self._fields.get("allowed-tools")
        if not isinstance(value, str):
            return False
        return any(outside and character == "," for character, outside in _at_top_level(value))

    def disable_model_invocation(self) -> bool:
        value = self._fields.get(_DISABLE_MODEL_INVOCATION)
        if value is None:
            return False
        if isinstance(value, bool):
            return value
        # Claude Code reads the YAML, and a quoted "true" is common in published skills.
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise self._fail(
            f"'{_DISABLE_MODEL_INVOCATION}' is {_kind(value)}, not a boolean; write "
            f"'{_DISABLE_MODEL_INVOCATION}: true' or '{_DISABLE_MODEL_INVOCATION}: false'"
        )

    def extra(self) -> Mapping[str, Any]:
        """The fields the specification does not define, by name, values made JSON-safe."""
        kept = {
            str(key): _json_safe(value)
            for key, value in self._fields.items()
            if key not in SPEC_FIELDS
        }
        return MappingProxyType(kept)


def _at_top_level(text: str) -> Iterator[tuple[str, bool]]:
    """Each character of ``text``, and whether it stands outside any parentheses.

    A parenthesis that opens or closes a pair counts as inside; an unmatched ``)`` as outside.
    """
    depth = 0
    for character in text:
        if character == "(":
            depth += 1
            yield character, False
        elif character == ")" and depth:
            depth -= 1
            yield character, False
        else:
            yield character, depth == 0


def _json_safe(value: object) -> Any:
    """A YAML value as JSON can hold it: dates as ISO text, keys as text, the rest as text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, list | tuple | set):
        return [_json_safe(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): _json_safe(item) for key, item in value.items()}
    return str(value)


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
