"""The model catalog: named entries with their limits, and which entry serves each grade."""

from __future__ import annotations

import logging
import os
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nucleo_core._project_table import nearest_config, read_table
from nucleo_core.errors import ModelNotConfigured
from nucleo_core.models._entry import PROVIDERS, ModelEntry
from nucleo_core.models.declaration import ThinkerDeclaration

if TYPE_CHECKING:
    import asyncio

    from nucleo_core.models.client import ModelClient

__all__ = ["PROVIDERS", "Grade", "ModelCatalog", "ModelEntry"]

logger = logging.getLogger("nucleo.models")


class Grade(StrEnum):
    """How capable a model a thinker needs. A catalog maps each grade to one entry."""

    FAST = "fast"
    STANDARD = "standard"
    STRONG = "strong"


class ModelCatalog:
    """Named model entries and the entry each grade maps to.

    Read from ``[tool.nucleo.models]`` of ``pyproject.toml`` or ``[models]`` of ``nucleo.toml``
    (`discover`), or built in code. A pin (an entry id) beats the grade: `resolve` seats a
    thinker on the pinned entry whatever its declaration says.

    Example:
        >>> catalog = ModelCatalog(grades={"standard": "anthropic:claude-sonnet-4-5"})
        >>> catalog.resolve(ThinkerDeclaration(grade="standard")).model
        'claude-sonnet-4-5'
    """

    def __init__(
        self,
        entries: Iterable[ModelEntry] = (),
        *,
        grades: Mapping[str, str] | None = None,
    ) -> None:
        self._entries: dict[str, ModelEntry] = {}
        self._grades: dict[str, str] = {}
        # Adapters hold connection pools bound to the event loop that used them, so clients are
        # kept per loop; a loop that is gone takes its clients' cache entry with it.
        self._clients: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, ModelClient]
        ] = weakref.WeakKeyDictionary()
        # Entries whose server was asked for its context window: each is asked once.
        self._asked_window: set[str] = set()
        for entry in entries:
            self.add(entry)
        for grade, entry_id in (grades or {}).items():
            self.assign(grade, entry_id)

    def add(self, entry: ModelEntry) -> None:
        """Add (or replace) an entry."""
        self._entries[entry.id] = entry

    def assign(self, grade: str, entry_id: str) -> None:
        """Map ``grade`` to the entry ``entry_id`` (parsed with default limits if not added)."""
        self._grades[str(grade)] = self.entry(entry_id).id

    def entry(self, entry_id: str) -> ModelEntry:
        """The entry of that id; an id not added is parsed with default limits and kept.

        Raises:
            ModelNotConfigured: The id is malformed.
        """
        found = self._entries.get(entry_id)
        if found is None:
            found = self._entries[entry_id] = ModelEntry.parse(entry_id)
        return found

    @property
    def entries(self) -> Mapping[str, ModelEntry]:
        """Every entry, by id."""
        return dict(self._entries)

    @property
    def grades(self) -> Mapping[str, str]:
        """Each grade's entry id."""
        return dict(self._grades)

    def resolve(self, declaration: ThinkerDeclaration, pin: str | None = None) -> ModelEntry:
        """The entry a thinker is seated on: the pin when there is one, else its grade's entry.

        Raises:
            ModelNotConfigured: No pin, and no entry is assigned to the declared grade.
        """
        if pin is not None:
            return self.entry(pin)
        grade = str(declaration.grade)
        entry_id = self._grades.get(grade)
        if entry_id is None:
            raise ModelNotConfigured(
                f"No model is assigned to grade {grade!r}. Add it under "
                f"[tool.nucleo.models.grades] in pyproject.toml (e.g. "
                f'{grade} = "anthropic:claude-sonnet-4-5"), under [models.grades] in nucleo.toml, '
                "or with ModelCatalog.assign(); or pin a model."
            )
        return self._entries[entry_id]

    def client_for(self, entry: ModelEntry) -> ModelClient:
        """A client for ``entry``.

        The client `override_client` installed, if any; else the adapter this catalog keeps
        for the entry on the running event loop, made on first use.

        Raises:
            ModelNotConfigured: The provider's SDK is not installed or its key is missing.
        """
        from nucleo_core.models.seam import current_override

        override = current_override()
        if override is not None:
            return override
        import asyncio  # here: asyncio costs ~15 ms at `import nucleo_core`

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return self._new_client(entry)
        clients = self._clients.setdefault(loop, {})
        client = clients.get(entry.id)
        if client is None:
            client = clients[entry.id] = self._new_client(entry)
        return client

    async def learn_context_window(self, entry: ModelEntry) -> ModelEntry:
        """``entry`` with the context window its server says, when it has none configured.

        For an ``openai-compatible`` entry whose ``context_window`` is not set, the server is
        asked once (per entry and catalog) through the catalog's client
        (`OpenAIChatClient.context_window`: vLLM's, llama.cpp's and Ollama's listings); the
        window it says replaces the default in this catalog, and is logged at ``INFO`` on
        ``nucleo.models``. A server that says nothing (or cannot be asked) leaves the default,
        and that is logged at ``INFO`` too; the first context overflow then says how to set it.
        Nothing is asked while `override_client` installs a client (tests), nor for other
        providers, whose windows are the model's own.

        Returns:
            The entry as this catalog now holds it.
        """
        from nucleo_core.models.seam import current_override

        if (
            entry.provider != "openai-compatible"
            or entry.context_window_source != "default"
            or entry.id in self._asked_window
            or current_override() is not None
        ):
            return self._entries.get(entry.id, entry)
        self._asked_window.add(entry.id)
        tell = getattr(self.client_for(entry), "context_window", None)
        window = await tell(entry.model) if callable(tell) else None
        if not isinstance(window, int):
            logger.info(
                "%s: the server does not say its context window; assuming %d tokens (set "
                "context_window in the model entry to the server's)",
                entry.id,
                entry.context_window,
            )
            return self._entries.get(entry.id, entry)
        learned = replace(entry, context_window=window, context_window_source="server")
        logger.info("%s: the server says its context window is %d tokens", entry.id, window)
        if self._entries.get(entry.id) is entry:
            self._entries[entry.id] = learned
        return learned

    async def aclose(self) -> None:
        """Close the clients this catalog made on the running event loop."""
        import asyncio

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # pragma: no cover - aclose is awaited, so a loop runs
            return
        for client in self._clients.pop(loop, {}).values():
            await client.aclose()

    @staticmethod
    def _new_client(entry: ModelEntry) -> ModelClient:
        if entry.provider == "anthropic":
            from nucleo_core.models.anthropic import AnthropicClient

            return AnthropicClient(
                base_url=entry.base_url, timeout=entry.timeout, max_retries=entry.retries
            )
        from nucleo_core.models.openai import OpenAIChatClient

        return OpenAIChatClient(
            base_url=entry.base_url,
            provider="openai" if entry.provider == "openai" else "openai-compatible",
            timeout=entry.timeout,
            max_retries=entry.retries,
        )

    # -- configuration ------------------------------------------------------------------------

    @classmethod
    def from_mapping(
        cls, table: Mapping[str, Any], *, origin: str = "configuration"
    ) -> ModelCatalog:
        """Build a catalog from a ``[models]`` table: ``grades`` and ``entries`` sub-tables.

        Raises:
            ModelNotConfigured: The table is malformed; the message names ``origin`` and the key.
        """
        unknown = set(table) - {"grades", "entries"}
        if unknown:
            raise ModelNotConfigured(
                f"{origin}: unknown key(s) {', '.join(sorted(unknown))} in the models table; "
                "allowed: grades, entries"
            )
        catalog = cls()
        entries = table.get("entries", {})
        if not isinstance(entries, Mapping):
            raise ModelNotConfigured(f"{origin}: models.entries must be a table of entry tables")
        for entry_id, limits in entries.items():
            if not isinstance(limits, Mapping):
                raise ModelNotConfigured(f"{origin}: models.entries.{entry_id!r} must be a table")
            try:
                catalog.add(ModelEntry.parse(entry_id, **dict(limits)))
            except ModelNotConfigured as exc:
                raise ModelNotConfigured(f"{origin}: {exc}") from None
        grades = table.get("grades", {})
        if not isinstance(grades, Mapping) or not all(isinstance(v, str) for v in grades.values()):
            raise ModelNotConfigured(
                f"{origin}: models.grades must map grade names to entry ids, e.g. standard = "
                '"anthropic:claude-sonnet-4-5"'
            )
        for grade, entry_id in grades.items():
            try:
                catalog.assign(grade, entry_id)
            except ModelNotConfigured as exc:
                raise ModelNotConfigured(f"{origin}: models.grades.{grade}: {exc}") from None
        return catalog

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> ModelCatalog:
        """Read a catalog from a ``nucleo.toml`` or ``pyproject.toml`` file.

        ``nucleo.toml`` holds it under ``[models]``, ``pyproject.toml`` under
        ``[tool.nucleo.models]``; a file without that table gives an empty catalog.

        Raises:
            ModelNotConfigured: The file is not valid TOML or the table is malformed.
        """
        table, origin = read_table(path, "models", ModelNotConfigured)
        return cls.from_mapping(table or {}, origin=origin)

    @classmethod
    def discover(cls, start: str | os.PathLike[str] | None = None) -> ModelCatalog:
        """The catalog configured nearest to ``start`` (the working directory), going up.

        In each folder a ``nucleo.toml`` wins; else a ``pyproject.toml`` counts when it has a
        ``[tool.nucleo.models]`` table. Nothing found gives an empty catalog.
        """

        def configured(file: Path) -> ModelCatalog | None:
            catalog = cls.from_file(file)
            return catalog if catalog.entries or catalog.grades else None

        found, _ = nearest_config(start, configured)
        return found if found is not None else cls()
