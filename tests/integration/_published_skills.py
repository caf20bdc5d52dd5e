"""Skilljars written as published skills are: Claude Code front matter, resources, clashes.

Two skilljar distributions, as `_installed_packs.write_pack` lays packs out, whose packages hold
skill folders in every form the Agent Skills ecosystem publishes, plus two folders that break
the specification (loading skips them with a reason; ``nucleo skills validate`` says why).
"""

from __future__ import annotations

from _installed_packs import PackSource

__all__ = ["ACME", "FOLDERS", "OTHER", "SKILLS_ACME", "SKILLS_OTHER", "VALIDITY"]

#: A description one character over the specification's limit.
LONG_DESCRIPTION = "x" * 1025

#: Skill folders of the acme skilljar: folder -> relative file -> text.
SKILLS_ACME: dict[str, dict[str, str]] = {
    # Claude Code's string form: commas, and an argument pattern holding a space.
    "review-diff": {
        "SKILL.md": (
            "---\nname: review-diff\ndescription: Review the working tree's changes.\n"
            "allowed-tools: Read, Grep, Bash(git diff:*)\n---\n\n# Review\n\nRead the diff.\n"
        ),
    },
    # The YAML list form.
    "lister": {
        "SKILL.md": (
            "---\nname: lister\ndescription: List what a folder holds.\n"
            "allowed-tools:\n  - Glob\n  - Read\n---\n\nList, then read.\n"
        ),
    },
    # Claude Code's extra fields, and disable-model-invocation.
    "deploy": {
        "SKILL.md": (
            "---\nname: deploy\ndescription: Deploy the service; only a person starts it.\n"
            "disable-model-invocation: true\nuser-invocable: true\n"
            "argument-hint: '[environment]'\nversion: 1.2.0\ntools: Read\n"
            "allowed-tools: Read\n---\n\nDeploy carefully.\n"
        ),
    },
    # Resources in scripts/ and references/.
    "configure": {
        "SKILL.md": (
            "---\nname: configure\ndescription: Configure the acme service.\n"
            "allowed-tools: Read\n---\n\nRead references/guide.md first.\n"
        ),
        "scripts/run.py": "print('configured')\n",
        "references/guide.md": "# Guide\n\nSet ACME_MODE=fast.\n",
    },
    # Nothing it names exists here: attaching it narrows to the meta-tools, loudly.
    "locked": {
        "SKILL.md": (
            "---\nname: locked\ndescription: Clean up with the shell.\n"
            "allowed-tools: Bash(rm -rf:*) WebFetch\n---\n\nClean up.\n"
        ),
    },
    # Breaks the name rules (and is not named as its folder could be).
    "Bad_Name": {
        "SKILL.md": "---\nname: Bad_Name\ndescription: Named against the rules.\n---\n\nNo.\n",
    },
    # A description over 1024 characters.
    "long-description": {
        "SKILL.md": (
            f"---\nname: long-description\ndescription: {LONG_DESCRIPTION}\n---\n\nToo long.\n"
        ),
    },
}

#: The other skilljar: a skill with the name of one of acme's.
SKILLS_OTHER: dict[str, dict[str, str]] = {
    "configure": {
        "SKILL.md": (
            "---\nname: configure\ndescription: Configure the other service.\n---\n\n"
            "The other configure.\n"
        ),
        "references/other.md": "The other service's notes.\n",
    },
}

#: What ``nucleo skills validate`` must say of each folder: valid, and a phrase of each error.
VALIDITY: dict[str, tuple[bool, tuple[str, ...]]] = {
    "review-diff": (True, ()),
    "lister": (True, ()),
    "deploy": (
        False,
        (
            "'disable-model-invocation' is not a field",
            "'user-invocable'",
            "'argument-hint'",
            "'version'",
            "'tools'",
        ),
    ),
    "configure": (True, ()),
    "locked": (True, ()),
    "Bad_Name": (False, ("not a valid skill name",)),
    "long-description": (False, ("'description' has 1025 characters",)),
}

_INIT = '"""Skill folders only."""\n'

ACME = PackSource(
    distribution="acme-skills",
    package="acme_skills",
    entry_points={"nucleo.skills": {"acme": "acme_skills"}},
    source=_INIT,
)
OTHER = PackSource(
    distribution="other-skills",
    package="other_skills",
    entry_points={"nucleo.skills": {"other": "other_skills"}},
    source=_INIT,
)

#: Each skilljar with its folders.
FOLDERS = ((ACME, SKILLS_ACME), (OTHER, SKILLS_OTHER))
