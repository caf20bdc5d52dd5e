"""`ShadowRecord`: a deliberate replacement, in a registry, of one kind of provider by another."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ShadowRecord"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ShadowRecord:
    """A deliberate replacement of one kind of provider by another under the same name.

    Attributes:
        name: The tool name both providers claim.
        replaced: The source of the provider that was replaced.
        replaced_kind: Its provider class name.
        by: The source of the provider that replaced it.
        by_kind: Its provider class name.
    """

    name: str
    replaced: str
    replaced_kind: str
    by: str
    by_kind: str
