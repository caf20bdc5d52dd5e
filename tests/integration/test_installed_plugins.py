"""Plugins as users get them: real wheels, pip-installed into a fresh virtual environment.

The wheels of nucleo-core and of the three first-party plugins under ``plugins/`` are built
once per session and installed into one virtual environment (nucleo-core's dependencies are
the suite's own, linked: tests reach no package index). Every check runs a small script with
that environment's Python from a temporary working directory, so the repository's own
``nucleo_core/`` cannot shadow the installed one, and nothing reaches nucleo but what the
wheels' entry points declare.

Packs written by the tests (one installed while a hub is alive, five broken ones) go into
environments layered on that one, so the first environment keeps exactly the three plugins.
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from _installed_packs import BROKEN_PACKS, LATE_PACK, PackSource, write_pack
from _installed_venv import Venv, build_wheels

REPOSITORY = Path(__file__).resolve().parents[2]

#: The first-party plugin distributions, by folder under plugins/.
FIRST_PARTY = ("nucleo-guard-risk", "nucleo-skills-core", "nucleo-tools-files")

FILES_TOOLS = ["read_text_file", "list_directory", "write_text_file", "delete_file"]

#: What the hub tells the model when an admission guardrail crashed.
INTERNAL_ERROR = "internal error in an admission guardrail; the request was not granted"

#: Script lines shared by the scripts that need a thinker of the files pack and the skilljar.
THINKER = """\
import dataclasses

from nucleo_core import SkillSelector, ThinkerBase, ToolHub, ToolSelector


class FilesThinker(ThinkerBase):
    @classmethod
    def declare_compatible_tools(cls):
        return ToolSelector().add_pack("files")

    @classmethod
    def declare_compatible_skills(cls):
        return SkillSelector().add_bundle("nucleo_skills_core")


def records(hub):
    return [dataclasses.asdict(record) for record in hub.plugins.records]


def refusals(result):
    return {refusal.name: refusal.reason for refusal in result.refused}
"""


# -- environments -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The wheels of nucleo-core and the first-party plugins, built once per session."""
    sources = [REPOSITORY, *(REPOSITORY / "plugins" / name for name in FIRST_PARTY)]
    return build_wheels(sources, tmp_path_factory.mktemp("wheels"))


@pytest.fixture(scope="session")
def venv(tmp_path_factory: pytest.TempPathFactory, wheels: dict[str, Path]) -> Venv:
    """A fresh environment holding nucleo-core (with its dependencies) and the three plugins."""
    return Venv.with_wheels(tmp_path_factory.mktemp("venv") / "env", list(wheels.values()))


@pytest.fixture(scope="session")
def test_pack_wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The wheels of the packs the tests write: the late pack and the broken ones."""
    sources = tmp_path_factory.mktemp("test-packs")
    folders = [write_pack(pack, sources) for pack in (LATE_PACK, *BROKEN_PACKS)]
    return build_wheels(folders, tmp_path_factory.mktemp("test-pack-wheels"))


def _wheel(wheels: dict[str, Path], pack: PackSource) -> Path:
    return wheels[pack.distribution.replace("-", "_")]


@pytest.fixture(scope="session")
def broken_venv(
    tmp_path_factory: pytest.TempPathFactory, venv: Venv, test_pack_wheels: dict[str, Path]
) -> Venv:
    """An environment seeing the first one's packages, with the five broken packs installed."""
    environment = Venv.layered_on(venv, tmp_path_factory.mktemp("broken-venv") / "env")
    broken = [_wheel(test_pack_wheels, pack) for pack in BROKEN_PACKS]
    environment.pip_install("--no-index", "--no-deps", *broken)  # its dependency stays missing
    return environment


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """An empty working directory outside the repository."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def _write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text, encoding="utf-8")


# -- (a) discovered through entry points alone -------------------------------------------------

DISCOVERY = (
    THINKER
    + """\
import nucleo_core

