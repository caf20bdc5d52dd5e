"""Declared risk: how much harm a tool's call can do, as its author says."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Risk"]


class Risk(StrEnum):
    """The risk a tool declares.

    Risk is declared, never inferred: a tool that declares none counts as ``HIGH``. A name is not
    evidence about an effect (a tool called ``dispatch_agent`` contains no risky-sounding word
    and still spawns runs that write files).
    """

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
