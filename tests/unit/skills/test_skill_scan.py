"""Unit tests of `skills_in` and `skills_in_package`: folders of skills, on disk and in zips."""

import importlib.metadata
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from _skill_folders import front_matter, write_skill, write_valid_skill
from hypothesis import given
from hypothesis import strategies as st

from nucleo_core.skills import SkillProblem, SkillScan, skills_in, skills_in_package


def test_skills_are_returned_sorted_by_folder_name(tmp_path: Path) -> None:
    """Whatever order the filesystem lists them in, a scan's skills are sorted by folder name."""
    for name in ["zeta", "alpha", "mid-way", "beta2"]:
        write_valid_skill(tmp_path, name)

    scan = skills_in(tmp_path, bundle="acme.skills")

    assert [skill.name for skill in scan.skills] == ["alpha", "beta2", "mid-way", "zeta"]
    assert {skill.bundle for skill in scan.skills} == {"acme.skills"}
    assert scan.problems == ()


def test_a_malformed_skill_is_skipped_and_reported_without_hiding_the_others(
    tmp_path: Path,
) -> None:
    """One bad folder becomes a problem with its location and reason; the good ones are read."""
    write_valid_skill(tmp_path, "good-one")
    write_skill(tmp_path, "bad-name", front_matter("Bad_Name"))
    write_skill(tmp_path, "no-file", None)
    write_valid_skill(tmp_path, "good-two")

    scan = skills_in(tmp_path)

    assert [skill.name for skill in scan.skills] == ["good-one", "good-two"]
    assert [Path(problem.location) for problem in scan.problems] == [
        tmp_path / "bad-name" / "SKILL.md",
        tmp_path / "no-file",
    ]
    assert "not a valid skill name" in scan.problems[0].reason
    assert "holds no SKILL.md" in scan.problems[1].reason


def test_files_and_hidden_or_private_folders_are_not_skill_folders(tmp_path: Path) -> None:
    """Loose files, dot-folders and underscore folders (__pycache__) are passed over silently."""
    write_valid_skill(tmp_path, "only-skill")
    (tmp_path / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "README.md").write_text("# skills\n", encoding="utf-8")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / ".git").mkdir()
    (tmp_path / "_drafts").mkdir()

    scan = skills_in(tmp_path)

    assert [skill.name for skill in scan.skills] == ["only-skill"]
    assert scan.problems == ()


def test_a_source_given_as_a_string_is_scanned(tmp_path: Path) -> None:
    """skills_in takes a plain string path."""
    write_valid_skill(tmp_path, "by-string")

    assert [skill.name for skill in skills_in(str(tmp_path)).skills] == ["by-string"]


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_a_source_that_is_not_a_folder_is_a_problem_not_an_exception(
    tmp_path: Path, kind: str
) -> None:
    """A missing source, or a file, is reported as the scan's only problem."""
    source = tmp_path / "skills"
    if kind == "file":
        source.write_text("", encoding="utf-8")

    scan = skills_in(source)

    assert scan.skills == ()
    assert scan.problems == (
        SkillProblem(
            str(source),
            "it is not a folder; skills are read from a folder holding one folder per skill",
        ),
    )


def test_an_empty_folder_yields_an_empty_scan(tmp_path: Path) -> None:
    """A folder without skill folders is an empty scan, not a problem."""
    assert skills_in(tmp_path) == SkillScan()


def test_a_problem_reads_as_its_location_and_reason() -> None:
    """str(SkillProblem) is 'location: reason', ready for a log line."""
    assert str(SkillProblem("skills/x/SKILL.md", "it is wrong")) == "skills/x/SKILL.md: it is wrong"


