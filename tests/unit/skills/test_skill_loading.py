"""Unit tests of `load_skill`: reading one skill folder and refusing malformed ones."""

from pathlib import Path

import pytest
from _skill_folders import front_matter, write_skill

from nucleo_core.errors import MisuseError
from nucleo_core.skills import Skill, SkillFormatError, load_skill

FULL_SKILL = """\
---
name: pdf-processing
description: >
  Extract text and tables from PDF files. Use when the user mentions PDFs.
license: Apache-2.0
compatibility: Needs Python 3.11 and pdfplumber.
metadata:
  author: example-org
  version: "1.0"
allowed-tools: Bash(python3:*) Read
x-vendor-extension: ignored
---

# PDF processing

1. Open the file.
2. Read it.
"""


def test_a_complete_skill_folder_is_read_field_by_field(tmp_path: Path) -> None:
    """Every front matter field the spec defines lands on the Skill, and the body is the text."""
    folder = write_skill(tmp_path, "pdf-processing", FULL_SKILL)

    skill = load_skill(folder, bundle="acme.skills")

    assert skill == Skill(
        name="pdf-processing",
        description="Extract text and tables from PDF files. Use when the user mentions PDFs.",
        instructions="# PDF processing\n\n1. Open the file.\n2. Read it.",
        bundle="acme.skills",
        allowed_tools=("Bash(python3:*)", "Read"),
        license="Apache-2.0",
        compatibility="Needs Python 3.11 and pdfplumber.",
        metadata={"author": "example-org", "version": "1.0"},
        location=str(folder),
    )


def test_a_minimal_skill_leaves_the_optional_fields_unset(tmp_path: Path) -> None:
    """A skill with only name and description has no allowed tools, license or metadata."""
    skill = load_skill(write_skill(tmp_path, "tiny", front_matter("tiny")))

    assert skill.allowed_tools is None
    assert skill.license is None
    assert skill.compatibility is None
    assert dict(skill.metadata) == {}
    assert skill.instructions == ""
    assert skill.bundle == ""


def test_allowed_tools_as_a_space_separated_string_is_split(tmp_path: Path) -> None:
    """The spec's form, a space-separated string, becomes a tuple of tool names in order."""
    text = front_matter("lister", allowed_tools="'read_file  search\tlist_dir'")

    skill = load_skill(write_skill(tmp_path, "lister", text))

    assert skill.allowed_tools == ("read_file", "search", "list_dir")


def test_allowed_tools_as_a_yaml_list_is_kept_item_by_item(tmp_path: Path) -> None:
    """The list form is accepted too, and an item may hold spaces (``Bash(git status:*)``)."""
    text = (
        "---\nname: lister\ndescription: Lists.\n"
        "allowed-tools:\n  - read_file\n  - Bash(git status:*)\n---\n"
    )
    skill = load_skill(write_skill(tmp_path, "lister", text))

    assert skill.allowed_tools == ("read_file", "Bash(git status:*)")


def test_an_empty_allowed_tools_value_means_no_tools(tmp_path: Path) -> None:
    """An explicitly empty allowed-tools is an empty restriction, unlike an absent one."""
    skill = load_skill(write_skill(tmp_path, "none", front_matter("none", allowed_tools="''")))

    assert skill.allowed_tools == ()


def test_the_metadata_mapping_cannot_be_changed_through_the_skill(tmp_path: Path) -> None:
    """A skill's metadata is a read-only view, so a frozen Skill stays frozen."""
    skill = load_skill(write_skill(tmp_path, "pdf-processing", FULL_SKILL))

    with pytest.raises(TypeError):
        skill.metadata["author"] = "someone else"  # type: ignore[index]


def test_a_byte_order_mark_and_windows_line_endings_are_accepted(tmp_path: Path) -> None:
    """A SKILL.md saved by a Windows editor (BOM, CRLF) reads like any other."""
    text = "\ufeff---\r\nname: crlf\r\ndescription: Saved on Windows.\r\n---\r\nStep one.\r\n"

    skill = load_skill(write_skill(tmp_path, "crlf", text))

    assert (skill.name, skill.description, skill.instructions) == (
        "crlf",
        "Saved on Windows.",
        "Step one.",
    )


