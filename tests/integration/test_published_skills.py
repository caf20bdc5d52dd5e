"""Skills as published, installed as wheels: Claude Code front matter, aliases, files, clashes.

Two skilljars written the way the Agent Skills ecosystem publishes skills (`_published_skills`)
are built into real wheels and pip-installed, with nucleo-core and the first-party files pack,
into one fresh virtual environment for this module. Scripts run with that environment's Python
from a working directory outside the repository, so nothing reaches nucleo but the wheels'
entry points; the model is nucleo's `ScriptedModel`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from _installed_packs import write_pack
from _installed_venv import Venv, build_wheels, clean_environment
from _published_skills import FOLDERS, SKILLS_ACME, VALIDITY

REPOSITORY = Path(__file__).resolve().parents[2]

#: The files pack's tools, which the thinker below always has.
FILES = ["read_text_file", "list_directory", "write_text_file"]


def _write_skilljars(into: Path) -> list[Path]:
    folders = []
    for pack, skills in FOLDERS:
        root = write_pack(pack, into)
        for folder, files in skills.items():
            for relative, text in files.items():
                target = root / pack.package / folder / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
        folders.append(root)
    return folders


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The skilljars' source trees."""
    folder = tmp_path_factory.mktemp("skilljar-sources")
    _write_skilljars(folder)
    return folder


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory, sources: Path) -> Venv:
    """nucleo-core, the files pack and the two skilljars, installed from wheels."""
    trees = [REPOSITORY, REPOSITORY / "plugins" / "nucleo-tools-files"]
    trees += [sources / pack.distribution for pack, _ in FOLDERS]
    wheels = build_wheels(trees, tmp_path_factory.mktemp("skill-wheels"))
    return Venv.with_wheels(tmp_path_factory.mktemp("skills-venv") / "env", list(wheels.values()))


SCRIPT = """\
import asyncio
import logging

from nucleo_core import SkillSelector, ToolHub
from nucleo_core.conversations import ConversationService
from nucleo_core.models import (
    ModelCatalog, ModelResponse, StopReason, TextBlock, ThinkerDeclaration, ToolResultBlock,
    ToolUseBlock, Usage,
)
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_tools_files.tools import list_directory, read_text_file, write_text_file

warnings = []


class Keep(logging.Handler):
    def emit(self, record):
        if record.levelno >= logging.WARNING:
            warnings.append(record.getMessage())


logging.getLogger("nucleo").addHandler(Keep())


class Worker(SingleObjectiveThinker[str, str]):
    @classmethod
    def declare_default_tools(cls):
        return [read_text_file, list_directory, write_text_file]

    @classmethod
    def declare_compatible_skills(cls):
        return SkillSelector().add_bundle("acme_skills").add_bundle("other_skills")


def worker(hub, model):
    return Worker(
        ThinkerDeclaration("standard", "short"), hub=hub, client=model,
        catalog=ModelCatalog(grades={"standard": "anthropic:grade-model"}),
        conversations=ConversationService(":memory:"),
    )


def use(name, arguments, n):
    return ToolUseBlock(id=f"toolu_{n}", name=name, input=arguments)


def read(skill, path, n):
    return use("read_skill_file", {"skill": skill, "path": path}, n)


def calls(*uses):
    return ModelResponse(content=uses, stop_reason=StopReason.TOOL_USE, usage=Usage())


hub = ToolHub()
hub.load_plugins()
loaded = list(warnings)
skills = {
    s.name: {
        "bundle": s.bundle, "allowed_tools": s.allowed_tools,
        "unresolved": s.unresolved_tools, "disabled": s.disable_model_invocation,
        "extra": dict(s.extra), "resources": s.resources,
    }
    for s in hub.skills
}

def attached(name):
    thinker = worker(hub, ScriptedModel([]))
    thinker.reconcile_tool_registry()
    before = list(warnings)
    result = thinker.request_skill(name)
    available = thinker.reconcile_tool_registry().available_names()
    return {
        "granted": result.granted, "reason": result.reason, "available": available,
        "warnings": [w for w in warnings if w not in before],
    }

probe = worker(hub, ScriptedModel([]))
offered = [s.name for s in probe.skill_catalog()]

model = ScriptedModel([
    calls(use("request_skill", {"skill": "configure"}, 1)),
    calls(
        read("configure", "references/guide.md", 2),
        read("configure", "scripts/run.py", 3),
        read("configure", "../other_skills/configure/SKILL.md", 4),
        read("configure", "/etc/hostname", 5),
        read("configure", "../../nucleo_core/__init__.py", 6),
        read("other_skills:configure", "references/other.md", 7),
    ),
    ModelResponse(
        content=(TextBlock(text="done"),), stop_reason=StopReason.END_TURN, usage=Usage()
    ),
])
runner = worker(hub, model)
final = asyncio.run(runner.run("Configure acme."))
third = model.requests[2]
results = {
    block.tool_use_id: {"content": block.content, "is_error": block.is_error}
    for message in third.messages for block in message.content
    if isinstance(block, ToolResultBlock)
}
emit({
    "loaded_warnings": loaded,
    "skills": skills,
    "offered": offered,
    "deploy": attached("deploy"),
    "review": attached("review-diff"),
    "lister": attached("lister"),
    "locked": attached("locked"),
    "final": final,
    "second_tools": [tool.name for tool in model.requests[1].tools],
    "second_system": model.requests[1].system,
    "results": results,
})
"""


