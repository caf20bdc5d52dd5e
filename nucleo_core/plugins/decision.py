"""`Decision`: what the permission guard decides about one tool call, ordered by restriction.

It lives beside `Verdict` (the admission hooks' answer) because it is the ``nucleo_permission``
hook's answer, and hook specifications may name only what this layer or the layers above it
define; the guard (``nucleo_core.guard``) re-exports it.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Decision", "checked_decision"]


class Decision(StrEnum):
    """How a tool call may proceed, from the least restrictive to the most.

    - ``auto``: it runs.
    - ``notify``: it runs, and the configured notifiers are told.
    - ``confirm``: it runs only once approved.
    - ``deny``: it does not run; the model reads a correctable refusal.

    Decisions compare by restriction, not alphabetically: ``auto < notify < confirm < deny``.
    A decision compares with another decision or with one of the four strings; anything else
    raises `TypeError` (a comparison with an unknown string would otherwise fall back to
    alphabetical order, where ``"deny" < "notify"``).
    """

    AUTO = "auto"
    NOTIFY = "notify"
    CONFIRM = "confirm"
    DENY = "deny"

    @property
    def rank(self) -> int:
        """Its place in the order: 0 for ``auto`` up to 3 for ``deny``."""
        return _RANK[self]

    @classmethod
    def most_restrictive(cls, first: Decision | str, *others: Decision | str) -> Decision:
        """The most restrictive of the decisions given (``deny`` over everything).

        Raises:
            ValueError: One of them is not a decision name.
        """
        return max((checked_decision(first), *(checked_decision(other) for other in others)))

    def __lt__(self, other: object) -> bool:
        return self.rank < _rank_of(other)

    def __le__(self, other: object) -> bool:
        return self.rank <= _rank_of(other)

    def __gt__(self, other: object) -> bool:
        return self.rank > _rank_of(other)

    def __ge__(self, other: object) -> bool:
        return self.rank >= _rank_of(other)


_RANK: dict[str, int] = {"auto": 0, "notify": 1, "confirm": 2, "deny": 3}

#: The decision names, in order of restriction, for messages.
_NAMES = ", ".join(f'"{name}"' for name in _RANK)


def _rank_of(other: object) -> int:
    if isinstance(other, str) and other in _RANK:
        return _RANK[other]
    raise TypeError(
        f"a Decision compares only with a Decision or one of {_NAMES}, not {type(other).__name__}"
    )


def checked_decision(value: object) -> Decision:
    """``value`` as a `Decision`: a `Decision`, or exactly one of its four names.

    Only an exact string decides (``"deny"``, not ``"Deny"`` or ``" deny"``): an answer that
    needs guessing is a malformed answer, which the guard treats as a denial.

    Raises:
        TypeError: ``value`` is not a string.
        ValueError: ``value`` is a string but not one of the four names.
    """
    if isinstance(value, Decision):
        return value
    if not isinstance(value, str):
        raise TypeError(f"expected a Decision or one of {_NAMES}, got {type(value).__name__}")
    # str() first: a str subclass could override __eq__/__hash__ to pass the lookup.
    plain = str.__str__(value)
    if plain not in _RANK:
        raise ValueError(f"expected one of {_NAMES}")
    return Decision(plain)