def test_a_folder_given_as_a_string_path_is_read(tmp_path: Path) -> None:
    """load_skill takes a plain string path as well as a Path."""
    folder = write_skill(tmp_path, "by-string", front_matter("by-string"))

    assert load_skill(str(folder)).name == "by-string"


def test_the_current_directory_is_named_after_its_resolved_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Path('.') has no name of its own; the folder it resolves to is checked instead."""
    folder = write_skill(tmp_path, "here", front_matter("here"))
    monkeypatch.chdir(folder)

    assert load_skill(Path(".")).name == "here"


def test_an_unknown_front_matter_key_is_kept_as_an_extra_field(tmp_path: Path) -> None:
    """Fields outside the spec (vendor extensions) do not fail and are kept in Skill.extra."""
    skill = load_skill(write_skill(tmp_path, "extra", front_matter("extra", owner="[1, 2]")))

    assert skill.name == "extra"
    assert skill.extra == {"owner": [1, 2]}


@pytest.mark.parametrize(
    ("field", "limit"), [("description", 1024), ("compatibility", 500)], ids=str
)
def test_a_text_field_at_its_limit_is_accepted(tmp_path: Path, field: str, limit: int) -> None:
    """A description of exactly 1024 characters, or a compatibility of 500, is within the spec."""
    text = "---\nname: edge\n" + f"{field}: {'x' * limit}\n"
    if field != "description":
        text += "description: At the limit.\n"
    skill = load_skill(write_skill(tmp_path, "edge", text + "---\n"))

    assert len(getattr(skill, field)) == limit


def test_a_name_of_64_characters_is_accepted(tmp_path: Path) -> None:
    """The longest name the spec allows is read."""
    name = "a" * 64

    assert load_skill(write_skill(tmp_path, name, front_matter(name))).name == name


# -- malformed skills ---------------------------------------------------------------------------

FOLDER = "my-skill"

MALFORMED: list[tuple[str, str | bytes | None, str]] = [
    ("no SKILL.md", None, "holds no SKILL.md"),
    ("no front matter", "# My skill\n\nDo things.\n", "does not start with YAML front matter"),
    ("front matter not at the top", "\n---\nname: my-skill\n---\n", "does not start with"),
    ("unclosed front matter", "---\nname: my-skill\ndescription: x\n", "never closed"),
    (
        "YAML syntax error",
        "---\nname: my-skill\ndescription: a: b\n---\n",
        "not valid YAML (mapping values are not allowed here at line 3",
    ),
    ("YAML bad tagged scalar", "---\nname: my-skill\ndescription: !!int abc\n---\n", "YAML"),
    ("YAML impossible date", "---\nname: my-skill\nsince: 2001-13-45\n---\n", "YAML"),
    ("YAML control character", "---\nname: my-skill\x07\n---\n", "not valid YAML"),
    ("empty front matter", "---\n---\nBody\n", "front matter is empty"),
    ("front matter is a list", "---\n- name\n- description\n---\n", "is a list, not a mapping"),
    ("front matter is text", "---\njust words\n---\n", "is a string, not a mapping"),
    ("missing name", "---\ndescription: x\n---\n", "has no 'name'; add 'name: my-skill'"),
    ("name is a number", "---\nname: 12\ndescription: x\n---\n", "'name' is a number"),
    ("name is a list", "---\nname: [my-skill]\ndescription: x\n---\n", "'name' is a list"),
    ("name differs from folder", front_matter("other-skill"), "but the skill's folder is"),
    ("missing description", "---\nname: my-skill\n---\n", "has no 'description'"),
    ("empty description", front_matter(FOLDER, description="''"), "'description' is empty"),
    ("blank description", front_matter(FOLDER, description="'   '"), "'description' is empty"),
    ("description a list", front_matter(FOLDER, description="[a, b]"), "is a list"),
    ("description a boolean", front_matter(FOLDER, description="yes"), "is a boolean"),
    ("description too long", front_matter(FOLDER, description="x" * 1025), "1025 characters"),
    ("compatibility too long", front_matter(FOLDER, compatibility="y" * 501), "501 characters"),
    ("compatibility empty", front_matter(FOLDER, compatibility="''"), "'compatibility' is empty"),
    ("compatibility a number", front_matter(FOLDER, compatibility="3.11"), "is a number"),
    ("license a list", front_matter(FOLDER, license="[MIT]"), "'license' is a list"),
    ("allowed-tools a mapping", front_matter(FOLDER, allowed_tools="{a: b}"), "is a mapping"),
    ("allowed-tools a number", front_matter(FOLDER, allowed_tools="7"), "is a number"),
    ("allowed-tools list of numbers", front_matter(FOLDER, allowed_tools="[1, 2]"), "a list"),
    ("allowed-tools empty item", front_matter(FOLDER, allowed_tools="[read, '']"), "a list"),
    ("metadata a list", front_matter(FOLDER, metadata="[a]"), "'metadata' is a list"),
    ("metadata a number value", front_matter(FOLDER, metadata="{version: 1.0}"), "'version'"),
    ("metadata a nested value", front_matter(FOLDER, metadata="{a: {b: c}}"), "a mapping"),
    ("metadata a number key", front_matter(FOLDER, metadata="{1: one}"), "key that is a number"),
    ("not UTF-8", b"---\nname: my-skill\ndescription: caf\xe9\n---\n", "not UTF-8"),
]


@pytest.mark.parametrize(
    ("text", "reason"), [case[1:] for case in MALFORMED], ids=[case[0] for case in MALFORMED]
)
def test_a_malformed_skill_is_refused_with_its_file_and_reason(
    tmp_path: Path, text: str | bytes | None, reason: str
) -> None:
    """Each way to break the layout raises SkillFormatError naming the file and the reason."""
    folder = write_skill(tmp_path, FOLDER, text)

    with pytest.raises(SkillFormatError) as caught:
        load_skill(folder)

    error = caught.value
    assert isinstance(error, MisuseError)
    expected_location = folder if text is None else folder / "SKILL.md"
    assert error.location == str(expected_location)
    assert reason in error.reason
    assert str(error) == f"{expected_location} is not a valid skill: {error.reason}"
    assert "Traceback" not in str(error)
    assert "\n" not in str(error)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("My-Skill", "'M', 'S'"),
        ("my_skill", "'_'"),
        ("-my-skill", "starts or ends with a hyphen"),
        ("my-skill-", "starts or ends with a hyphen"),
        ("my--skill", "consecutive hyphens"),
        ("s" * 65, "65 characters"),
    ],
)
def test_a_name_breaking_the_spec_is_refused_even_when_it_matches_its_folder(
    tmp_path: Path, name: str, reason: str
) -> None:
    """The name rules are checked on their own, not only through the folder comparison."""
    with pytest.raises(SkillFormatError) as caught:
        load_skill(write_skill(tmp_path, name, front_matter(name)))

    assert "not a valid skill name" in caught.value.reason
    assert reason in caught.value.reason


def test_every_malformed_reason_says_how_to_fix_it(tmp_path: Path) -> None:
    """Each refusal's reason goes on past the diagnosis to a remedy (after a semicolon)."""
    for index, (_, text, _) in enumerate(MALFORMED):
        folder = write_skill(tmp_path / str(index), FOLDER, text)
        with pytest.raises(SkillFormatError) as caught:
            load_skill(folder)
        diagnosis, _, remedy = caught.value.reason.partition("; ")
        assert diagnosis, caught.value.reason
        assert remedy, caught.value.reason


def test_a_file_in_place_of_the_folder_is_refused(tmp_path: Path) -> None:
    """Pointing load_skill at a file (say SKILL.md itself) is a format error, not a crash."""
    folder = write_skill(tmp_path, FOLDER, front_matter(FOLDER))

    with pytest.raises(SkillFormatError, match="not a folder"):
        load_skill(folder / "SKILL.md")


def test_a_yaml_error_keeps_the_parser_complaint_only_as_its_cause(tmp_path: Path) -> None:
    """The YAML library's own exception survives as __cause__, for a debugger, not in the text."""
    import yaml

    folder = write_skill(tmp_path, FOLDER, "---\nname: [unclosed\ndescription: x\n---\n")

    with pytest.raises(SkillFormatError) as caught:
        load_skill(folder)

    assert isinstance(caught.value.__cause__, yaml.YAMLError)
    assert "^" not in str(caught.value)
