"""Reading skills: one folder (`load_skill`), a folder of them (`skills_in`), a package's.

Every function reads paths and ``importlib.resources`` traversables alike, so skills inside an
installed wheel or a zip are read the same way as skills on disk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nucleo_core.skills._front_matter import read_skill_document
from nucleo_core.skills._resources import FolderLike, as_traversable, describe, resource_files
from nucleo_core.skills.errors import SkillFormatError
from nucleo_core.skills.scan import SkillProblem, SkillScan
from nucleo_core.skills.skill import Skill

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = ["SKILL_FILE_NAME", "load_skill", "skills_in", "skills_in_package"]

#: The file every skill folder holds: YAML front matter, then Markdown instructions.
SKILL_FILE_NAME = "SKILL.md"


def load_skill(folder: FolderLike, *, bundle: str = "") -> Skill:
    """Read the skill in ``folder`` (a folder holding ``SKILL.md``).

    The folder may be a path or an ``importlib.resources`` traversable, so a skill inside an
    installed wheel or a zip is read the same way as one on disk. Only ``SKILL.md`` is read;
    ``scripts/``, ``references/`` and ``assets/`` stay where they are, for the skill's own
    instructions to point at; their paths are listed in `Skill.resources`, for an attached
    skill to tell the model (which reads them with ``read_skill_file``). Front matter fields
    the Agent Skills specification does not define are kept in `Skill.extra`, and Claude
    Code's ``disable-model-invocation`` is read into `Skill.disable_model_invocation`.

    Args:
        folder: The skill's folder, whose name must equal the skill's name.
        bundle: The bundle id to give the skill (the dotted name of the package holding it).

    Returns:
        The skill, with its front matter checked against the specification.

    Raises:
        SkillFormatError: The folder breaks the Agent Skills layout; the error names the file
            and says what is wrong and how to fix it.
        OSError: The folder or its ``SKILL.md`` exists but could not be read.
    """
    root = as_traversable(folder)
    where = describe(root)
    if not root.is_dir():
        raise SkillFormatError(
            where, f"it is not a folder; a skill is a folder holding a {SKILL_FILE_NAME} file"
        )
    skill_file = root.joinpath(SKILL_FILE_NAME)
    if not skill_file.is_file():
        raise SkillFormatError(
            where,
            f"the folder holds no {SKILL_FILE_NAME}; add one (the name is upper case), starting "
            "with YAML front matter between '---' lines that gives the skill's 'name' and "
            "'description', followed by its instructions in Markdown",
        )
    file_where = describe(skill_file)
    try:
        text = skill_file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SkillFormatError(
            file_where, f"{SKILL_FILE_NAME} is not UTF-8 text; save it as UTF-8"
        ) from exc
    document = read_skill_document(text, location=file_where, folder_name=root.name)
    return Skill(
        name=document.name,
        description=document.description,
        instructions=document.instructions,
        bundle=bundle,
        allowed_tools=document.allowed_tools,
        license=document.license,
        compatibility=document.compatibility,
        metadata=document.metadata,
        location=where,
        disable_model_invocation=document.disable_model_invocation,
        extra=document.extra,
        resources=_listed_resources(root),
        root=root,
    )


def _listed_resources(root: Traversable) -> tuple[str, ...]:
    """The skill's files besides its ``SKILL.md``; an unreadable folder lists what it can."""
    try:
        return tuple(path for path in resource_files(root) if path != SKILL_FILE_NAME)
    except OSError:
        return ()


def skills_in(source: FolderLike, *, bundle: str = "") -> SkillScan:
    """Read every skill folder directly inside ``source``.

    Each sub-folder is read with `load_skill`; one that is malformed (or unreadable) is
    skipped and reported in `SkillScan.problems`, so one bad skill never hides the others.
    Files, and folders whose names start with ``.`` or ``_`` (``__pycache__`` in a package),
    are not skill folders and are passed over silently. This function does not raise for what
    it finds: a ``source`` that is not a readable folder is reported as a problem too.

    Args:
        source: A folder holding skill folders: a path, or an ``importlib.resources``
            traversable (which may live inside a wheel or a zip).
        bundle: The bundle id to give every skill found.
    """
    root = as_traversable(source)
    try:
        if not root.is_dir():
            return SkillScan(
                problems=(
                    SkillProblem(
                        describe(root),
                        "it is not a folder; skills are read from a folder holding one folder "
                        "per skill",
                    ),
                )
            )
        folders = sorted(
            (
                entry
                for entry in root.iterdir()
                if not entry.name.startswith((".", "_")) and entry.is_dir()
            ),
            key=lambda entry: entry.name,
        )
    except OSError as exc:
        return SkillScan(problems=(SkillProblem(describe(root), _unreadable(exc)),))
    skills: list[Skill] = []
    problems: list[SkillProblem] = []
    for folder in folders:
        try:
            skills.append(load_skill(folder, bundle=bundle))
        except SkillFormatError as exc:
            problems.append(SkillProblem(exc.location, exc.reason))
        except OSError as exc:
            problems.append(SkillProblem(describe(folder), _unreadable(exc)))
    return SkillScan(skills=tuple(skills), problems=tuple(problems))


def skills_in_package(package: str) -> SkillScan:
    """Read every skill folder in an importable package, with the package name as bundle id.

    This is how a ``nucleo.skills`` entry point naming a package is read. The package's
    resources are read through ``importlib.resources``, so it works as well from an installed
    wheel, a zip on ``sys.path`` or a namespace package as from a source tree.

    Args:
        package: The dotted name of the package holding the skill folders.

    Raises:
        ModuleNotFoundError: The package cannot be imported.
    """
    from importlib.resources import files

    return skills_in(files(package), bundle=package)


def _unreadable(exc: OSError) -> str:
    detail = exc.strerror or type(exc).__name__
    return f"it could not be read ({detail}); check that it exists and is readable"