hub = ToolHub()
hub.load_plugins()
thinker = FilesThinker(hub=hub)
catalog = thinker.tool_catalog()
requested = thinker.request_tools(["read_text_file", "write_text_file", "delete_file"])
skill = thinker.request_skill("code-review")
emit({
    "nucleo_core": nucleo_core.__file__,
    "records": records(hub),
    "catalog": [
        {"name": p.name, "read_only": p.read_only, "risk": p.risk.value,
         "risk_declared": p.risk_declared, "source": p.source}
        for p in catalog
    ],
    "skills": [
        {"name": s.name, "bundle": s.bundle, "allowed_tools": s.allowed_tools,
         "location": s.location, "instructions": s.instructions}
        for s in hub.skills
    ],
    "granted": requested.granted,
    "refused": refusals(requested),
    "skill": {"granted": skill.granted, "reason": skill.reason},
    "available": thinker.reconcile_tool_registry().available_names(),
    "outcomes": {
        event.name: [dataclasses.asdict(outcome) for outcome in event.outcomes]
        for event in hub.admission_record
    },
})
"""
)


@pytest.fixture(scope="module")
def discovery(venv: Venv, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What a hub in the installed environment found, with max_risk medium configured."""
    folder = tmp_path_factory.mktemp("discovery")
    _write(
        folder,
        "pyproject.toml",
        '[project]\nname = "an-app"\n\n[tool.nucleo.guard-risk]\nmax_risk = "medium"\n',
    )
    result: dict[str, Any] = venv.run(DISCOVERY, cwd=folder)
    return result


def test_the_installed_nucleo_core_is_the_wheel_not_the_repository(
    discovery: dict[str, Any], venv: Venv
) -> None:
    """Scripts import nucleo_core from the environment's site-packages, never from the repo."""
    imported = Path(discovery["nucleo_core"])
    assert imported.is_relative_to(venv.site_packages)
    assert not imported.is_relative_to(REPOSITORY)


def test_the_skilljar_wheel_ships_its_skill_files(wheels: dict[str, Path]) -> None:
    """The nucleo-skills-core wheel holds every SKILL.md as package data."""
    with zipfile.ZipFile(wheels["nucleo_skills_core"]) as wheel:
        names = set(wheel.namelist())
    assert "nucleo_skills_core/code-review/SKILL.md" in names
    assert "nucleo_skills_core/summarize-files/SKILL.md" in names


def test_entry_points_alone_bring_the_three_distributions(discovery: dict[str, Any]) -> None:
    """Each first-party entry point is recorded loaded, with its distribution and version."""
    found = {
        record["distribution"]: (record["group"], record["name"], record["version"])
        for record in discovery["records"]
    }
    assert found == {
        "nucleo-tools-files": ("nucleo.tools", "files", "0.1.0"),
        "nucleo-skills-core": ("nucleo.skills", "core", "0.1.0"),
        "nucleo-guard-risk": ("nucleo.plugins", "guard-risk", "0.1.0"),
    }
    assert {record["status"] for record in discovery["records"]} == {"loaded"}
    contributed = {record["name"]: record["contributed"] for record in discovery["records"]}
    assert contributed["files"] == [
        *(f"tool: {name}" for name in FILES_TOOLS),
        "hooks: nucleo_skill_tool_aliases",  # Claude Code's Read, Write... onto its tools
    ]
    assert contributed["core"] == ["skills package: nucleo_skills_core"]
    assert contributed["guard-risk"] == ["hooks: nucleo_admit_tool, nucleo_permission"]


def test_a_thinker_selecting_the_files_pack_gets_its_declared_tools(
    discovery: dict[str, Any],
) -> None:
    """add_pack("files") puts the pack's four tools in the catalog, with their declared flags."""
    catalog = {tool.pop("name"): tool for tool in discovery["catalog"]}
    assert list(catalog) == FILES_TOOLS
    flags = {name: (tool["read_only"], tool["risk"]) for name, tool in catalog.items()}
    assert flags == {
        "read_text_file": (True, "low"),
        "list_directory": (True, "low"),
        "write_text_file": (False, "medium"),
        "delete_file": (False, "high"),
    }
    assert all(tool["risk_declared"] for tool in catalog.values())


