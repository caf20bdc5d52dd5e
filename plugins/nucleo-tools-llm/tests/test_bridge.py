"""The bridge against llm plugins written here, found as installed distributions.

The plugins are real ``llm`` plugins (modules implementing ``register_tools`` with
``llm.hookimpl``) declared by ``*.dist-info`` folders in a temporary site folder, which the
bridge is pointed at with ``path=``; ``llm`` itself is the installed one. These tests need
``llm`` installed, as the bridge does: they run in an environment with this plugin installed
(``.ci/run`` installs it before running them).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from nucleo_tools_llm import LLMBridge, LLMConfig, LLMConfigError, LLMToolProvider, discover_config

from nucleo_core import InvalidToolInput, PluginError, Risk

#: The fake plugins: distribution -> (entry point name, module source).
PLUGINS: dict[str, tuple[str, str]] = {
    "llm-tools-fake": (
        "llm_tools_fake",
        '''
        import asyncio
        import threading

        import llm


        def shout(text: str, times: int = 1) -> str:
            """
            Shout a text.

                Indented lines keep their relative indentation.
            """
            return (text.upper() + " ") * times


        async def wait_and_echo(text: str) -> str:
            """Echo a text after yielding to the event loop."""
            await asyncio.sleep(0)
            return text


        def structured(count: int) -> dict:
            """Return a structure, not text."""
            return {"count": count, "ok": True, "none": None}


        def with_output(text: str):
            """Return an llm.ToolOutput."""
            return llm.ToolOutput(output={"text": text})


        def sees_the_call(text: str, llm_tool_call) -> str:
            """Read the llm.ToolCall llm passes."""
            return f"{llm_tool_call.name}:{llm_tool_call.arguments['text']}"


        def explode(reason: str) -> str:
            """Always raise."""
            raise PermissionError(f"refused because {reason}")


        class Counter(llm.Toolbox):
            """Counts, per instance."""

            def __init__(self, start: int, step: int = 1):
                self.value = start
                self.step = step
                self.thread = threading.get_ident()

            def increment(self) -> int:
                """Add the step to the counter and return it."""
                if threading.get_ident() != self.thread:
                    raise RuntimeError("called on another thread than the constructor's")
                self.value += self.step
                return self.value


        class Prepared(llm.Toolbox):
            """Adds a tool at prepare time."""

            def prepare(self):
                def extra(word: str) -> str:
                    """An extra tool added by prepare()."""
                    return word[::-1]

                self.add_tool(extra)


        class AsyncPrepared(llm.Toolbox):
            """Prepares asynchronously."""

            ready = False

            async def prepare_async(self):
                await asyncio.sleep(0)
                self.ready = True

            def status(self) -> str:
                """Say whether prepare_async ran."""
                return "ready" if self.ready else "not ready"


        @llm.hookimpl
        def register_tools(register):
            register(shout)
            register(wait_and_echo)
            register(structured)
            register(with_output)
            register(sees_the_call)
            register(explode)
            register(llm.Tool(name="named_tool", description="  A Tool object.  ",
                              input_schema={"type": "object", "properties": {}},
                              implementation=lambda: "from a Tool"))
            register(Counter)
            register(Prepared)
            register(AsyncPrepared)
        ''',
    ),
    "llm-tools-import-fails": (
        "llm_tools_import_fails",
        """
        raise RuntimeError("no settings")
        """,
    ),
    "llm-tools-register-fails": (
        "llm_tools_register_fails",
        """
        import llm


        class NotAToolbox:
            pass


        @llm.hookimpl
        def register_tools(register):
            register(NotAToolbox)
        """,
    ),
    "llm-tools-same-name": (
        "llm_tools_same_name",
        '''
        import llm


        def shout(text: str) -> str:
            """Another shout."""
            return text


        @llm.hookimpl
        def register_tools(register):
            register(shout)
        ''',
    ),
}

#: A configuration giving Counter its required argument.
CONFIGURED = LLMConfig.from_mapping({"toolboxes": {"Counter": {"start": 10}}})


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder of fake installed llm plugin distributions, on ``sys.path`` while used."""
    root = tmp_path_factory.mktemp("llm-site")
    for distribution, (module, source) in PLUGINS.items():
        (root / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        info = root / f"{distribution.replace('-', '_')}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.0\n", encoding="utf-8"
        )
        (info / "entry_points.txt").write_text(f"[llm]\n{module} = {module}\n", encoding="utf-8")
    sys.path.insert(0, str(root))
    yield root
    sys.path.remove(str(root))
    for _, (module, _) in PLUGINS.items():
        sys.modules.pop(module, None)


