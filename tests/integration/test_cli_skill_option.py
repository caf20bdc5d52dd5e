"""``nucleo run --skill`` and ``nucleo chat --skill`` attach a skill before the first turn.

The installed ``nucleo`` script runs thinkers of a project folder on a scripted model. The
skills come from a skilljar found as an installed distribution (``*.dist-info`` with a
``nucleo.skills`` entry point) in a folder of the test's own, named by ``NUCLEO_PLUGINS_PATH``
so nothing else installed is loaded; the same distribution's ``nucleo.plugins`` entry point is
a guardrail that writes down every skill it is asked about and refuses one. The model answers
with what its first request's system text held, so each test reads what the model was given.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from nucleo_core.conversations import ConversationService

NUCLEO = Path(sys.executable).with_name("nucleo")

SKILLS = {
    "glossary": """\
        ---
        name: glossary
        description: Look terms up in the glossary.
        ---
        GLOSSARY-INSTRUCTIONS: look every term up before you use it.
        """,
    "deploy": """\
        ---
        name: deploy
        description: Deploy the service. Run only when a person asks.
        disable-model-invocation: true
        ---
        DEPLOY-INSTRUCTIONS: deploy with the runbook.
        """,
    "contracts": """\
        ---
        name: contracts
        description: Draft contracts.
        ---
        CONTRACTS-INSTRUCTIONS: draft with care.
        """,
}

GUARD = """\
import os

from nucleo_core import Verdict, hookimpl


@hookimpl
def nucleo_admit_skill(thinker, skill):
    with open(os.environ["ACME_DESK_ASKED"], "a", encoding="utf-8") as asked:
        asked.write(skill.name + "\\n")
    if skill.name == "contracts":
        return Verdict.refuse("contracts are for the legal team only")
    return None
"""

DESK = '''\
from nucleo_core import SingleObjectiveThinker, SkillSelector
from nucleo_core.testing import ScriptedModel
from nucleo_core.thinking.chat import ChatThinker

MARKERS = ("GLOSSARY-INSTRUCTIONS", "DEPLOY-INSTRUCTIONS", "CONTRACTS-INSTRUCTIONS")


def answer(request):
    seen = [marker for marker in MARKERS if marker in request.system]
    return "saw: " + (", ".join(seen) or "no skill")


class Desk(SingleObjectiveThinker[str, str]):
    """A desk thinker offered the skilljar's skills."""

    def __init__(self, declaration, **arguments):
        super().__init__(declaration, client=ScriptedModel(answer), **arguments)

    @classmethod
    def declare_compatible_skills(cls):
        return SkillSelector().add_bundle("acme_desk_skills")


class DeskChat(ChatThinker):
    """The same, as a chat."""

    def __init__(self, declaration, **arguments):
        super().__init__(declaration, client=ScriptedModel(answer), **arguments)

    @classmethod
    def declare_compatible_skills(cls):
        return SkillSelector().add_bundle("acme_desk_skills")
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder: the thinkers' module, and the skilljar's distribution in plugins/."""
    plugins = tmp_path / "plugins"
    package = plugins / "acme_desk_skills"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""Acme desk skills."""\n', encoding="utf-8")
    for name, text in SKILLS.items():
        (package / name).mkdir()
        (package / name / "SKILL.md").write_text(textwrap.dedent(text), encoding="utf-8")
    (plugins / "acme_desk_guard.py").write_text(GUARD, encoding="utf-8")
    info = plugins / "acme_desk-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: acme-desk\nVersion: 0.1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[nucleo.skills]\nacme-desk = acme_desk_skills\n\n"
        "[nucleo.plugins]\nacme-desk-guard = acme_desk_guard\n",
        encoding="utf-8",
    )
    (tmp_path / "desk.py").write_text(DESK, encoding="utf-8")
    return tmp_path