@pytest.fixture(scope="module")
def found(venv: Venv, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What a hub in the installed environment made of the skilljars, and one scripted run."""
    result: dict[str, Any] = venv.run(SCRIPT, cwd=tmp_path_factory.mktemp("published"))
    return result


def test_both_forms_of_claude_code_allowed_tools_are_read_entry_by_entry(
    found: dict[str, Any],
) -> None:
    """Commas and parentheses in the string form, and the YAML list, give whole entries."""
    assert found["skills"]["review-diff"]["allowed_tools"] == ["Read", "Grep", "Bash(git diff:*)"]
    assert found["skills"]["lister"]["allowed_tools"] == ["Glob", "Read"]


def test_the_files_pack_aliases_keep_its_tools_for_a_claude_code_skill(
    found: dict[str, Any],
) -> None:
    """Read, Grep and Glob grant the pack's readers; Write stays out of the narrowed palette."""
    review = found["review"]
    assert review["granted"] is True
    assert {"read_text_file", "list_directory"} <= set(review["available"])
    assert "write_text_file" not in review["available"]
    lister = found["lister"]
    assert {"read_text_file", "list_directory"} <= set(lister["available"])
    assert "write_text_file" not in lister["available"]


def test_an_unresolved_entry_is_reported_at_load_and_on_the_skill(found: dict[str, Any]) -> None:
    """Bash(git diff:*) maps to no tool: it is on the skill and in a load warning."""
    assert found["skills"]["review-diff"]["unresolved"] == ["Bash(git diff:*)"]
    assert found["skills"]["lister"]["unresolved"] == []
    assert any(
        "'review-diff'" in line and "Bash(git diff:*)" in line and "aliases" in line
        for line in found["loaded_warnings"]
    )


def test_a_skill_resolving_to_nothing_narrows_to_the_meta_tools_and_says_so(
    found: dict[str, Any],
) -> None:
    """Attaching 'locked' fails closed (no files tool stays) and a warning names why and the fix."""
    locked = found["locked"]
    assert locked["granted"] is True
    assert not set(FILES) & set(locked["available"])
    assert found["skills"]["locked"]["unresolved"] == ["Bash(rm -rf:*)", "WebFetch"]
    assert any(
        "'locked'" in line and "meta-tools alone" in line and "aliases" in line
        for line in locked["warnings"]
    )


def test_disable_model_invocation_keeps_a_skill_from_the_model(found: dict[str, Any]) -> None:
    """'deploy' is neither offered through request_skill nor granted when asked for."""
    assert "deploy" not in found["offered"]
    assert found["deploy"]["granted"] is False
    assert found["skills"]["deploy"]["disabled"] is True


def test_claude_code_fields_are_kept_on_the_skill(found: dict[str, Any]) -> None:
    """user-invocable, argument-hint, version and tools are kept as written."""
    assert found["skills"]["deploy"]["extra"] == {
        "disable-model-invocation": True,
        "user-invocable": True,
        "argument-hint": "[environment]",
        "version": "1.2.0",
        "tools": "Read",
    }


def test_same_named_skills_of_two_skilljars_coexist_under_unique_names(
    found: dict[str, Any],
) -> None:
    """The second 'configure' is other_skills:configure, and the model is offered both."""
    assert found["skills"]["configure"]["bundle"] == "acme_skills"
    assert found["skills"]["other_skills:configure"]["bundle"] == "other_skills"
    assert {"configure", "other_skills:configure"} <= set(found["offered"])
    assert len(found["offered"]) == len(set(found["offered"]))


def test_the_specification_breaking_folders_are_skipped_with_a_reason(
    found: dict[str, Any],
) -> None:
    """Bad_Name and long-description are not registered; a warning names each one's problem."""
    assert "Bad_Name" not in found["skills"]
    assert "long-description" not in found["skills"]
    lines = found["loaded_warnings"]
    assert any("Bad_Name" in line and "not a valid skill name" in line for line in lines)
    assert any("long-description" in line and "1025 characters" in line for line in lines)


def test_an_attached_skill_lists_its_files_and_the_model_can_read_them(
    found: dict[str, Any],
) -> None:
    """The preamble lists scripts/ and references/; read_skill_file returns their text."""
    assert found["final"] == "done"
    assert "read_skill_file" in found["second_tools"]
    system = found["second_system"]
    assert "- references/guide.md" in system
    assert "- scripts/run.py" in system
    assert found["results"]["toolu_2"] == {
        "content": SKILLS_ACME["configure"]["references/guide.md"],
        "is_error": False,
    }
    assert found["results"]["toolu_3"]["content"] == SKILLS_ACME["configure"]["scripts/run.py"]


def test_the_model_reads_nothing_outside_the_attached_skills(found: dict[str, Any]) -> None:
    """'..', an absolute path and an unattached skill are refused, never echoing the path."""
    for call_id in ("toolu_4", "toolu_5", "toolu_6", "toolu_7"):
        result = found["results"][call_id]
        assert result["is_error"] is True
        for leaked in ("other_skills/configure", "/etc/hostname", "nucleo_core", "other.md"):
            assert leaked not in result["content"]
    assert "The other service's notes" not in json.dumps(found["results"])


def _nucleo(venv: Venv, *arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv.python), "-I", "-m", "nucleo_core.cli", *arguments],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=clean_environment(),
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("folder", sorted(VALIDITY))
def test_nucleo_skills_validate_agrees_with_the_specification(
    venv: Venv, sources: Path, tmp_path: Path, folder: str
) -> None:
    """Each folder's exit code and errors are what the specification says of it."""
    valid, phrases = VALIDITY[folder]
    path = sources / "acme-skills" / "acme_skills" / folder
    done = _nucleo(venv, "skills", "validate", str(path), cwd=tmp_path)
    assert done.returncode == (0 if valid else 1), done.stdout + done.stderr
    for phrase in phrases:
        assert phrase in done.stdout
    if valid:
        assert "error:" not in done.stdout


def test_nucleo_skills_show_tells_how_each_entry_resolves(venv: Venv, tmp_path: Path) -> None:
    """`skills show` maps Read and Grep through the files pack; Bash(git diff:*) is unresolved."""
    done = _nucleo(venv, "skills", "show", "review-diff", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    mapped = {item["entry"]: item for item in shown["tools"]["mapped"]}
    assert mapped["Read"]["tools"] == ["read_text_file"]
    assert mapped["Read"]["by"].startswith("pack ")
    assert mapped["Grep"]["tools"] == ["list_directory", "read_text_file"]
    assert shown["tools"]["unresolved"] == ["Bash(git diff:*)"]


def test_a_configured_alias_resolves_an_argument_pattern(venv: Venv, tmp_path: Path) -> None:
    """[tool.nucleo.skills.aliases] mapping Bash(git diff:*) to a tool leaves nothing unresolved."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "app"\n\n[tool.nucleo.skills.aliases]\n'
        '"Bash(git diff:*)" = "read_text_file"\n',
        encoding="utf-8",
    )
    done = _nucleo(venv, "skills", "show", "review-diff", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["tools"]["unresolved"] == []
    assert shown["unresolved_tools"] == []