def bridge(site: Path, config: LLMConfig = CONFIGURED) -> LLMBridge:
    """A loaded bridge over the fake plugins."""
    return LLMBridge(config, path=[site]).load()


def provider(loaded: LLMBridge, name: str) -> LLMToolProvider:
    """The bridged tool ``name``."""
    return next(p for p in loaded.providers if p.name == name)


def call(tool: LLMToolProvider, arguments: Mapping[str, Any], parent: object = None) -> str:
    """One call of ``tool`` through the tool nucleo creates for it, as the pipeline makes it."""
    return asyncio.run(tool.create(parent).run(tool.parse_input(dict(arguments))))


def in_conversation(conversation_id: str) -> object:
    """A parent the way a thinker looks to a tool: its open conversation has an id."""
    return SimpleNamespace(conversation=SimpleNamespace(id=conversation_id))


# -- what is bridged -----------------------------------------------------------------------------


def test_names_are_llms_and_toolbox_methods_are_class_underscore_method(site: Path) -> None:
    """Functions keep their names, a Tool its own, a Toolbox's methods read Class_method."""
    names = [p.name for p in bridge(site).providers if p.plugin == "llm_tools_fake"]
    assert names == [
        "shout",
        "wait_and_echo",
        "structured",
        "with_output",
        "sees_the_call",
        "explode",
        "named_tool",
        "Counter_increment",
        "extra",  # added with add_tool(): llm keeps the function's own name
        "AsyncPrepared_status",
    ]


def test_descriptions_are_cleaned_and_schemas_are_llms_own(site: Path) -> None:
    """A docstring loses its common indentation; the schema is llm's ``input_schema``."""
    import llm

    loaded = bridge(site)
    shout = provider(loaded, "shout")
    assert shout.description == (
        "Shout a text.\n\n    Indented lines keep their relative indentation."
    )
    assert provider(loaded, "named_tool").description == "A Tool object."
    module = sys.modules["llm_tools_fake"]
    assert shout.input_schema == llm.Tool.function(module.shout).input_schema
    assert shout.source == "llm:llm_tools_fake:shout"
    assert shout.metadata["llm_distribution"] == "llm-tools-fake"


def test_the_records_say_what_became_of_each_plugin(site: Path) -> None:
    """A record per llm plugin: loaded with its tools, or failed with nucleo's reason wording."""
    records = {record.name: record for record in bridge(site).records}
    assert records["llm_tools_fake"].status == "loaded"
    assert "tool: Counter_increment" in records["llm_tools_fake"].contributed
    assert records["llm_tools_import_fails"].status == "failed"
    assert records["llm_tools_import_fails"].error == (
        "failed to import: RuntimeError: no settings"
    )
    assert records["llm_tools_register_fails"].status == "failed"
    assert records["llm_tools_register_fails"].error == (
        "raised in register_tools: TypeError: Toolbox classes must inherit from llm.Toolbox, "
        "NotAToolbox does not."
    )
    assert records["llm_tools_import_fails"].plugin == "llm:llm_tools_import_fails"


