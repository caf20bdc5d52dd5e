"""Section (n): turns per second, 8 workers on one PostgreSQL store against 1 on SQLite.

The workload is scripted, and waits as real turns do: each turn is one durable run of a
thinker (its objective, a model answer calling one tool, the tool's result, the final answer)
whose model answers after 20 ms and whose tool takes 20 ms; every change of the conversation is
committed to the store, the audit record written as in any run. Judged: turns per second of 8
worker processes sharing one PostgreSQL database (a server this section starts, as the tests
do) over turns per second of 1 worker process on SQLite files, median of interleaved rounds;
target at least 4x (the shared store must not serialize the workers). Process start-up is not
timed: each worker starts, builds its thinker, says it is ready, and is then told to go.

Printed beside it, not judged: each side's turns per second, and the time one turn takes on
each (what the 60 ms of waiting leave to the store and the loop).

Where the rest goes (profiled; docs/workers.md "What a turn costs the database"): a turn is
about 8 commits and 9 round trips to the server (opening: one pipelined transaction on the
hold's session that takes the lock, records the holder and creates the conversation; each of
the 4 messages: one pipelined transaction; closing: one; the audit's batches), of which 5 wait
for the write-ahead log's flush (the creation and the 4 messages; the writers' records are
unlogged). Before, each journal call was a transaction of its own on a pooled connection
(about 10 commits, 8 flushes and 33 round trips a turn). The 8 workers, the server's 8
backends and the loop share this machine's cores (2 where this was written, with other work
on them): each round trip wakes a backend and then the worker, and on a loaded machine each
wake-up waits for a core, so the time a turn takes past its 60 ms of waiting is mostly
waiting to be scheduled, not the store's work (measured alone: about 3 ms of a worker's CPU
and 4 ms of the server's processes a turn, 5 ms and 7 ms before; 8 workers at 40 turns/s use
about 0.3 of a core).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_harness import (
    Samples,
    Verdict,
    fmt_time,
    judge_at_least,
    not_judged,
    print_heading,
    print_table,
    print_work,
    ratios,
    unavailable,
)

HERE = Path(__file__).resolve()
KEY = "(n) 8 workers on PostgreSQL vs 1 on SQLite"
WORK = (
    "durable turns (model 20 ms, one 20 ms tool, model 20 ms) per second: 8 processes on one "
    "PostgreSQL store over 1 process on SQLite"
)
WAIT = 0.020


def _worker(url: str, prefix: str, turns: int) -> None:
    """One worker: ``turns`` durable runs in conversations of its own, once told to go."""
    from nucleo_core import SingleObjectiveThinker, ThinkerDeclaration, ToolHub, tool
    from nucleo_core.guard.audit import AuditLog
    from nucleo_core.models import (
        ModelCatalog,
        ModelRequest,
        ModelResponse,
        StopReason,
        TextBlock,
        ToolResultBlock,
        ToolUseBlock,
    )
    from nucleo_core.stores import open_approvals, open_audit, open_conversations
    from nucleo_core.testing import ScriptedModel

    @tool(read_only=True, risk="low")
    async def lookup(key: str) -> str:
        """Look a key up (20 ms)."""
        await asyncio.sleep(WAIT)
        return f"found {key}"

    class Clerk(SingleObjectiveThinker[str, str]):
        """Looks things up."""

        @classmethod
        def declare_default_tools(cls) -> list[object]:
            """The one tool."""
            return [lookup]

    def answer(request: ModelRequest) -> ModelResponse:
        last = request.messages[-1]
        if any(isinstance(block, ToolResultBlock) for block in last.content):
            return ModelResponse(
                content=(TextBlock(text="Done."),), stop_reason=StopReason.END_TURN
            )
        use = ToolUseBlock(id="use_1", name="lookup", input={"key": "k"})
        return ModelResponse(content=(use,), stop_reason=StopReason.TOOL_USE)

    class SlowModel(ScriptedModel):
        async def complete(self, request: ModelRequest) -> ModelResponse:
            await asyncio.sleep(WAIT)
            return await super().complete(request)

    audit = AuditLog(open_audit(url))
    conversations = open_conversations(url)
    thinker = Clerk(
        ThinkerDeclaration("standard", "short"),
        hub=ToolHub(audit=audit),
        client=SlowModel(answer),
        catalog=ModelCatalog(grades={"standard": "anthropic:any"}),
        conversations=conversations,
    )
    thinker.approvals = open_approvals(url)

    async def serve() -> None:
        for number in range(turns):
            await thinker.run("Look k up.", conversation_id=f"{prefix}-{number}", durable=True)

    asyncio.run(serve())  # a warm-up turn's worth of imports and connections first
    print("ready", flush=True)
    sys.stdin.readline()
    started = time.perf_counter()
    prefix = f"{prefix}-timed"
    asyncio.run(serve())
    print(f"{time.perf_counter() - started:.6f}", flush=True)
    audit.close()
    conversations.shutdown()


def _round(url: str, workers: int, turns: int, tag: str) -> float:
    """Start ``workers`` workers, release them together; turns per second of them all."""
    processes = [
        subprocess.Popen(
            [sys.executable, str(HERE), "worker", url, f"{tag}-w{index}", str(turns)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for index in range(workers)
    ]
    try:
        for process in processes:
            assert process.stdout is not None
            if process.stdout.readline().strip() != "ready":
                raise RuntimeError("a worker failed to start")
        started = time.perf_counter()
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        for process in processes:
            process.communicate(timeout=600)
            if process.returncode != 0:
                raise RuntimeError(f"a worker exited {process.returncode}")
        wall = time.perf_counter() - started
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.communicate()
    return workers * turns / wall


def run_workers_section(turns: int, rounds: int) -> list[Verdict]:
    """Measure (n): interleaved rounds of 8 workers on PostgreSQL and 1 on SQLite."""
    print_heading("(n) Many workers on one PostgreSQL store")
    print_work("(n) judged", WORK)
    sys.path.insert(0, str(HERE.parents[1] / "tests"))
    try:
        import psycopg  # noqa: F401

        # The tests' PostgreSQL harness (a pytest plugin module: it needs pytest too).
        from pg_server import PostgresServer, postgres_bin
    except ImportError as exc:
        return [unavailable(KEY, WORK, f"{exc.name or exc} is not installed: {exc}")]
    finally:
        sys.path.pop(0)
    bin_dir = postgres_bin()
    if bin_dir is None:
        return [unavailable(KEY, WORK, "PostgreSQL is not installed (apt-get install postgresql)")]
    folder = Path(tempfile.mkdtemp(prefix="nucleo-bench-pg-"))
    folder.chmod(0o755)  # the server may run as another user (PostgreSQL refuses root)
    server = PostgresServer(bin_dir, folder / "pg", fsync=True)
    (folder / "pg").mkdir()
    try:
        server.start()
        print(
            f"{rounds} rounds; each: 8 workers x {turns} turns on PostgreSQL "
            f"({bin_dir.parent.name}, fsync and synchronous_commit on), then 1 worker x {turns} "
            "turns on SQLite (synchronous=FULL)."
        )
        postgres: list[float] = []
        sqlite: list[float] = []
        for index in range(rounds):
            url = server.create_database()
            postgres.append(_round(url, 8, turns, f"r{index}"))
            sqlite.append(_round(f"sqlite://{folder / f'sqlite-{index}'}", 1, turns, f"r{index}"))
    except Exception as exc:  # reported as unavailable: never fatal to the run
        return [unavailable(KEY, WORK, f"the measurement failed: {exc}", nucleo_failed=True)]
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    pg_samples, sqlite_samples = Samples(tuple(postgres)), Samples(tuple(sqlite))
    speedup = ratios(pg_samples, sqlite_samples)
    per_turn = {
        "8 workers, PostgreSQL": Samples(tuple(8 / rate for rate in postgres)),
        "1 worker, SQLite": Samples(tuple(1 / rate for rate in sqlite)),
    }
    print_table(
        ["side", "turns/s (median)", "one turn, per worker (median)"],
        [
            [
                label,
                f"{samples.median:.1f}",
                fmt_time(per_turn[label].median),
            ]
            for label, samples in (
                ("8 workers, PostgreSQL", pg_samples),
                ("1 worker, SQLite", sqlite_samples),
            )
        ],
    )
    return [
        judge_at_least(
            KEY,
            WORK,
            speedup,
            4.0,
            note=f"8 on PostgreSQL {pg_samples.median:.1f} turns/s, 1 on SQLite "
            f"{sqlite_samples.median:.1f} turns/s; 60 ms of each turn is waiting",
        ),
        not_judged(
            "(n) one turn on PostgreSQL, per worker",
            "the same turn's time in one of 8 workers (60 ms of it waiting)",
            per_turn["8 workers, PostgreSQL"].text(),
            "what the store, the loop and 8 processes on this machine's cores add",
        ),
    ]


if __name__ == "__main__":
    if sys.argv[1] == "worker":
        _worker(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        for verdict in run_workers_section(int(sys.argv[1]), int(sys.argv[2])):
            print(verdict.line())
