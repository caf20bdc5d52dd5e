"""The Agent Skills rules for a skill's name, with a reason for every way to break them."""

from __future__ import annotations

import string

__all__ = ["SKILL_NAME_MAX_LENGTH", "SKILL_NAME_PATTERN", "skill_name_problem"]

#: The longest name the Agent Skills specification allows.
SKILL_NAME_MAX_LENGTH = 64

#: A valid skill name (with at most `SKILL_NAME_MAX_LENGTH` characters), as a regular
#: expression: lowercase ASCII letters and digits, in runs joined by single hyphens.
SKILL_NAME_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"

_ALLOWED = frozenset(string.ascii_lowercase + string.digits + "-")


def skill_name_problem(name: str) -> str | None:
    """Why ``name`` is not a valid skill name, or ``None`` when it is.

    Checked rule by rule rather than against `SKILL_NAME_PATTERN`, so that the answer says
    which rule is broken; the two always agree.
    """
    if not name:
        return "the name is empty"
    if len(name) > SKILL_NAME_MAX_LENGTH:
        return f"the name has {len(name)} characters; at most {SKILL_NAME_MAX_LENGTH} are allowed"
    wrong = sorted({character for character in name if character not in _ALLOWED})
    if wrong:
        listed = ", ".join(repr(character) for character in wrong)
        return (
            f"the name holds {listed}; only lowercase letters a-z, digits and hyphens are allowed"
        )
    if name.startswith("-") or name.endswith("-"):
        return "the name starts or ends with a hyphen"
    if "--" in name:
        return "the name holds consecutive hyphens"
    return None