def test_a_broken_plugin_is_logged_on_the_nucleo_llm_logger(
    site: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Each failure is a warning that `nucleo` commands print, naming plugin and distribution."""
    with caplog.at_level(logging.WARNING, logger="nucleo.llm"):
        bridge(site)
    assert (
        "plugin llm:llm_tools_import_fails (llm-tools-import-fails 1.0) was not loaded: "
        "failed to import: RuntimeError: no settings"
    ) in caplog.messages


def test_a_second_tool_of_a_taken_name_is_left_out(site: Path) -> None:
    """Two plugins registering ``shout``: the first (by entry point name) keeps it."""
    loaded = bridge(site)
    assert [p.plugin for p in loaded.providers if p.name == "shout"] == ["llm_tools_fake"]
    record = next(r for r in loaded.records if r.name == "llm_tools_same_name")
    assert record.hook_errors == (
        "tool shout left out: llm:llm_tools_fake registered a tool of that name first",
    )


def test_strict_raises_on_the_first_broken_plugin(site: Path) -> None:
    """``strict = true``: a broken plugin is a PluginError naming it, not a skipped record."""
    config = LLMConfig.from_mapping({"strict": True, "toolboxes": {"Counter": {"start": 1}}})
    with pytest.raises(PluginError, match=r"plugin llm:llm_tools_import_fails") as raised:
        bridge(site, config)
    assert raised.value.distribution == "llm-tools-import-fails"


# -- declarations ----------------------------------------------------------------------------------


def test_undeclared_tools_are_mutating_and_of_undeclared_high_risk(site: Path) -> None:
    """Nothing configured, nothing declared: llm has no notion of read-only or risk."""
    shout = provider(bridge(site), "shout")
    assert (shout.read_only, shout.risk, shout.risk_declared) == (False, Risk.HIGH, False)


def test_a_tools_table_wins_over_its_toolboxs_which_wins_over_its_packs(site: Path) -> None:
    """Declarations are looked up tool, then Toolbox, then pack (distribution or entry point)."""
    config = LLMConfig.from_mapping(
        {
            "packs": {"llm-tools-fake": {"risk": "medium", "read_only": True}},
            "tools": {
                "Counter": {"read_only": False},
                "shout": {"risk": "low"},
            },
            "toolboxes": {"Counter": {"start": 0}},
        }
    )
    loaded = bridge(site, config)
    declared = {
        name: (provider(loaded, name).read_only, provider(loaded, name).risk)
        for name in ("shout", "Counter_increment", "structured")
    }
    assert declared == {
        "shout": (True, Risk.LOW),
        "Counter_increment": (False, Risk.MEDIUM),
        "structured": (True, Risk.MEDIUM),
    }
    by_entry_point = LLMConfig.from_mapping({"packs": {"llm_tools_fake": {"risk": "low"}}})
    assert provider(bridge(site, by_entry_point), "shout").risk is Risk.LOW


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"stict": True}, "unknown key(s) stict"),
        ({"strict": "yes"}, "strict must be true or false"),
        ({"tools": {"shout": {"risk": "severe"}}}, "risk must be one of low, medium, high"),
        ({"tools": {"shout": {"read_only": "yes"}}}, "read_only must be true or false"),
        ({"packs": {"p": {"danger": 1}}}, "must be a table with only read_only and risk"),
        ({"toolboxes": {"Counter": 3}}, "must be a table of the Toolbox's constructor"),
    ],
)
def test_a_malformed_configuration_is_refused_naming_the_key(
    table: dict[str, Any], message: str
) -> None:
    """Every mistake in the table is an LLMConfigError saying which key and what it must be."""
    with pytest.raises(LLMConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        LLMConfig.from_mapping(table)


def test_the_nearest_nucleo_toml_or_pyproject_table_is_read(tmp_path: Path) -> None:
    """``[llm]`` of nucleo.toml wins over ``[tool.nucleo.llm]`` of pyproject.toml beside it."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.nucleo.llm.tools.shout]\nrisk = "low"\n', encoding="utf-8"
    )
    inner = tmp_path / "src" / "deeper"
    inner.mkdir(parents=True)
    assert discover_config(inner).tools["shout"].risk is Risk.LOW
    (tmp_path / "nucleo.toml").write_text('[llm.tools.shout]\nrisk = "medium"\n', "utf-8")
    found = discover_config(inner)
    assert found.tools["shout"].risk is Risk.MEDIUM
    assert found.origin == f"{tmp_path / 'nucleo.toml'} [llm]"


def test_a_toolbox_lacking_or_refusing_constructor_arguments_is_left_out_saying_how(
    site: Path,
) -> None:
    """Counter needs ``start``: without it, or with an argument it lacks, its tools stay out."""
    missing = bridge(site, LLMConfig())
    assert "Counter_increment" not in {p.name for p in missing.providers}
    record = next(r for r in missing.records if r.name == "llm_tools_fake")
    assert (
        "toolbox Counter left out: its constructor needs start; set them in "
        "[llm.toolboxes.Counter] of nucleo.toml"
    ) in record.hook_errors
    unknown = bridge(site, LLMConfig.from_mapping({"toolboxes": {"Counter": {"begin": 1}}}))
    record = next(r for r in unknown.records if r.name == "llm_tools_fake")
    assert any("its constructor needs start" in problem for problem in record.hook_errors)
    extra = LLMConfig.from_mapping({"toolboxes": {"Counter": {"start": 1, "colour": "red"}}})
    record = next(r for r in bridge(site, extra).records if r.name == "llm_tools_fake")
    assert (
        "toolbox Counter left out: its constructor takes no colour ([llm.toolboxes.Counter]); "
        "it takes start, step"
    ) in record.hook_errors


