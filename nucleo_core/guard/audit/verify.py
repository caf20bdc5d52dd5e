"""`verify_chain`: walk a log's records in order and name the first one that breaks the chain.

Every store keeps, beside its records, a *head*: the sequence number and digest of its last
record, written in the same transaction as the records. A record is bad when:

- its sequence number is not the one expected (a record before it was deleted, or records
  were reordered): the expected number is named, since that is the record that went missing;
- its ``prev_digest`` is not the digest of the record before it;
- its digest is not the digest of its sequence number, ``prev_digest`` and content (it was
  edited);
- it is past the head, or the log ends before the head (its last records were deleted).

A hash chain shows that records were changed *after* they were written; someone able to
rewrite the whole file, head included, can write a new chain. Keep a copy of the head
(`VerifyReport.head_digest`) elsewhere to detect that too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from nucleo_core.guard.audit.records import GENESIS_DIGEST, chain_digest

__all__ = ["StoredRow", "VerifyReport", "verify_chain"]


class StoredRow(NamedTuple):
    """One record as a store holds it (a tuple: one is made per record a memory store keeps).

    Attributes:
        sequence: Its sequence number.
        content: Its content.
        prev_digest: The digest it says comes before it.
        digest: Its digest.
    """

    sequence: int
    content: str
    prev_digest: str
    digest: str


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifyReport:
    """What `verify_chain` found.

    Attributes:
        ok: Whether every record is intact and the chain whole.
        records: How many records were checked (up to the first bad one).
        first_bad_sequence: The sequence number of the first bad record, or ``None``.
        problem: What is wrong with it, in words, or ``None``.
        head_sequence: The sequence number of the last record, as the head says.
        head_digest: The digest of the last record, as the head says (``GENESIS_DIGEST`` for
            an empty log); keep a copy elsewhere to detect a rewrite of the whole log.
    """

    ok: bool
    records: int
    first_bad_sequence: int | None = None
    problem: str | None = None
    head_sequence: int = 0
    head_digest: str = GENESIS_DIGEST

    def to_json(self) -> dict[str, object]:
        """The report as a JSON object."""
        return {
            "ok": self.ok,
            "records": self.records,
            "first_bad_sequence": self.first_bad_sequence,
            "problem": self.problem,
            "head_sequence": self.head_sequence,
            "head_digest": self.head_digest,
        }


def verify_chain(
    rows: Iterable[StoredRow],
    head: tuple[int, str] | None,
    *,
    floor: tuple[int, str] = (0, GENESIS_DIGEST),
) -> VerifyReport:
    """Check ``rows`` (in sequence order) against each other and against ``head``.

    Args:
        rows: Every record of the log, ordered by sequence number.
        head: The head's sequence number and digest; ``None`` for a log never written.
        floor: The sequence number and digest of the last record no longer kept, for a
            store that keeps only its latest records (`MemoryAuditStore` with
            ``max_records``): the rows must follow it.
    """
    head_sequence, head_digest = head if head is not None else (0, GENESIS_DIGEST)
    expected = floor[0] + 1
    previous = floor[1]
    checked = 0

    def bad(sequence: int, problem: str) -> VerifyReport:
        return VerifyReport(
            ok=False,
            records=checked,
            first_bad_sequence=sequence,
            problem=problem,
            head_sequence=head_sequence,
            head_digest=head_digest,
        )

    for row in rows:
        if row.sequence > head_sequence:
            return bad(row.sequence, f"record {row.sequence} is past the log's head")
        if row.sequence != expected:
            if row.sequence > expected:
                return bad(expected, f"record {expected} is missing (deleted)")
            return bad(row.sequence, f"record {row.sequence} is out of order")
        if row.prev_digest != previous:
            return bad(
                row.sequence,
                f"record {row.sequence} does not follow record {row.sequence - 1} "
                "(its previous digest differs: a record was deleted, inserted or reordered)",
            )
        if chain_digest(row.sequence, row.prev_digest, row.content) != row.digest:
            return bad(
                row.sequence,
                f"record {row.sequence}'s content does not match its digest (it was edited)",
            )
        previous = row.digest
        expected += 1
        checked += 1
    if expected - 1 != head_sequence:
        return bad(expected, f"record {expected} is missing: the log's head is {head_sequence}")
    if previous != head_digest:
        return bad(head_sequence, f"record {head_sequence}'s digest is not the one the head holds")
    return VerifyReport(
        ok=True, records=checked, head_sequence=head_sequence, head_digest=head_digest
    )