def test_the_skilljar_skills_are_registered_under_their_bundle(
    discovery: dict[str, Any], venv: Venv
) -> None:
    """Both skills are read from the installed wheel with bundle nucleo_skills_core."""
    skills = {skill["name"]: skill for skill in discovery["skills"]}
    assert set(skills) == {"code-review", "summarize-files"}
    for name, skill in skills.items():
        assert skill["bundle"] == "nucleo_skills_core"
        assert skill["allowed_tools"] == ["read_text_file", "list_directory"]
        assert Path(skill["location"]) == venv.site_packages / "nucleo_skills_core" / name
        assert skill["instructions"].startswith("# ")


def test_a_granted_skill_restricts_the_palette_to_its_allowed_tools(
    discovery: dict[str, Any],
) -> None:
    """After request_skill("code-review") the granted write tool is out of reach."""
    assert discovery["skill"] == {"granted": True, "reason": ""}
    assert "read_text_file" in discovery["available"]
    assert "write_text_file" not in discovery["available"]


def test_the_guardrail_refuses_a_high_risk_tool_under_a_medium_limit(
    discovery: dict[str, Any],
) -> None:
    """With max_risk = "medium" in pyproject.toml, delete_file is refused, saying why."""
    assert discovery["granted"] == ["read_text_file", "write_text_file"]
    reason = discovery["refused"]["delete_file"]
    assert "'delete_file' is declared high risk" in reason
    assert "tools of medium risk or lower" in reason
    (outcome,) = discovery["outcomes"]["delete_file"]
    assert outcome["guardrail"] == "hook nucleo.plugins:guard-risk"
    assert outcome["error"] is None
    (granted,) = discovery["outcomes"]["write_text_file"]
    assert granted["verdict"]["granted"] is True
    assert "pyproject.toml [tool.nucleo.guard-risk]" in granted["verdict"]["reason"]


GUARD_BY_CLASS = (
    THINKER
    + """\
class GuardedThinker(FilesThinker):
    pass


class StricterGuardedThinker(GuardedThinker):
    pass


class FreeThinker(FilesThinker):
    pass


hub = ToolHub()
hub.load_plugins()
names = ["read_text_file", "write_text_file", "delete_file"]
emit({
    cls.__name__: sorted(cls(hub=hub).request_tools(names).granted)
    for cls in (GuardedThinker, StricterGuardedThinker, FreeThinker)
})
"""
)


def test_the_guardrail_applies_only_to_the_configured_thinker_classes(
    venv: Venv, workdir: Path
) -> None:
    """nucleo.toml's [guard-risk] limits the matching classes (and subclasses), not others."""
    _write(workdir, "nucleo.toml", '[guard-risk]\nmax_risk = "low"\nthinkers = ["*.Guarded*"]\n')
    # In the same folder nucleo.toml wins: this looser limit must not apply.
    _write(workdir, "pyproject.toml", '[tool.nucleo.guard-risk]\nmax_risk = "high"\n')
    granted = venv.run(GUARD_BY_CLASS, cwd=workdir)
    assert granted == {
        "GuardedThinker": ["read_text_file"],
        "StricterGuardedThinker": ["read_text_file"],
        "FreeThinker": ["delete_file", "read_text_file", "write_text_file"],
    }


BAD_CONFIGURATION = (
    THINKER
    + """\
hub = ToolHub()
hub.load_plugins()
requested = FilesThinker(hub=hub).request_tools(["read_text_file"])
emit({
    "refused": refusals(requested),
    "record": dataclasses.asdict(hub.plugins.record("nucleo.plugins:guard-risk")),
})
"""
)


def test_a_malformed_guard_configuration_refuses_and_is_reported(venv: Venv, workdir: Path) -> None:
    """A bad max_risk refuses as an internal error; the record names the file and the key."""
    _write(workdir, "pyproject.toml", '[tool.nucleo.guard-risk]\nmax_risk = "extreme"\n')
    result = venv.run(BAD_CONFIGURATION, cwd=workdir)
    assert result["refused"] == {"read_text_file": INTERNAL_ERROR}
    (error,) = result["record"]["hook_errors"]
    assert error.startswith("raised in nucleo_admit_tool: GuardRiskConfigError: ")
    assert "pyproject.toml [tool.nucleo.guard-risk]: max_risk must be one of" in error
    assert "'extreme'" in error


