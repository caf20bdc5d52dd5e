"""The guard layer's errors.

::

    NucleoError
    └── MisuseError
        └── GuardConfigError    a permission rule, a default map or a [guard] table is
                                malformed (where, which key, and the allowed values named)

What the *model* reads when a call is denied is never an exception of this module: it is the
`PermissionDecision`'s reason, which the call door turns into a correctable refusal.
"""

from __future__ import annotations

from nucleo_core.errors import MisuseError

__all__ = ["GuardConfigError"]


class GuardConfigError(MisuseError):
    """The permission policy is misconfigured, in code or in a file.

    The message names where (the file and table, or ``PermissionRule``), the key, and the
    values it allows.
    """
