"""Skills as other agents publish them: allowed-tools forms, aliases, clashes, files, validation."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from _skill_folders import front_matter, write_skill, write_valid_skill

from nucleo_core.errors import CorrectableError
from nucleo_core.skills import SkillRegistry, load_skill
from nucleo_core.skills._front_matter import split_allowed_tools
from nucleo_core.skills.aliases import SkillToolAliases
from nucleo_core.skills.config import SkillsConfig, discover_skills_config
from nucleo_core.skills.errors import SkillsConfigError
from nucleo_core.skills.files import read_skill_file, skill_preamble
from nucleo_core.skills.validation import validate_skill_folder


@pytest.mark.parametrize(
    ("text", "entries"),
    [
        ("Read Grep", ("Read", "Grep")),
        ("Read, Grep", ("Read", "Grep")),
        ("Bash(git diff:*) Read", ("Bash(git diff:*)", "Read")),
        ("Bash(git diff *),Bash(git log:*)", ("Bash(git diff *)", "Bash(git log:*)")),
        ("Bash(a, b) Read", ("Bash(a, b)", "Read")),
        ("", ()),
    ],
)
def test_allowed_tools_split_keeps_parentheses_whole(text: str, entries: tuple[str, ...]) -> None:
    """Whitespace and commas separate entries, never inside an argument pattern."""
    assert split_allowed_tools(text) == entries


def test_extra_fields_and_disable_model_invocation_are_kept(tmp_path: Path) -> None:
    """Claude Code's fields land on the skill, dates as text; the flag is read."""
    text = front_matter(
        "deploy",
        disable_model_invocation="true",
        user_invocable="false",
        argument_hint="'[env]'",
        released="2024-05-01",
    )
    skill = load_skill(write_skill(tmp_path, "deploy", text))
    assert skill.disable_model_invocation is True
    assert skill.extra == {
        "disable-model-invocation": True,
        "user-invocable": False,
        "argument-hint": "[env]",
        "released": "2024-05-01",
    }


def test_a_non_boolean_disable_model_invocation_is_refused(tmp_path: Path) -> None:
    """A value that is not a boolean is a format error saying how to write it."""
    folder = write_skill(tmp_path, "odd", front_matter("odd", disable_model_invocation="[1]"))
    with pytest.raises(Exception, match="not a boolean"):
        load_skill(folder)


def test_aliases_resolve_names_patterns_and_mcp_spellings() -> None:
    """Configuration wins over a pack; Bash(...) falls back to Bash; unknown stays unresolved."""
    aliases = SkillToolAliases({"Read": ("cat_file",), "Bash": ("shell",)}, origin="cfg")
    aliases.add_pack(
        "pack",
        {"Read": ("read_text_file",), "Glob": ("list_directory",)},
        own={"read_text_file", "list_directory"},
    )
    known = {"cat_file", "list_directory", "lookup", "mcp:gh:create_issue"}
    resolution = aliases.resolve(
        ["Read", "Glob", "Bash(git diff:*)", "lookup", "mcp__gh__create_issue", "WebFetch"],
        known=known,
    )
    assert resolution.names >= {"cat_file", "list_directory", "shell", "lookup"}
    assert "mcp:gh:create_issue" in resolution.names
    assert resolution.unresolved == ("Bash(git diff:*)", "WebFetch")


def test_a_pack_alias_onto_a_tool_it_does_not_own_is_refused() -> None:
    """A pack cannot make an alias grant another pack's tool."""
    aliases = SkillToolAliases()
    problems = aliases.add_pack("pack", {"Read": ("delete_everything",)}, own={"read_text_file"})
    assert [problem.alias for problem in problems] == ["Read"]
    assert aliases.lookup("Read") is None


def test_an_argument_pattern_without_alias_grants_nothing() -> None:
    """Bash(git diff:*) is not a nucleo tool name: it resolves to no tool at all."""
    resolution = SkillToolAliases().resolve(["Bash(git diff:*)"])
    assert resolution.names == frozenset()
    assert resolution.unresolved == ("Bash(git diff:*)",)


def test_same_named_skills_of_two_bundles_coexist(tmp_path: Path) -> None:
    """The second is registered as <bundle>:<name>, with a warning; a rename applies first."""
    first = load_skill(write_valid_skill(tmp_path / "a", "configure"), bundle="acme")
    second = load_skill(write_valid_skill(tmp_path / "b", "configure"), bundle="other")
    registry = SkillRegistry(config=SkillsConfig())
    registry.register_loaded([first, second])
    assert registry.names() == ["configure", "other:configure"]
    assert registry.get("other:configure").bundle == "other"  # type: ignore[union-attr]

    renamed = SkillRegistry(
        config=SkillsConfig(rename={"other:configure": "other-configure"}, prefix={"acme": "a-"})
    )
    renamed.register_loaded([first, second])
    assert renamed.names() == ["a-configure", "other-configure"]


def test_a_reloaded_bundle_replaces_its_qualified_skill(tmp_path: Path) -> None:
    """Loading the same two skilljars again leaves the same two names."""
    first = load_skill(write_valid_skill(tmp_path / "a", "configure"), bundle="acme")
    second = load_skill(write_valid_skill(tmp_path / "b", "configure"), bundle="other")
    registry = SkillRegistry(config=SkillsConfig())
    registry.register_loaded([first, second])
    registry.register_loaded([first, second])
    assert registry.names() == ["configure", "other:configure"]


