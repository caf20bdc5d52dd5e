"""Tiny plugin distributions written by the tests: one good late pack, and broken ones.

Each is a source tree (a ``pyproject.toml`` with a hatchling backend and one package) that
`_installed_venv.build_wheels` turns into a real wheel, registering through entry points only.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BROKEN_PACKS", "LATE_PACK", "PackSource", "write_pack"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PackSource:
    """A one-package distribution to write and build.

    Attributes:
        distribution: The distribution's name.
        package: Its one import package.
        source: The package's ``__init__.py``.
        entry_points: Entry point group -> name -> value.
        dependencies: What it declares it needs (installed with ``--no-deps`` regardless).
        kind: For broken packs, the failure it shows.
        reason: For broken packs, the start of the reason the host must record.
        version: The distribution's version.
    """

    distribution: str
    package: str
    source: str
    entry_points: Mapping[str, Mapping[str, str]]
    dependencies: Sequence[str] = ()
    kind: str = ""
    reason: str = ""
    version: str = "0.3.1"


def write_pack(pack: PackSource, into: Path) -> Path:
    """Write ``pack``'s source tree under ``into``; return its folder."""
    root = into / pack.distribution
    (root / pack.package).mkdir(parents=True)
    (root / pack.package / "__init__.py").write_text(textwrap.dedent(pack.source), "utf-8")
    dependencies = ", ".join(f'"{name}"' for name in ("nucleo-core", *pack.dependencies))
    sections = [
        textwrap.dedent(
            f"""\
            [build-system]
            requires = ["hatchling>=1.25"]
            build-backend = "hatchling.build"

            [project]
            name = "{pack.distribution}"
            version = "{pack.version}"
            requires-python = ">=3.11"
            dependencies = [{dependencies}]

            [tool.hatch.build.targets.wheel]
            packages = ["{pack.package}"]
            """
        )
    ]
    for group, points in pack.entry_points.items():
        lines = [f'[project.entry-points."{group}"]']
        lines += [f'{name} = "{value}"' for name, value in points.items()]
        sections.append("\n".join(lines) + "\n")
    (root / "pyproject.toml").write_text("\n".join(sections), "utf-8")
    return root


#: A good pack installed while a hub is alive: its one tool must widen a resolved catalog.
LATE_PACK = PackSource(
    distribution="nucleo-late-notes",
    package="nucleo_late_notes",
    entry_points={"nucleo.tools": {"notes": "nucleo_late_notes"}},
    source='''\
        """A pack installed late."""

        from nucleo_core import tool


        @tool(read_only=True, risk="low")
        def count_words(text: str) -> int:
            """Count the words of a text.

            Args:
                text: The text whose whitespace-separated words are counted.
            """
            return len(text.split())
        ''',
)

#: One pack per way a plugin can break; each must be reported and skipped, or fatal if strict.
BROKEN_PACKS = (
    PackSource(
        kind="fails to import",
        distribution="nucleo-broken-import",
        package="nucleo_broken_import",
        entry_points={"nucleo.tools": {"broken-import": "nucleo_broken_import"}},
        source="""\
            raise RuntimeError("settings file missing")
            """,
        reason="failed to import: RuntimeError: settings file missing",
    ),
    PackSource(
        kind="lacks a dependency",
        distribution="nucleo-broken-dependency",
        package="nucleo_broken_dependency",
        entry_points={"nucleo.tools": {"broken-dependency": "nucleo_broken_dependency"}},
        dependencies=("nucleo-absent-dependency",),
        source="""\
            import nucleo_absent_dependency  # declared, never installed (--no-deps)
            """,
        reason="missing dependency: nucleo_absent_dependency",
    ),
    PackSource(
        kind="raises in a hook",
        distribution="nucleo-broken-hook-raises",
        package="nucleo_broken_hook_raises",
        entry_points={"nucleo.plugins": {"broken-hook-raises": "nucleo_broken_hook_raises"}},
        source="""\
            from nucleo_core import hookimpl


            @hookimpl
            def nucleo_system_wide_tools():
                raise RuntimeError("tool index unavailable")
            """,
        reason="raised in nucleo_system_wide_tools: RuntimeError: tool index unavailable",
    ),
    PackSource(
        kind="returns the wrong type from a hook",
        distribution="nucleo-broken-wrong-type",
        package="nucleo_broken_wrong_type",
        entry_points={"nucleo.plugins": {"broken-wrong-type": "nucleo_broken_wrong_type"}},
        source="""\
            from nucleo_core import hookimpl


            @hookimpl
            def nucleo_compatible_tools(thinker_class):
                return 42
            """,
        reason="returned the wrong type from nucleo_compatible_tools:",
    ),
    PackSource(
        kind="names a hook that does not exist",
        distribution="nucleo-broken-unknown-hook",
        package="nucleo_broken_unknown_hook",
        entry_points={"nucleo.plugins": {"broken-unknown-hook": "nucleo_broken_unknown_hook"}},
        source="""\
            from nucleo_core import hookimpl


            @hookimpl
            def nucleo_admit_everything(thinker, provider):
                return None
            """,
        reason="names a hook that does not exist: nucleo_admit_everything",
    ),
)