def nucleo(project: Path, *arguments: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run the installed ``nucleo`` script in ``project``, its plugins only from plugins/."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("NUCLEO_")}
    environment.update(
        {
            "ANTHROPIC_API_KEY": "not-used",  # the scripted model answers; the seat is checked
            "NUCLEO_PLUGINS_PATH": str(project / "plugins"),
            "PYTHONPATH": str(project / "plugins"),
            "NUCLEO_CONVERSATIONS": str(project / "conversations.sqlite3"),
            "ACME_DESK_ASKED": str(project / "asked.txt"),
            "NO_COLOR": "1",
            "COLUMNS": "200",
        }
    )
    return subprocess.run(
        [str(NUCLEO), *arguments, "--model", "anthropic:any"],
        cwd=project,
        env=environment,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def asked(project: Path) -> list[str]:
    """The skills the guardrail was asked about, in order."""
    path = project / "asked.txt"
    return path.read_text(encoding="utf-8").split() if path.exists() else []


def test_run_with_a_skill_sends_its_instructions_from_the_first_call(project: Path) -> None:
    """`nucleo run --skill glossary`: admitted by the guardrails, its text reaches the model."""
    done = nucleo(project, "run", "desk.py:Desk", "Define churn.", "--skill", "glossary")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "saw: GLOSSARY-INSTRUCTIONS"
    assert "Skill glossary attached." in done.stderr
    assert asked(project) == ["glossary"]


def test_a_skill_kept_from_the_model_can_be_attached_by_a_person(project: Path) -> None:
    """A ``disable-model-invocation`` skill is attached with --skill, through the guardrails."""
    done = nucleo(project, "run", "desk.py:Desk", "Ship it.", "--skill", "deploy")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "saw: DEPLOY-INSTRUCTIONS"
    assert asked(project) == ["deploy"]


def test_a_skill_a_guardrail_refuses_stops_the_run_before_the_model_is_called(
    project: Path,
) -> None:
    """The refusal exits 2 with the guardrail's reason; no turn runs, no answer is printed."""
    done = nucleo(project, "run", "desk.py:Desk", "Draft one.", "--skill", "contracts")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(
        "Error: the skill 'contracts' was refused for desk.py:Desk: contracts are for the "
        "legal team only; the skills it may be given: "
    )
    assert asked(project) == ["contracts"]


def test_a_skill_outside_the_thinkers_catalog_is_refused_naming_those_it_may_use(
    project: Path,
) -> None:
    """An unknown name exits 2 saying it is not in the catalog, and listing the skills that are."""
    done = nucleo(project, "run", "desk.py:Desk", "Hi.", "--skill", "gloss")
    assert done.returncode == 2
    error = done.stderr.strip()
    assert "the skill 'gloss' was refused for desk.py:Desk" in error
    assert "no skill of that name is in this thinker's catalog" in error
    for name in SKILLS:
        assert name in error.partition("the skills it may be given: ")[2]
    assert len(error.splitlines()) == 1


def test_chat_with_a_skill_attaches_it_to_the_conversation_durably(project: Path) -> None:
    """`nucleo chat --skill` attaches it at the first message; resumed later, it is still there."""
    first = nucleo(
        project,
        "chat",
        "desk.py:DeskChat",
        "--conversation",
        "desk-1",
        "--skill",
        "glossary",
        stdin="Hello.\n",
    )
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "saw: GLOSSARY-INSTRUCTIONS"
    with ConversationService(project / "conversations.sqlite3") as service:
        assert service.open("desk-1", durable=True).skills == ("glossary",)
    resumed = nucleo(
        project, "chat", "desk.py:DeskChat", "--conversation", "desk-1", stdin="Again.\n"
    )
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == "saw: GLOSSARY-INSTRUCTIONS"


def test_chat_refuses_a_refused_skill_before_the_chat_starts(project: Path) -> None:
    """A refused --skill exits 2 before any message is read; the conversation is not started."""
    done = nucleo(
        project,
        "chat",
        "desk.py:DeskChat",
        "--conversation",
        "desk-2",
        "--skill",
        "contracts",
        stdin="Hello.\n",
    )
    assert done.returncode == 2
    assert "contracts are for the legal team only" in done.stderr
    assert "Conversation desk-2" not in done.stderr
    with ConversationService(project / "conversations.sqlite3") as service:
        assert not service.exists("desk-2")