BLOCKED_GUARD = (
    THINKER
    + """\
hub = ToolHub()
hub.load_plugins()
requested = FilesThinker(hub=hub).request_tools(["delete_file"])
emit({"records": records(hub), "granted": requested.granted})
"""
)


def test_an_operator_can_block_the_guardrail_from_the_environment(
    venv: Venv, workdir: Path
) -> None:
    """NUCLEO_PLUGINS_BLOCK=guard-risk keeps the guardrail out, so delete_file is granted."""
    _write(workdir, "pyproject.toml", '[tool.nucleo.guard-risk]\nmax_risk = "low"\n')
    result = venv.run(BLOCKED_GUARD, cwd=workdir, env={"NUCLEO_PLUGINS_BLOCK": "guard-risk"})
    statuses = {record["name"]: record["status"] for record in result["records"]}
    assert statuses == {"files": "loaded", "core": "loaded", "guard-risk": "blocked"}
    assert result["granted"] == ["delete_file"]


FILES_AT_WORK = """\
import asyncio
import os
import pathlib

from nucleo_core import CorrectableError, ToolHub, run_tool

hub = ToolHub()
hub.load_plugins()
tools = {pack_tool.provider.name: pack_tool.provider for pack_tool in hub.plugins.pack_tools()}


def call(name, **arguments):
    provider = tools[name]
    try:
        value = asyncio.run(run_tool(provider.create(), provider.parse_input(arguments)))
    except CorrectableError as exc:
        return {"error": type(exc).__name__, "message": str(exc)}
    return {"value": value}


secret = str(pathlib.Path("secret.txt").resolve())
os.symlink(pathlib.Path("..").resolve(), "sandbox/way-out")
calls = {
    "write": call("write_text_file", path="notes/todo.md", text="buy milk\\n"),
    "read": call("read_text_file", path="notes/todo.md"),
    "read cut": call("read_text_file", path="notes/todo.md", max_bytes=3),
    "read zero": call("read_text_file", path="notes/todo.md", max_bytes=0),
    "list": call("list_directory"),
    "list pattern": call("list_directory", path="notes", pattern="*.txt"),
    "climb out": call("read_text_file", path="../secret.txt"),
    "absolute": call("read_text_file", path=secret),
    "through a link": call("read_text_file", path="way-out/secret.txt"),
    "write out": call("write_text_file", path="../../elsewhere.txt", text="x"),
    "delete folder": call("delete_file", path="notes"),
    "delete": call("delete_file", path="notes/todo.md"),
    "read deleted": call("read_text_file", path="notes/todo.md"),
}
del os.environ["NUCLEO_FILES_ROOT"]  # now the root comes from [tool.nucleo.files] root
calls["configured write"] = call("write_text_file", path="from-config.txt", text="hi")
emit(calls)
"""


def test_the_files_tools_work_inside_their_root_and_refuse_to_leave_it(
    venv: Venv, workdir: Path
) -> None:
    """The pack reads, lists, writes and deletes under its root and refuses every way out."""
    (workdir / "sandbox").mkdir()
    (workdir / "data").mkdir()
    _write(workdir, "secret.txt", "do not read")
    _write(workdir, "pyproject.toml", '[tool.nucleo.files]\nroot = "data"\n')
    calls = venv.run(FILES_AT_WORK, cwd=workdir, env={"NUCLEO_FILES_ROOT": "sandbox"})
    assert calls["write"] == {"value": "wrote 9 bytes to notes/todo.md"}
    assert calls["read"] == {"value": "buy milk\n"}
    assert calls["read cut"]["value"].startswith("buy\n[cut: showed the first 3 of 9 bytes")
    assert calls["read zero"]["error"] == "InvalidToolInput"
    assert calls["list"] == {"value": ["notes/", "way-out/"]}
    assert calls["list pattern"] == {"value": []}
    for way_out in ("climb out", "absolute", "through a link", "write out"):
        assert calls[way_out]["error"] == "PathOutsideRoot", way_out
        assert "secret" not in calls[way_out]["message"]  # the model's path is never echoed
    assert not (workdir / "elsewhere.txt").exists()
    assert calls["delete folder"]["error"] == "FileToolError"
    assert calls["delete"] == {"value": "deleted notes/todo.md"}
    assert calls["read deleted"]["error"] == "FileToolError"
    assert calls["configured write"] == {"value": "wrote 2 bytes to from-config.txt"}
    assert (workdir / "data" / "from-config.txt").read_text(encoding="utf-8") == "hi"