def test_unresolved_entries_are_kept_on_the_skill_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An entry naming no known tool is on the skill and in a warning naming the fix."""
    text = front_matter("review", allowed_tools="'Read Bash(git diff:*)'")
    skill = load_skill(write_skill(tmp_path, "review", text), bundle="jar")
    registry = SkillRegistry(config=SkillsConfig(aliases={"Read": ("read_text_file",)}))
    with caplog.at_level(logging.WARNING, logger="nucleo.skills"):
        (held,) = registry.register_loaded([skill], known_tools={"read_text_file"})
    assert held.unresolved_tools == ("Bash(git diff:*)",)
    assert "tool.nucleo.skills.aliases" in caplog.text


def test_the_configuration_is_found_in_nucleo_toml(tmp_path: Path) -> None:
    """[skills.aliases] of nucleo.toml is read; a string and a list both name tools."""
    (tmp_path / "nucleo.toml").write_text(
        '[skills.aliases]\nRead = "read_text_file"\nGrep = ["a", "b"]\n', encoding="utf-8"
    )
    config = discover_skills_config(tmp_path)
    assert dict(config.aliases) == {"Read": ("read_text_file",), "Grep": ("a", "b")}


def test_a_malformed_configuration_says_what_to_fix(tmp_path: Path) -> None:
    """An alias onto a number is a SkillsConfigError naming the alias."""
    (tmp_path / "nucleo.toml").write_text("[skills.aliases]\nRead = 3\n", encoding="utf-8")
    with pytest.raises(SkillsConfigError, match="'Read'"):
        discover_skills_config(tmp_path)


def test_a_malformed_configuration_leaves_no_alias_in_force(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A registry finding a bad table in its working directory applies no alias, and warns."""
    (tmp_path / "nucleo.toml").write_text(
        '[skills]\nunknown = 1\n[skills.aliases]\nRead = "read_text_file"\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.WARNING, logger="nucleo.skills"):
        aliases = SkillRegistry().tool_aliases
    assert aliases.lookup("Read") is None
    assert "skills configuration is ignored" in caplog.text


def _skill_with_files(tmp_path: Path) -> Path:
    folder = write_valid_skill(tmp_path / "jar", "configure")
    (folder / "references").mkdir()
    (folder / "references" / "guide.md").write_text("the guide\n", encoding="utf-8")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "run.py").write_text("print(1)\n", encoding="utf-8")
    (folder / "assets").mkdir()
    (folder / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    return folder


def test_a_skill_lists_its_files_and_its_preamble_shows_them(tmp_path: Path) -> None:
    """scripts/, references/ and assets/ are listed, SKILL.md and hidden files are not."""
    folder = _skill_with_files(tmp_path)
    (folder / ".hidden").write_text("x", encoding="utf-8")
    skill = load_skill(folder)
    assert skill.resources == ("assets/logo.png", "references/guide.md", "scripts/run.py")
    preamble = skill_preamble(skill)
    assert preamble.startswith(f"# Skill: configure\n\n{skill.instructions}")
    assert "- references/guide.md" in preamble
    assert "read_skill_file" in preamble


def test_a_listed_file_is_read_and_dot_segments_are_normalized(tmp_path: Path) -> None:
    """references/guide.md and ./references/guide.md read the same text."""
    skill = load_skill(_skill_with_files(tmp_path))
    assert read_skill_file(skill, "references/guide.md") == "the guide\n"
    assert read_skill_file(skill, "./references//guide.md") == "the guide\n"


@pytest.mark.parametrize(
    "path",
    ["../jar/configure/SKILL.md", "/etc/passwd", "references/../../x", "C:/x", "a\\b", "missing"],
)
def test_a_path_outside_the_listed_files_is_refused_without_echo(tmp_path: Path, path: str) -> None:
    """Traversal, absolute and unknown paths are refused with a correctable error."""
    skill = load_skill(_skill_with_files(tmp_path))
    with pytest.raises(CorrectableError) as caught:
        read_skill_file(skill, path)
    assert path not in str(caught.value)


def test_a_symlink_leading_out_of_the_folder_is_neither_listed_nor_read(tmp_path: Path) -> None:
    """A link to a file outside the skill's folder stays out of reach."""
    secret = tmp_path / "secret.txt"
    secret.write_text("secret", encoding="utf-8")
    folder = _skill_with_files(tmp_path)
    (folder / "references" / "leak.md").symlink_to(secret)
    skill = load_skill(folder)
    assert "references/leak.md" not in skill.resources
    with pytest.raises(CorrectableError):
        read_skill_file(skill, "references/leak.md")


def test_a_binary_asset_is_refused_as_not_text(tmp_path: Path) -> None:
    """An image is not returned as mangled text; the error says to use text files."""
    skill = load_skill(_skill_with_files(tmp_path))
    with pytest.raises(CorrectableError, match="not UTF-8"):
        read_skill_file(skill, "assets/logo.png")


def test_validate_accepts_a_spec_skill_and_warns_about_commas(tmp_path: Path) -> None:
    """A valid folder has no errors; Claude Code's commas are only a warning."""
    folder = write_skill(tmp_path, "ok", front_matter("ok", allowed_tools="'Read, Grep'"))
    result = validate_skill_folder(folder)
    assert result.valid
    assert any("commas" in warning for warning in result.warnings)


def test_validate_reports_every_problem_with_its_fix(tmp_path: Path) -> None:
    """A wrong name, a long description, a long compatibility and an extra field all count."""
    text = (
        "---\nname: Other\ndescription: "
        + "d" * 1025
        + "\ncompatibility: "
        + "c" * 501
        + "\nversion: 1\n---\n"
    )
    result = validate_skill_folder(write_skill(tmp_path, "folder", text))
    assert not result.valid
    joined = "\n".join(result.errors)
    assert "not a valid skill name" in joined
    assert "1025 characters" in joined
    assert "501 characters" in joined
    assert "'version' is not a field" in joined
