"""The errors of the audit record, placed in nucleo's one hierarchy.

::

    MisuseError
    └── AuditError                  the audit record cannot be used as asked
        ├── AuditConfigError        ``[tool.nucleo.guard.audit]`` (or ``[guard.audit]`` of
        │                           ``nucleo.toml``) is malformed; names the file and the key
        ├── AuditStoreError         the store cannot be opened, read or written (missing,
        │                           corrupt, of a later schema, locked past its timeout, closed)
        └── AuditValueError         an event holds a value with no canonical JSON form, or a
                                    kind, outcome or decision the record does not know

An audit error is meant for the developer or the operator, never for a model: the call door
answers a model with its own correctable refusal, and keeps this error for its record.
"""

from __future__ import annotations

from nucleo_core._error_roots import MisuseError

__all__ = ["AuditConfigError", "AuditError", "AuditStoreError", "AuditValueError"]


class AuditError(MisuseError):
    """Base class of the audit record's errors."""


class AuditConfigError(AuditError):
    """The audit's configuration is malformed; the message names the file and the key."""


class AuditStoreError(AuditError):
    """The audit store cannot be opened, read or written; the message says which and why."""


class AuditValueError(AuditError, TypeError):
    """An event cannot be recorded as given: the message names the field and the type.

    A `TypeError` too, since it is most often a value of a type with no canonical JSON form;
    the value itself is never quoted (it may be a secret).
    """