# -- (b) a pack installed while the hub is alive ---------------------------------------------

LATE_INSTALL = """\
import os
import subprocess
import sys

from nucleo_core import ThinkerBase, ToolHub, ToolSelector


class NotesThinker(ThinkerBase):
    @classmethod
    def declare_compatible_tools(cls):
        return ToolSelector().add_pack("files").add_pack("notes")


hub = ToolHub()
first = hub.load_plugins()
thinker = NotesThinker(hub=hub)
before = [provider.name for provider in thinker.tool_catalog()]
refused_before = [refusal.name for refusal in thinker.request_tools(["count_words"]).refused]
subprocess.run(
    [
        os.environ["PIP_PYTHON"], "-m", "pip", "--python", sys.executable,
        "install", "--quiet", "--no-index", "--no-deps", os.environ["LATE_WHEEL"],
    ],
    check=True,
)
second = hub.load_plugins()
emit({
    "first": [record.distribution for record in first],
    "second": [(record.distribution, record.status) for record in second],
    "before": before,
    "after": [provider.name for provider in thinker.tool_catalog()],
    "refused before": refused_before,
    "granted after": thinker.request_tools(["count_words"]).granted,
})
"""


def test_a_pack_installed_while_the_hub_is_alive_widens_a_resolved_catalog(
    venv: Venv,
    test_pack_wheels: dict[str, Path],
    tmp_path: Path,
    workdir: Path,
) -> None:
    """After pip install and load_plugins() the new tool ends the same thinker's catalog."""
    late = Venv.layered_on(venv, tmp_path / "late-venv")
    wheel = _wheel(test_pack_wheels, LATE_PACK)
    # The environment has no pip of its own: the suite's pip installs into it, as pip --python.
    result = late.run(
        LATE_INSTALL, cwd=workdir, env={"LATE_WHEEL": str(wheel), "PIP_PYTHON": sys.executable}
    )
    assert sorted(result["first"]) == sorted(FIRST_PARTY)
    assert result["second"] == [["nucleo-late-notes", "loaded"]]
    assert result["before"] == FILES_TOOLS
    assert result["after"] == [*FILES_TOOLS, "count_words"]
    assert result["refused before"] == ["count_words"]
    assert result["granted after"] == ["count_words"]
    # pip installed into the layered environment: the session's environment is untouched.
    assert list(late.site_packages.glob("nucleo_late_notes-*.dist-info"))
    assert not list(venv.site_packages.glob("nucleo_late_notes*"))


# -- (c) broken packs are reported and skipped ---------------------------------------------------

BROKEN_LOAD = (
    THINKER
    + """\
hub = ToolHub()
hub.load_plugins()
thinker = FilesThinker(hub=hub)
catalog = [provider.name for provider in thinker.tool_catalog()]  # asks nucleo_compatible_tools
requested = thinker.request_tools(["read_text_file", "delete_file"])
emit({
    "records": records(hub),
    "catalog": catalog,
    "skills": hub.skills.names(),
    "granted": requested.granted,
    "refused": sorted(refusals(requested)),
})
"""
)


