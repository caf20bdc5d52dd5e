"""A fake site directory: real distributions (``*.dist-info``) that importlib.metadata finds.

No wheel is built: a ``<name>-<version>.dist-info`` folder holding ``METADATA`` and
``entry_points.txt`` next to the plugin's modules is all ``importlib.metadata`` needs, once
the folder is on ``sys.path``.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest


class FakeSite:
    """A folder on ``sys.path`` to which distributions and modules are added."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = root
        self._monkeypatch = monkeypatch
        self._top_level: set[str] = set()
        root.mkdir(parents=True, exist_ok=True)
        monkeypatch.syspath_prepend(str(root))

    def module(self, dotted: str, source: str = "") -> None:
        """Write module ``dotted`` (packages on the way get an empty ``__init__.py``)."""
        parts = dotted.split(".")
        self._top_level.add(parts[0])
        folder = self.root
        for part in parts[:-1]:
            folder = folder / part
            folder.mkdir(exist_ok=True)
            init = folder / "__init__.py"
            if not init.exists():
                init.write_text("")
        (folder / f"{parts[-1]}.py").write_text(textwrap.dedent(source))

    def package(self, dotted: str, source: str = "") -> Path:
        """Write package ``dotted`` with ``source`` as its ``__init__.py``; return its folder."""
        self.module(f"{dotted}.__init__", source)
        return self.root.joinpath(*dotted.split("."))

    def distribution(
        self,
        name: str,
        entry_points: Mapping[str, Mapping[str, str]],
        *,
        version: str = "1.0",
        modules: Mapping[str, str] | None = None,
    ) -> None:
        """Add distribution ``name`` declaring ``entry_points`` (group -> name -> value)."""
        for dotted, source in (modules or {}).items():
            self.module(dotted, source)
        info = self.root / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        sections = []
        for group, points in entry_points.items():
            lines = [f"[{group}]", *(f"{key} = {value}" for key, value in points.items())]
            sections.append("\n".join(lines))
        (info / "entry_points.txt").write_text("\n\n".join(sections) + "\n")

    def forget_modules(self) -> None:
        """Drop every module imported from this site, so no test sees another's plugins."""
        for name in list(sys.modules):
            if name.split(".")[0] in self._top_level:
                del sys.modules[name]


def fake_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeSite]:
    """Yield a fresh fake site, and forget its modules afterwards."""
    site = FakeSite(tmp_path / "site", monkeypatch)
    try:
        yield site
    finally:
        site.forget_modules()
