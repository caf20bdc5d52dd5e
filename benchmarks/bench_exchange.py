"""Section (e): the overhead of one ``LLMCall`` round trip, excluding the model.

An exchange with a 20-tool palette is run against nucleo's own ``ScriptedModel``, whose answer
is prebuilt, so what is timed is nucleo's side of the exchange: seating the call on the catalog,
building the request (the palette's specs in their stable order), handing the response to the
handler (resolving and validating every tool use, or validating the final answer) and building
the ``ThinkingResponse``. The scripted model's own cost (recording the request, returning the
prebuilt answer) is measured on its own and subtracted.

Three answers are measured: a text final answer, a structured (pydantic) final answer, and a
turn calling two tools of the palette.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any, Literal

from bench_harness import (
    Samples,
    Verdict,
    fmt_time,
    judge_at_most,
    print_heading,
    print_table,
    settled,
)

__all__ = ["run_exchange_section"]

EXCHANGE_TARGET = 200e-6
PALETTE_SIZE = 20


def _palette() -> Any:
    from nucleo_core import ToolRegistry, tool

    registry = ToolRegistry()
    for index in range(PALETTE_SIZE):
        namespace: dict[str, Any] = {"Literal": Literal}
        exec(  # generated benchmark tools, compiled from a fixed template
            compile(
                f"def lookup_{index}(query: str, mode: Literal['fast', 'thorough'], "
                f"limit: int = 10) -> str:\n"
                f"    '''Look up records in table {index}.\n\n"
                f"    Args:\n        query: What to look for.\n        mode: How hard.\n"
                f"        limit: At most this many.\n    '''\n    return query\n",
                f"<palette {index}>",
                "exec",
                dont_inherit=True,
            ),
            namespace,
        )
        registry.register(tool(read_only=True, risk="low")(namespace[f"lookup_{index}"]))
    registry.specs()  # schemas built once, as a thinker's first turn would
    return registry


def _answers() -> dict[str, tuple[Any, Any]]:
    from pydantic import BaseModel

    from nucleo_core.testing import text_response, tool_use_response

    class Forecast(BaseModel):
        city: str
        temperature: float

    return {
        "text answer": (str, text_response("It will be sunny in Lisbon.")),
        "structured answer": (Forecast, text_response('{"city": "Lisbon", "temperature": 21}')),
        "two tool calls": (
            str,
            tool_use_response(
                ("lookup_3", {"query": "lisbon", "mode": "fast"}),
                ("lookup_17", '{"query": "porto", "mode": "thorough", "limit": 3}'),
            ),
        ),
    }


def _time_loop(factory: Callable[[], Coroutine[Any, Any, Any]], count: int) -> float:
    async def loop() -> float:
        started = time.perf_counter()
        for _ in range(count):
            await factory()
        return (time.perf_counter() - started) / count

    with settled():
        return asyncio.run(loop())


def run_exchange_section(count: int, rounds: int) -> list[Verdict]:
    """Measure and print section (e); return its verdicts."""
    from nucleo_core.models import Message, ModelCatalog, ModelRequest, ThinkerDeclaration
    from nucleo_core.testing import ScriptedModel
    from nucleo_core.thinking import LLMCall

    print_heading("(e) One LLMCall round trip with a 20-tool palette, excluding the model")
    registry = _palette()
    catalog = ModelCatalog(grades={"standard": "anthropic:claude-sonnet-4-5"})
    declaration = ThinkerDeclaration(grade="standard", answer_size=1024)
    messages = [Message.user("What is the weather in Lisbon?")]
    rows: list[list[str]] = []
    verdicts: list[Verdict] = []
    for label, (output_type, response) in _answers().items():
        model = ScriptedModel(lambda request, answer=response: answer)
        request = ModelRequest(model="m", tools=tuple(registry.specs()), messages=tuple(messages))

        def exchange(model: ScriptedModel = model, output_type: Any = output_type) -> Any:
            return LLMCall(
                declaration=declaration,
                messages=messages,
                catalog=catalog,
                tools=registry,
                output_type=output_type,
                client=model,
            ).run()

        def model_only(model: ScriptedModel = model, request: ModelRequest = request) -> Any:
            return model.complete(request)

        _time_loop(exchange, min(count, 200))  # warm-up: handler schemas, input models
        totals, model_costs = [], []
        for _ in range(rounds):
            totals.append(_time_loop(exchange, count))
            model_costs.append(_time_loop(model_only, count))
            model.requests.clear()
        total, model_cost = Samples(tuple(totals)), Samples(tuple(model_costs))
        net = total - model_cost
        rows.append(
            [
                label,
                fmt_time(total.median),
                fmt_time(model_cost.median),
                fmt_time(net.median),
                f"{fmt_time(net.min)}-{fmt_time(net.max)}",
            ]
        )
        verdicts.append(
            judge_at_most(
                f"(e) LLMCall overhead, {label}, 20-tool palette",
                f"one LLMCall exchange answering {label}, 20-tool palette, minus the scripted "
                "model alone",
                net,
                EXCHANGE_TARGET,
                note=f"scripted model alone {fmt_time(model_cost.median)}",
            )
        )
    print(f"{rounds} timed rounds of {count} exchanges per answer, after a warm-up.\n")
    print_table(
        ["answer", "exchange (median)", "model alone", "overhead (median)", "min-max"], rows
    )
    return verdicts
