"""The stderr tail of an MCP server: bounded in lines and bytes, read from the file's end."""

from __future__ import annotations

import tempfile
import tracemalloc
from collections.abc import Iterator
from typing import IO

import pytest

from nucleo_core.mcp._stderr import CUT, STDERR_BYTES, STDERR_LINE_BYTES, STDERR_LINES, tail


@pytest.fixture
def errlog() -> Iterator[IO[bytes]]:
    """A server's stderr file, as the session keeps it."""
    with tempfile.TemporaryFile(mode="w+b") as file:
        yield file


def within_bounds(text: str) -> bool:
    """Whether a tail keeps to the documented bounds."""
    return len(text.splitlines()) <= STDERR_LINES and len(text.encode()) <= STDERR_BYTES


def test_a_short_stderr_is_kept_whole(errlog: IO[bytes]) -> None:
    """A few lines come back as written, without a trailing newline."""
    errlog.write(b"starting\nfatal: TOKEN is not set\n")
    assert tail(errlog) == "starting\nfatal: TOKEN is not set"


def test_an_empty_or_closed_stderr_gives_nothing(errlog: IO[bytes]) -> None:
    """Nothing written, or a file already closed, is an empty tail, not an error."""
    assert tail(errlog) == ""
    errlog.close()
    assert tail(errlog) == ""


def test_many_short_lines_keep_the_last_ones(errlog: IO[bytes]) -> None:
    """Only the last STDERR_LINES lines are kept, in order."""
    errlog.write(b"".join(b"line %d\n" % n for n in range(100_000)))
    assert tail(errlog).splitlines() == [
        f"line {n}" for n in range(100_000 - STDERR_LINES, 100_000)
    ]


def test_long_lines_are_cut_and_marked_and_the_bytes_bounded(errlog: IO[bytes]) -> None:
    """Each line fits STDERR_LINE_BYTES (cut ones end in the marker); all fit STDERR_BYTES."""
    errlog.write(b"".join(b"%02d " % n + b"w" * 5000 + b"\n" for n in range(30)) + b"last\n")
    lines = tail(errlog).splitlines()
    assert within_bounds("\n".join(lines))
    assert lines[-1] == "last"
    assert all(line.endswith(CUT) for line in lines[:-1])
    assert all(len(line.encode()) <= STDERR_LINE_BYTES for line in lines)
    assert lines[-2].startswith("29 ")  # the newest lines are the ones kept


def test_a_line_begun_before_the_part_read_is_marked_at_its_start(errlog: IO[bytes]) -> None:
    """One huge line with no end: the tail is its visible end, marked as cut at both ends."""
    errlog.write(b"y" * (5 << 20))
    (line,) = tail(errlog).splitlines()
    assert line.startswith(CUT)
    assert line.endswith(CUT)
    assert len(line.encode()) <= STDERR_LINE_BYTES


def test_invalid_utf8_is_replaced_not_raised(errlog: IO[bytes]) -> None:
    """Bytes that are not UTF-8 show as replacement characters."""
    errlog.write(b"bad \xff\xfe bytes\n")
    assert tail(errlog) == "bad \ufffd\ufffd bytes"


def test_reading_the_tail_of_50_mb_does_not_load_the_file(errlog: IO[bytes]) -> None:
    """The tail of 50 MB of stderr is read from the end: memory stays far below the file size."""
    block = b"noise " * 10_000 + b"\n"
    for _ in range(50 * (1 << 20) // len(block)):
        errlog.write(block)
    errlog.write(b"fatal: the end\n")
    errlog.flush()
    tracemalloc.start()
    try:
        text = tail(errlog)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    assert text.splitlines()[-1] == "fatal: the end"
    assert within_bounds(text)