@pytest.fixture(scope="module")
def broken_load(broken_venv: Venv, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What a hub made of the five broken packs beside the three good plugins."""
    result: dict[str, Any] = broken_venv.run(BROKEN_LOAD, cwd=tmp_path_factory.mktemp("broken"))
    return result


@pytest.mark.parametrize("pack", BROKEN_PACKS, ids=lambda pack: pack.kind.replace(" ", "-"))
def test_a_broken_pack_is_reported_with_its_distribution_and_reason(
    broken_load: dict[str, Any], pack: PackSource
) -> None:
    """Each way of breaking is on the pack's record with its distribution, version and reason."""
    (record,) = [r for r in broken_load["records"] if r["distribution"] == pack.distribution]
    assert record["version"] == pack.version
    if record["status"] == "failed":
        assert record["error"].startswith(pack.reason)
        assert record["contributed"] == []
    else:  # a hook failing after a good load: the plugin stays, its failure is recorded
        assert record["status"] == "loaded"
        (failure,) = record["hook_errors"]
        assert failure.startswith(pack.reason)


def test_the_good_plugins_still_load_beside_broken_packs(
    broken_load: dict[str, Any], venv: Venv
) -> None:
    """The three first-party plugins still bring their tools, skills and guardrail."""
    assert not list(venv.site_packages.glob("nucleo_broken*"))  # installed in the layer only
    loaded = {r["distribution"] for r in broken_load["records"] if r["status"] == "loaded"}
    assert set(FIRST_PARTY) <= loaded
    assert broken_load["catalog"] == FILES_TOOLS
    assert broken_load["skills"] == ["code-review", "summarize-files"]
    assert broken_load["granted"] == ["read_text_file"]
    assert broken_load["refused"] == ["delete_file"]


# -- (d) strict makes every failure fatal ------------------------------------------------------

STRICT = """\
import json
import os

from nucleo_core import PluginError, PluginHost, ThinkerBase, ToolHub, ToolSelector


class AnyPackThinker(ThinkerBase):
    @classmethod
    def declare_compatible_tools(cls):
        return ToolSelector().add_pack("*")


errors = {}
for distribution in json.loads(os.environ["DISTRIBUTIONS"]):
    hub = ToolHub(plugins=PluginHost(strict=True, allow=[distribution]))
    try:
        hub.load_plugins()
        AnyPackThinker(hub=hub).tool_catalog()
    except PluginError as exc:
        errors[distribution] = {
            "plugin": exc.plugin, "distribution": exc.distribution, "reason": exc.reason,
            "message": str(exc),
        }
    else:
        errors[distribution] = None
emit(errors)
"""


@pytest.fixture(scope="module")
def strict_errors(broken_venv: Venv, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The PluginError a strict host raised for each broken pack loaded on its own."""
    distributions = [pack.distribution for pack in BROKEN_PACKS]
    result: dict[str, Any] = broken_venv.run(
        STRICT,
        cwd=tmp_path_factory.mktemp("strict"),
        env={"DISTRIBUTIONS": json.dumps(distributions)},
    )
    return result


@pytest.mark.parametrize("pack", BROKEN_PACKS, ids=lambda pack: pack.kind.replace(" ", "-"))
def test_strict_makes_a_broken_pack_fatal(strict_errors: dict[str, Any], pack: PackSource) -> None:
    """A strict host raises PluginError naming the pack's plugin, distribution and reason."""
    error = strict_errors[pack.distribution]
    assert error is not None, f"{pack.distribution} did not fail under strict"
    (entry_point,) = next(iter(pack.entry_points.values())).keys()
    assert error["plugin"] == f"{next(iter(pack.entry_points))}:{entry_point}"
    assert error["distribution"] == pack.distribution
    assert error["reason"].startswith(pack.reason)
    assert error["message"].startswith(
        f"plugin {error['plugin']} (distribution {pack.distribution}): {pack.reason}"
    )


FIRST_PARTY_STRICT = (
    THINKER
    + """\
from nucleo_core import PluginHost

hub = ToolHub(plugins=PluginHost(strict=True))
hub.load_plugins()
requested = FilesThinker(hub=hub).request_tools(["list_directory", "delete_file"])
emit({
    "records": records(hub),
    "granted": requested.granted,
    "refused": sorted(refusals(requested)),
})
"""
)


def test_the_first_party_plugins_pass_a_strict_host(venv: Venv, workdir: Path) -> None:
    """Loading and asking the three plugins under strict=True raises nothing."""
    result = venv.run(FIRST_PARTY_STRICT, cwd=workdir)
    assert {record["status"] for record in result["records"]} == {"loaded"}
    assert all(record["hook_errors"] == [] for record in result["records"])
    assert result["granted"] == ["list_directory"]
    assert result["refused"] == ["delete_file"]  # the default limit is medium
