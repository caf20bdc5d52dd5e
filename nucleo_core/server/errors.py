"""The server's errors: what is wrong with how it was asked to start, and what a request met.

`ServerConfigError` is for the operator (`nucleo serve` prints it as one ``Error:`` line);
`ApiError` is what a request is answered with: an HTTP status, a stable ``error`` code and a
message that names what is wrong and how to fix it, never the value that was sent.
"""

from __future__ import annotations

from collections.abc import Sequence

from nucleo_core.errors import MisuseError

__all__ = ["ApiError", "ServerConfigError"]


class ServerConfigError(MisuseError):
    """The server cannot start as asked: a public address without consent, an unsafe token."""


class ApiError(Exception):
    """One request's failure, answered as a typed JSON error (`ErrorBody`).

    Attributes:
        status: The HTTP status code.
        code: The stable error code clients branch on (``unknown_tool``, ``permission_denied``).
        message: What is wrong and how to fix it; never echoes a value the client sent.
        problems: Each problem, when there are several (an input's fields).
    """

    def __init__(self, status: int, code: str, message: str, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.problems = tuple(problems)
