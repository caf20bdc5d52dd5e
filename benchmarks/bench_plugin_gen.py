"""Generate installed plugin distributions for section (f), and the scripts that load them.

A distribution is written as an installer leaves it in ``site-packages``: a top-level module
and a ``<name>-<version>.dist-info`` folder holding ``METADATA``, ``entry_points.txt`` and
``RECORD``. Putting the folder on ``PYTHONPATH`` makes `importlib.metadata` (which both nucleo
and pluggy read) find every distribution in it.

Both frameworks get tools of one shape, compiled from the same template:

* **nucleo**: ``[nucleo.tools] packNNN = packNNN_tools``; the module defines its tools with
  ``@tool``, alternately ``read_only=True, risk="low"`` and ``risk="medium"``;
* **llm**: ``[llm] llm_packNNN = llm_packNNN_tools``; the module defines the same functions
  and a ``register_tools(register)`` hook implementation registering each of them.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "LLM_SCRIPT",
    "NUCLEO_MODES",
    "NUCLEO_SCRIPT",
    "TOOL_SIGNATURE",
    "child_environment",
    "write_llm_distributions",
    "write_nucleo_distributions",
]

#: The shape of every generated tool (for the printed report).
TOOL_SIGNATURE = (
    'f(query: str, mode: Literal["fast", "balanced", "thorough"], limit: int = 10) -> str'
)

_FUNCTION = '''
{decorator}def {name}(
    query: str, mode: Literal["fast", "balanced", "thorough"], limit: int = 10
) -> str:
    """Search collection {index} of pack {pack} for documents matching a query.

    Args:
        query: The words to look for in collection {index}.
        mode: How thorough the search of collection {index} is.
        limit: The most results to return.
    """
    return f"{{query}}|{{mode}}|{{limit}}|{pack}|{index}"
'''

_NUCLEO_DECORATORS = ('@tool(read_only=True, risk="low")\n', '@tool(risk="medium")\n')


def _tool_name(pack: int, index: int) -> str:
    return f"pack{pack:03d}_search_{index:02d}"


def _functions(pack: int, tools: int, *, nucleo: bool) -> str:
    return "".join(
        _FUNCTION.format(
            decorator=_NUCLEO_DECORATORS[index % 2] if nucleo else "",
            name=_tool_name(pack, index),
            index=index,
            pack=pack,
        )
        for index in range(tools)
    )


def _write_distribution(
    site: Path, distribution: str, module: str, source: str, group: str, entry_point: str
) -> None:
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    info = site / f"{distribution.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n"
        f"Summary: Generated benchmark plugin {module}.\n",
        encoding="utf-8",
    )
    (info / "entry_points.txt").write_text(
        f"[{group}]\n{entry_point} = {module}\n", encoding="utf-8"
    )
    (info / "top_level.txt").write_text(f"{module}\n", encoding="utf-8")
    (info / "RECORD").write_text(
        "".join(
            f"{path},,\n"
            for path in (
                f"{module}.py",
                *(f"{info.name}/{name}" for name in ("METADATA", "entry_points.txt", "RECORD")),
                f"{info.name}/top_level.txt",
            )
        ),
        encoding="utf-8",
    )


def write_nucleo_distributions(site: Path, plugins: int, tools: int) -> None:
    """Write ``plugins`` nucleo tool-pack distributions of ``tools`` tools each into ``site``."""
    site.mkdir(parents=True, exist_ok=True)
    for pack in range(plugins):
        module = f"pack{pack:03d}_tools"
        source = (
            f'"""Generated nucleo tool pack {pack}."""\n\nfrom typing import Literal\n\n'
            f"from nucleo_core import tool\n\n{_functions(pack, tools, nucleo=True)}"
        )
        _write_distribution(
            site, f"nucleo-bench-pack{pack:03d}", module, source, "nucleo.tools", f"pack{pack:03d}"
        )


def write_llm_distributions(site: Path, plugins: int, tools: int) -> None:
    """Write ``plugins`` llm tool-plugin distributions of ``tools`` tools each into ``site``."""
    site.mkdir(parents=True, exist_ok=True)
    for pack in range(plugins):
        module = f"llm_pack{pack:03d}_tools"
        registrations = "".join(
            f"    register({_tool_name(pack, index)})\n" for index in range(tools)
        )
        source = (
            f'"""Generated llm tool plugin {pack}."""\n\nfrom typing import Literal\n\n'
            f"import llm\n\n{_functions(pack, tools, nucleo=False)}\n\n"
            f"@llm.hookimpl\ndef register_tools(register):\n{registrations}"
        )
        _write_distribution(
            site, f"llm-bench-pack{pack:03d}", module, source, "llm", f"llm_pack{pack:03d}"
        )


#: What the nucleo child can do after resolving the catalog (the script's first argument).
NUCLEO_MODES = ("catalog", "first-turn", "all-schemas", "call-all")

#: Run as ``python -c NUCLEO_SCRIPT <mode> <expected tools>``; prints phase times as JSON.
NUCLEO_SCRIPT = """\
import time
_started = time.perf_counter()
import json
import sys