def test_an_unreadable_skill_file_is_a_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SKILL.md that cannot be read (an OSError) is reported like a malformed one."""
    write_valid_skill(tmp_path, "fine")
    locked = write_valid_skill(tmp_path, "locked")
    original = Path.read_text

    def read_text(self: Path, *args: Any, **kwargs: Any) -> str:
        if self.parent == locked:
            raise PermissionError(13, "Permission denied", str(self))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text)

    scan = skills_in(tmp_path)

    assert [skill.name for skill in scan.skills] == ["fine"]
    assert scan.problems == (
        SkillProblem(
            str(locked),
            "it could not be read (Permission denied); check that it exists and is readable",
        ),
    )


# -- never raising, whatever SKILL.md holds -----------------------------------------------------

plain_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=300)
yaml_ish = st.lists(
    st.sampled_from(
        [
            "name: any-skill",
            "name: Any",
            "description: something",
            "description:",
            "allowed-tools: [a, 1]",
            "allowed-tools: a b",
            "metadata: {a: 1}",
            "metadata:",
            "  k: v",
            "- item",
            "  - nested",
            "compatibility: !!int x",
            "license: {}",
            "when: 2001-02-30",
            "? [a]",
            ": b",
            "&a x",
            "*a",
            "*missing",
            "'unclosed",
            "\t",
            "---",
            "...",
            "%YAML 1.1",
            "!!binary ZZZ",
            "<<: 3",
        ]
    )
    | plain_text,
    max_size=8,
).map(lambda lines: "---\n" + "\n".join(lines) + "\n---\nBody\n")


@given(st.one_of(plain_text, yaml_ish, st.binary(max_size=200)))
def test_skills_in_never_raises_for_any_skill_file(content: str | bytes) -> None:
    """Whatever a SKILL.md holds, the scan returns a skill or a problem for it, never raises."""
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        write_skill(root, "any-skill", content)
        write_valid_skill(root, "zz-control")

        scan = skills_in(root)

    assert len(scan.skills) + len(scan.problems) == 2
    assert scan.skills[-1].name == "zz-control"
    for problem in scan.problems:
        assert problem.location.endswith("SKILL.md")
        assert "Traceback" not in problem.reason


# -- packages, from a source tree and from a zip or wheel ---------------------------------------

SKILLJAR = "nucleo_test_skilljar"


@pytest.fixture
def forget_skilljar() -> Iterator[None]:
    """Drop the test skilljar from sys.modules afterwards, so each test imports its own."""
    yield
    for name in [name for name in sys.modules if name.split(".")[0] == SKILLJAR]:
        del sys.modules[name]


def _skilljar_files() -> dict[str, str]:
    """The files of a tiny skilljar package: two skills, one broken folder, a reference file."""
    return {
        f"{SKILLJAR}/__init__.py": "",
        f"{SKILLJAR}/summarize/SKILL.md": front_matter("summarize") + "Summarize briefly.\n",
        f"{SKILLJAR}/summarize/references/style.md": "# House style\n",
        f"{SKILLJAR}/translate/SKILL.md": front_matter("translate", allowed_tools="lookup"),
        f"{SKILLJAR}/broken/SKILL.md": "no front matter\n",
    }


def _write_wheel(folder: Path) -> Path:
    """A wheel of the skilljar, zipped by hand, whose ``nucleo.skills`` entry point names it."""
    dist_info = f"{SKILLJAR}-1.0.dist-info"
    contents = _skilljar_files() | {
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {SKILLJAR}\nVersion: 1.0\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist_info}/entry_points.txt": f"[nucleo.skills]\ntest-skilljar = {SKILLJAR}\n",
        f"{dist_info}/RECORD": "",
    }
    wheel = folder / f"{SKILLJAR}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in contents.items():
            archive.writestr(name, text)
    return wheel


def test_a_package_on_disk_is_scanned_with_its_name_as_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forget_skilljar: None
) -> None:
    """skills_in_package reads the skill folders of an importable package, bundle = its name."""
    for name, text in _skilljar_files().items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))

    scan = skills_in_package(SKILLJAR)

    assert [(skill.name, skill.bundle) for skill in scan.skills] == [
        ("summarize", SKILLJAR),
        ("translate", SKILLJAR),
    ]
    assert [Path(problem.location).parent.name for problem in scan.problems] == ["broken"]


def test_a_skilljar_wheel_is_read_through_its_entry_point_without_a_filesystem_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forget_skilljar: None
) -> None:
    """A skilljar imported from a wheel (zipimport) is found by entry point and read in place."""
    monkeypatch.syspath_prepend(str(_write_wheel(tmp_path)))

    (entry_point,) = importlib.metadata.entry_points(group="nucleo.skills", name="test-skilljar")
    resources = files(entry_point.value)
    scan = skills_in_package(entry_point.value)

    assert not isinstance(resources, Path)  # a zip member: no filesystem path to fall back on
    assert [skill.name for skill in scan.skills] == ["summarize", "translate"]
    summarize, translate = scan.skills
    assert summarize.instructions == "Summarize briefly."
    assert summarize.bundle == SKILLJAR
    assert ".whl" in summarize.location
    assert translate.allowed_tools == ("lookup",)
    assert len(scan.problems) == 1
    assert scan.problems[0].location.endswith("broken/SKILL.md")
    assert "does not start with YAML front matter" in scan.problems[0].reason


def test_a_zip_traversable_is_scanned_directly(tmp_path: Path) -> None:
    """skills_in takes a zipfile.Path (any Traversable), not only filesystem paths."""
    archive = _write_wheel(tmp_path)

    scan = skills_in(zipfile.Path(archive, f"{SKILLJAR}/"), bundle="zipped")

    assert [(skill.name, skill.bundle) for skill in scan.skills] == [
        ("summarize", "zipped"),
        ("translate", "zipped"),
    ]


def test_a_package_that_cannot_be_imported_raises_module_not_found() -> None:
    """Naming a package that is not installed is the caller's error, raised as such."""
    with pytest.raises(ModuleNotFoundError):
        skills_in_package("nucleo_no_such_skilljar")


def test_importing_the_skills_layer_does_not_import_yaml() -> None:
    """PyYAML is imported when the first SKILL.md is read, never by an import of nucleo_core."""
    program = "import sys\nimport nucleo_core, nucleo_core.skills\nprint('yaml' in sys.modules)\n"
    completed = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=120
    )
    assert completed.stdout.strip() == "False"
