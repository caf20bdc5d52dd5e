"""Conversations used from several threads at once keep every change, in a consistent order."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from nucleo_core.conversations import ConversationContext, ConversationService
from nucleo_core.models.messages import Message

THREADS = 8
TURNS = 25


def _in_threads(work: Callable[[int], None]) -> None:
    start = threading.Barrier(THREADS)
    failures: list[BaseException] = []

    def run(worker: int) -> None:
        try:
            start.wait()
            work(worker)
        except BaseException as exc:  # reported below, in the test's own thread
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(worker,)) for worker in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures


def _check(context: ConversationContext) -> None:
    texts = [message.text for message in context.messages]
    assert len(texts) == THREADS * TURNS
    for worker in range(THREADS):
        own = [text for text in texts if text.startswith(f"w{worker}:")]
        assert own == [f"w{worker}:{turn}" for turn in range(TURNS)]


def test_threads_appending_to_one_durable_conversation_lose_nothing(tmp_path: Path) -> None:
    """Concurrent appends, skills, markers and artifacts all land, and reload the same."""
    path = tmp_path / "c.sqlite3"
    with ConversationService(path) as service:
        context = service.open("shared", durable=True)

        def work(worker: int) -> None:
            for turn in range(TURNS):
                context.append(Message.user(f"w{worker}:{turn}"))
                if turn % 5 == 0:
                    context.artifacts.keep(f"{worker}/{turn}")
                    context.record_marker("note", f"{worker}/{turn}")
            context.attach_skill(f"skill-{worker % 3}")

        _in_threads(work)
        _check(context)
        assert len(context.artifacts) == THREADS * 5
        assert sorted(context.skills) == ["skill-0", "skill-1", "skill-2"]
        before = context.snapshot()
    with ConversationService(path) as service:
        reloaded = service.open("shared", durable=True)
        assert reloaded.snapshot() == before
        _check(reloaded)


def test_threads_opening_conversations_share_one_service(tmp_path: Path) -> None:
    """Threads opening, filling and closing their own conversations do not disturb each other."""
    path = tmp_path / "c.sqlite3"
    with ConversationService(path) as service:

        def work(worker: int) -> None:
            durable = service.open(f"d{worker}", durable=True)
            temporary = service.open(f"t{worker}")
            for turn in range(TURNS):
                durable.append(Message.user(f"{turn}"))
                temporary.append(Message.user(f"{turn}"))
            service.close(temporary)
            service.close(durable)

        _in_threads(work)
        assert sorted(service.list_ids()) == sorted(f"d{worker}" for worker in range(THREADS))
        for worker in range(THREADS):
            assert len(service.open(f"d{worker}", durable=True).messages) == TURNS


def test_a_temporary_context_is_safe_from_several_threads() -> None:
    """A temporary context keeps every concurrent append, each thread's in order."""
    context = ConversationContext()

    def work(worker: int) -> None:
        for turn in range(TURNS):
            context.append(Message.user(f"w{worker}:{turn}"))

    _in_threads(work)
    _check(context)