from nucleo_core import ThinkerBase, ToolHub, ToolSelector

_imported = time.perf_counter()
mode, expected = sys.argv[1], int(sys.argv[2])


class Thinker(ThinkerBase):
    # The first-turn row times request_tools listing every catalog name (past OFFER_BUDGET the
    # default "auto" offer would send search_tools instead).
    tool_offer = "enumerate"

    @classmethod
    def declare_compatible_tools(cls):
        return ToolSelector().add_pack("*")


hub = ToolHub()
records = hub.load_plugins()
_loaded = time.perf_counter()
catalog = hub.compatible_catalog(Thinker)
_resolved = time.perf_counter()
assert len(catalog) == expected, f"catalog holds {len(catalog)} tools, not {expected}"
assert all(record.status == "loaded" for record in records), [
    (record.name, record.status, record.error) for record in records if record.status != "loaded"
]
phases = {
    "import nucleo_core": _imported - _started,
    "hub.load_plugins()": _loaded - _imported,
    "hub.compatible_catalog()": _resolved - _loaded,
}
if mode == "first-turn":
    from nucleo_core import to_openai

    registry = Thinker(hub=hub).reconcile_tool_registry()
    rendered = to_openai(registry.specs())
    (request_tools,) = rendered
    names = request_tools["function"]["parameters"]["properties"]["tools"]["items"]["oneOf"]
    assert len(names) == expected
    phases["request_tools definition"] = time.perf_counter() - _resolved
elif mode == "all-schemas":
    from nucleo_core import to_openai

    rendered = to_openai([provider.spec() for provider in catalog])
    assert len(rendered) == expected
    phases["every tool's schema"] = time.perf_counter() - _resolved
elif mode == "call-all":
    import asyncio

    from nucleo_core import run_tool, to_openai

    rendered = to_openai([provider.spec() for provider in catalog])
    _rendered = time.perf_counter()
    phases["every tool's schema"] = _rendered - _resolved

    async def call_all():
        for provider in catalog:
            parsed = provider.parse_input('{"query": "q", "mode": "fast"}')
            await run_tool(provider.create(None), parsed)

    asyncio.run(call_all())
    phases["every tool called once"] = time.perf_counter() - _rendered
# Peak RSS of this process image: VmHWM starts afresh at exec, whereas ru_maxrss keeps the
# parent's peak from before the exec (the benchmark runner is larger than either child).
with open("/proc/self/status", encoding="ascii") as status:
    rss = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
print(json.dumps({"plugins": len(records), "tools": len(catalog), "phases": phases, "rss": rss}))
"""

#: Run as ``python -c LLM_SCRIPT <expected tools>``; prints phase times as JSON.
LLM_SCRIPT = """\
import time
_started = time.perf_counter()
import json
import sys

import llm

_imported = time.perf_counter()
expected = int(sys.argv[1])
call_all = sys.argv[2:] == ["call-all"]
tools = llm.get_tools()
_collected = time.perf_counter()
ours = [t for t in tools.values() if (getattr(t, "plugin", None) or "").startswith("llm_pack")]
assert len(ours) == expected, f"llm.get_tools() holds {len(ours)} generated tools, not {expected}"
assert all(t.input_schema["properties"].keys() == {"query", "mode", "limit"} for t in ours)
phases = {
    "import llm": _imported - _started,
    "llm.get_tools()": _collected - _imported,
}
if call_all:
    # What llm's execute_tool_calls does with each call's decoded arguments.
    for t in ours:
        t.implementation(**json.loads('{"query": "q", "mode": "fast"}'))
    phases["every tool called once"] = time.perf_counter() - _collected
# Peak RSS of this process image: VmHWM starts afresh at exec, whereas ru_maxrss keeps the
# parent's peak from before the exec (the benchmark runner is larger than either child).
with open("/proc/self/status", encoding="ascii") as status:
    rss = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
plugins = len({t.plugin for t in ours})
print(json.dumps({"plugins": plugins, "tools": len(tools), "phases": phases, "rss": rss}))
"""


def child_environment(site: Path, user_dir: Path) -> dict[str, str]:
    """The environment of a measured interpreter: ``site`` first on the path, nothing steering.

    The variables that switch nucleo's or llm's plugin loading, or make every run compile from
    source, are removed; llm's user directory is an empty throwaway one.
    """
    environment = dict(os.environ)
    for variable in (
        "PYTHONDONTWRITEBYTECODE",
        "NUCLEO_DISABLE_PLUGIN_AUTOLOAD",
        "NUCLEO_PLUGINS_ALLOW",
        "NUCLEO_PLUGINS_BLOCK",
        "LLM_LOAD_PLUGINS",
    ):
        environment.pop(variable, None)
    inherited = environment.get("PYTHONPATH")
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), inherited]))
    environment["LLM_USER_PATH"] = str(user_dir)
    return environment
