"""The roots of nucleo's one error hierarchy: `NucleoError`, `CorrectableError`, `MisuseError`.

`nucleo_core.errors` is where they are imported from (and documented, with the whole tree);
they are defined here, below it, so that the errors of a store can derive from `MisuseError`
while `nucleo_core.errors` names that store's records (`RunPaused` carries an
`ApprovalRecord`) without the two modules importing each other. Each keeps
``nucleo_core.errors`` as its module, where a traceback, a pickle or an audit record names it.
"""

from __future__ import annotations

__all__ = ["CorrectableError", "MisuseError", "NucleoError"]


class NucleoError(Exception):
    """Base class of every error nucleo raises on purpose."""

    __module__ = "nucleo_core.errors"


class CorrectableError(NucleoError):
    """An error whose message is written for the model, so that it can correct its next call."""

    __module__ = "nucleo_core.errors"


class MisuseError(NucleoError):
    """A mistake in the developer's code or configuration."""

    __module__ = "nucleo_core.errors"
