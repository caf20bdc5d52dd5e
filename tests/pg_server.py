"""A real PostgreSQL server for the test session: the ``pg_url`` fixture, and its helpers.

The session starts its own server once, when a test first asks for ``pg_url``: ``initdb`` into a
temporary folder, then ``pg_ctl start`` listening on a unix socket in that folder only (no TCP
port, so no clash with another server or another test session), and stops it at the session's
end. Each test gets a database of its own (``CREATE DATABASE``), so tests do not see each
other's rows, in any order.

The binaries are Debian's (``/usr/lib/postgresql/<version>/bin``) or on ``PATH``. Without them
the PostgreSQL tests skip with the fix (``apt-get install postgresql``), unless
``NUCLEO_REQUIRE_POSTGRES=1`` (CI) is set: then they fail. PostgreSQL refuses to run as root;
as root, the server runs as the ``postgres`` user (or ``nobody``).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

REQUIRE_VARIABLE = "NUCLEO_REQUIRE_POSTGRES"


def postgres_bin() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: the newest Debian install, else ``PATH``'s."""
    installs = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if installs:
        return installs[-1].parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


class PostgresServer:
    """A server started in ``folder``, reached through its unix socket (fsync off unless asked)."""

    def __init__(self, bin_dir: Path, folder: Path, *, fsync: bool = False) -> None:
        self.bin_dir = bin_dir
        # Tests need no durability across a power loss of the test machine: fsync off makes
        # them faster. A benchmark keeps the server's durable default.
        self.fsync = fsync
        self.folder = folder
        self.data = folder / "data"
        self.socket_dir = folder / "socket"
        self.user = "nucleo"
        self._run_as: str | None = None
        if os.geteuid() == 0:
            for name in ("postgres", "nobody"):
                try:
                    pwd.getpwnam(name)
                except KeyError:
                    continue
                self._run_as = name
                break

    def url(self, database: str = "postgres") -> str:
        """The ``postgresql://`` URL of ``database`` on this server."""
        return f"postgresql://{self.user}@/{database}?host={self.socket_dir}"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin_dir / args[0]), *args[1:]],
            check=check,
            capture_output=True,
            text=True,
            user=self._run_as,
            timeout=120,
        )

    def start(self) -> None:
        """``initdb`` and ``pg_ctl start``; return once the server accepts connections."""
        self.socket_dir.mkdir(parents=True)
        if self._run_as is not None:
            entry = pwd.getpwnam(self._run_as)
            for path in (self.folder, self.socket_dir):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            self.user,
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        options = (
            f"-c listen_addresses='' -c unix_socket_directories='{self.socket_dir}' "
            f"-c fsync={'on' if self.fsync else 'off'} -c max_connections=200 "
            "-c shared_buffers=32MB"
        )
        # -w: pg_ctl waits until the server accepts connections (it polls, no fixed sleep).
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.folder / "server.log"),
            "-o",
            options,
            "-w",
            "-t",
            "120",
            "start",
        )
        ready = self._run("pg_isready", "-h", str(self.socket_dir), "-t", "60", check=False)
        if ready.returncode != 0:
            raise RuntimeError(f"PostgreSQL did not become ready: {ready.stdout}{ready.stderr}")

    def stop(self) -> None:
        """``pg_ctl stop`` (fast: open connections are ended)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)

    def create_database(self) -> str:
        """A new, empty database; its URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
        return self.url(name)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL server, started on first use and stopped at the end."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        message = (
            "PostgreSQL's binaries (initdb, pg_ctl) are not installed: "
            "apt-get install postgresql (and the test extra's psycopg[binary,pool])"
        )
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail(f"{REQUIRE_VARIABLE}=1 but {message}")
        pytest.skip(message)
    try:
        import psycopg  # noqa: F401
    except ImportError:
        message = 'psycopg is not installed: python3 -m pip install "psycopg[binary,pool]>=3.2"'
        if os.environ.get(REQUIRE_VARIABLE) == "1":
            pytest.fail(f"{REQUIRE_VARIABLE}=1 but {message}")
        pytest.skip(message)
    folder = Path(tempfile.mkdtemp(prefix="nucleo-pg-"))
    server = PostgresServer(bin_dir, folder)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server: PostgresServer) -> str:
    """The URL of a fresh database on the session's server, this test's alone."""
    return pg_server.create_database()
