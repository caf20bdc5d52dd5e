"""Load and faults on one PostgreSQL store: 8 workers, 200 conversations, kills, approvals.

Eight worker processes serve 200 durable conversations on one real PostgreSQL database; a
ninth process decides the paused runs' approvals meanwhile; the test SIGKILLs a worker at
random moments (five times, each replaced by a new one). At the end every conversation holds
its objective and its answer once, every approval was decided once (and a second decision was
told by whom), each approved call ran at most once, each paused run was resumed by one worker,
and ``nucleo audit verify`` passes on the shared chain.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psycopg

from nucleo_core.conversations import ConversationService
from nucleo_core.stores import migrate_store, open_approvals

WORKER = Path(__file__).with_name("_pg_worker.py")
WORKERS = 8
KILLS_AT = (20, 50, 90, 130, 170)  # conversations answered when a worker is killed


def spawn(url: str, *role: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), url, *role],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def answered(connection: psycopg.Connection[tuple[object, ...]]) -> int:
    row = connection.execute(
        "SELECT count(DISTINCT conversation_id) FROM nucleo_messages "
        "WHERE record LIKE '%\"Done.\"%'"
    ).fetchone()
    assert row is not None
    return int(row[0])  # type: ignore[call-overload]


def test_eight_workers_killed_at_random_keep_every_guarantee(pg_url: str) -> None:
    """200 conversations, 40 approvals, 5 SIGKILLs: no turn lost or doubled, one chain."""
    started = time.monotonic()
    migrate_store(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as connection:
        connection.execute("CREATE TABLE wired (cid TEXT NOT NULL, pid INTEGER NOT NULL)")
        connection.execute("CREATE TABLE resumed (cid TEXT NOT NULL, pid INTEGER NOT NULL)")
    paying = [f"c{n:03d}" for n in range(0, 200, 5)]
    workers = [spawn(pg_url, "worker") for _ in range(WORKERS)]
    decider = spawn(pg_url, "decider", str(len(paying)))
    killed: list[int] = []
    retired: list[subprocess.Popen[str]] = []
    chooser = random.Random()
    try:
        with psycopg.connect(pg_url, autocommit=True) as connection:
            pending_kills = list(KILLS_AT)
            while any(w.poll() is None for w in workers):
                done = answered(connection)
                if pending_kills and done >= pending_kills[0]:
                    pending_kills.pop(0)
                    alive = [w for w in workers if w.poll() is None]
                    if alive:
                        victim = chooser.choice(alive)
                        victim.send_signal(signal.SIGKILL)
                        victim.wait()
                        killed.append(victim.pid)
                        workers.remove(victim)
                        retired.append(victim)
                        workers.append(spawn(pg_url, "worker"))
                assert time.monotonic() - started < 600, f"stuck at {done} answered"
                time.sleep(0.1)  # polling the store's progress, not waiting for an outcome
        for worker in workers:
            assert worker.wait() == 0
        out, _ = decider.communicate(timeout=120)
        assert decider.returncode == 0
    finally:
        for process in [*workers, decider, *retired]:
            if process.poll() is None:
                process.kill()
            process.communicate()
    decisions = json.loads(out)
    wall = time.monotonic() - started

    with ConversationService(pg_url) as conversations:
        ids = conversations.list_ids()
        assert sorted(ids) == [f"c{n:03d}" for n in range(200)]
        for cid in ids:
            context = conversations.open(cid, durable=True)
            texts = [m.text for m in context.messages if m.text]
            assert texts.count(f"Pay the invoices of {cid}") == 1, (cid, texts)
            assert texts.count("Done.") == 1, (cid, texts)
            assert context.messages[-1].text == "Done."
            conversations.close(context)
    records = open_approvals(pg_url).list()
    assert sorted(r.conversation_id for r in records) == paying  # one approval a paused run
    assert {r.status for r in records} <= {"consumed", "rejected"}
    assert {r.decided_by for r in records} == {"decider"}
    assert decisions == {"decided": len(paying), "told_by_whom": len(paying)}
    approved = {r.conversation_id for r in records if r.status == "consumed"}
    with psycopg.connect(pg_url, autocommit=True) as connection:
        wired = Counter(str(row[0]) for row in connection.execute("SELECT cid FROM wired"))
        resumed = Counter(str(row[0]) for row in connection.execute("SELECT cid FROM resumed"))
    assert set(wired) <= approved  # a rejected call never ran
    assert max(wired.values(), default=0) <= 1  # an approved call ran at most once
    assert set(resumed) <= set(paying)
    assert max(resumed.values(), default=0) <= 1  # each paused run finished by one worker
    verified = subprocess.run(
        [sys.executable, "-m", "nucleo_core.cli", "audit", "--store", pg_url, "verify"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "intact" in verified.stdout
    print(
        f"\n8 workers, 200 conversations answered once, {len(killed)} SIGKILLs, "
        f"{len(paying)} approvals decided once ({len(approved)} approved, "
        f"{len(paying) - len(approved)} rejected), {sum(wired.values())} approved calls ran "
        f"(at most once each), {sum(resumed.values())} resumes finished, "
        f"audit: {verified.stdout.strip()} wall {wall:.1f} s"
    )