def test_a_table_naming_nothing_installed_is_warned_about(
    site: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A misspelt tool name in the configuration is reported, since it silently declares nothing."""
    config = LLMConfig.from_mapping(
        {"tools": {"shuot": {"risk": "low"}}}, origin="nucleo.toml [llm]"
    )
    with caplog.at_level(logging.WARNING, logger="nucleo.llm"):
        bridge(site, config)
    assert (
        "[llm.tools.shuot] (nucleo.toml [llm]) names no installed tool, Toolbox or llm plugin; "
        "check its spelling"
    ) in caplog.messages


# -- calls ---------------------------------------------------------------------------------------


def test_calls_run_llms_implementation_sync_and_async(site: Path) -> None:
    """A plain function runs in a worker thread, a coroutine function on the loop; both answer."""
    loaded = bridge(site)
    assert call(provider(loaded, "shout"), {"text": "hey", "times": 2}) == "HEY HEY "
    assert call(provider(loaded, "wait_and_echo"), {"text": "back"}) == "back"
    assert call(provider(loaded, "named_tool"), {}) == "from a Tool"


def test_what_is_not_text_is_rendered_as_json(site: Path) -> None:
    """A dict becomes JSON; an llm.ToolOutput is its output, rendered the same way."""
    loaded = bridge(site)
    assert call(provider(loaded, "structured"), {"count": 3}) == (
        '{"count": 3, "ok": true, "none": null}'
    )
    assert call(provider(loaded, "with_output"), {"text": "é"}) == '{"text": "é"}'
    assert call(provider(loaded, "Counter_increment"), {}) == "11"


def test_a_tool_taking_llm_tool_call_receives_it(site: Path) -> None:
    """``llm_tool_call`` is not in the schema; the implementation gets an llm.ToolCall."""
    tool = provider(bridge(site), "sees_the_call")
    assert "llm_tool_call" not in tool.input_schema["properties"]
    assert call(tool, {"text": "hi"}) == "sees_the_call:hi"


def test_a_raised_exception_propagates_for_nucleo_to_report(site: Path) -> None:
    """The tool's own exception reaches nucleo's execution unchanged (it shows only the type)."""
    with pytest.raises(PermissionError, match="refused because"):
        call(provider(bridge(site), "explode"), {"reason": "policy"})


def test_input_is_checked_against_the_schema_without_echoing_values(site: Path) -> None:
    """A wrong type, a missing field or an undeclared one: field and type named, value never."""
    shout = provider(bridge(site), "shout")
    with pytest.raises(InvalidToolInput) as wrong:
        shout.parse_input({"text": 424242})
    assert str(wrong.value) == "Invalid input for tool 'shout': text: expected string"
    with pytest.raises(InvalidToolInput, match=r"text: is required \(declared type: string\)"):
        shout.parse_input({})
    with pytest.raises(InvalidToolInput) as extra:
        shout.parse_input({"text": "a", "volume-secret": 11})
    assert "undeclared field" in str(extra.value)
    assert "volume-secret" not in str(extra.value)
    with pytest.raises(InvalidToolInput, match="is not valid JSON"):
        shout.parse_input("{not json")
    assert shout.parse_input('{"text": "a"}') == {"text": "a"}


# -- Toolbox instances ---------------------------------------------------------------------------


def test_one_toolbox_instance_per_conversation_on_one_thread(site: Path) -> None:
    """Calls of one conversation share an instance (and its thread); another starts afresh."""
    increment = provider(bridge(site), "Counter_increment")
    first, second = in_conversation("c1"), in_conversation("c2")
    assert [call(increment, {}, first) for _ in range(3)] == ["11", "12", "13"]
    assert call(increment, {}, second) == "11"
    assert call(increment, {}, first) == "14"
    assert call(increment, {}) == "11"  # outside any conversation: an instance of its own
    assert increment.toolbox is not None
    assert increment.toolbox.peek("c1").value == 14
    assert len(increment.toolbox) == 2


def test_forgetting_a_conversation_drops_only_its_instance(site: Path) -> None:
    """``forget_conversation_state`` (a conversation's end) drops that conversation's instance."""
    increment = provider(bridge(site), "Counter_increment")
    call(increment, {}, in_conversation("c1"))
    call(increment, {}, in_conversation("c2"))
    increment.forget_conversation_state("c1")
    assert increment.toolbox is not None
    assert increment.toolbox.peek("c1") is None
    assert call(increment, {}, in_conversation("c1")) == "11"  # a new instance
    assert call(increment, {}, in_conversation("c2")) == "12"
    increment.forget_conversation_state()
    assert len(increment.toolbox) == 0


def test_tools_added_in_prepare_are_listed_and_called_on_each_instance(site: Path) -> None:
    """A Toolbox's prepare() runs before its tools are listed and before each instance's calls."""
    extra = provider(bridge(site), "extra")
    assert extra.description == "An extra tool added by prepare()."
    assert call(extra, {"word": "abc"}, in_conversation("c1")) == "cba"


def test_prepare_async_runs_before_the_first_call(site: Path) -> None:
    """A Toolbox overriding only prepare_async is prepared on the loop before its first call."""
    status = provider(bridge(site), "AsyncPrepared_status")
    assert call(status, {}, in_conversation("c1")) == "ready"
