"""`ThinkerDeclaration`: the seat every thinker declares (grade and answer size)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from nucleo_core.errors import MisuseError

__all__ = ["AnswerSize", "ThinkerDeclaration"]


class AnswerSize(StrEnum):
    """How long a thinker's answers are expected to be; sets the first answer budget."""

    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"

    @property
    def tokens(self) -> int:
        """The first answer budget, in tokens, before any truncation escalation."""
        return _TOKENS[self]


_TOKENS = {AnswerSize.SHORT: 1_024, AnswerSize.MEDIUM: 4_096, AnswerSize.LONG: 16_384}


@dataclass(frozen=True, slots=True)
class ThinkerDeclaration:
    """What a thinker declares about its seat: the model grade and the answer size.

    Required by every thinker constructor: there is no undeclared thinker. The grade picks the
    catalog entry (unless a pin overrides it); the answer size picks the first answer budget.

    Attributes:
        grade: A grade name the catalog maps to an entry (``"fast"``, ``"standard"``,
            ``"strong"`` or one of the project's own).
        answer_size: ``AnswerSize`` (or its value, ``"short"``), or an explicit token budget.
    """

    grade: str
    answer_size: AnswerSize | int | str

    def __post_init__(self) -> None:
        if isinstance(self.answer_size, str) and not isinstance(self.answer_size, AnswerSize):
            try:
                object.__setattr__(self, "answer_size", AnswerSize(self.answer_size))
            except ValueError:
                raise MisuseError(
                    "ThinkerDeclaration.answer_size must be one of "
                    + ", ".join(repr(size.value) for size in AnswerSize)
                    + " or a positive token count"
                ) from None
        if not isinstance(self.grade, str) or not self.grade:
            raise MisuseError("ThinkerDeclaration.grade must be a non-empty grade name")
        size = self.answer_size
        if (
            isinstance(size, bool)
            or not isinstance(size, AnswerSize | int)
            or (not isinstance(size, AnswerSize) and size <= 0)
        ):
            raise MisuseError(
                "ThinkerDeclaration.answer_size must be an AnswerSize or a positive token count"
            )

    @property
    def answer_tokens(self) -> int:
        """The first answer budget, in tokens."""
        size = self.answer_size
        if isinstance(size, AnswerSize):
            return size.tokens
        assert isinstance(size, int)  # __post_init__ turned every string into an AnswerSize
        return size
