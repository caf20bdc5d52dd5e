"""A tool pack that loads plugins of its own reports each one through a `ToolPackResult`.

The ``llm`` bridge is the case in point: its ``nucleo.tools`` callable loads the ``llm``
group's packs. Here a pack written in the same shape (real distributions on a fake site)
returns its tools with a record per plugin of its own, one of them broken.
"""

from __future__ import annotations

import pytest
from _plugin_site import FakeSite

from nucleo_core.plugins import PluginError, PluginHost, PluginRecord, ToolPackResult

BRIDGE_MODULE = """
from nucleo_core import tool
from nucleo_core.plugins import PluginRecord, ToolPackResult


@tool(read_only=True, risk="low")
def shout(text: str) -> str:
    "Say it louder."
    return text.upper()


def bridged():
    good = PluginRecord(
        name="good_pack", group="other", value="good_pack", distribution="other-good",
        version="1.0", status="loaded", contributed=("tool: shout",),
    )
    broken = PluginRecord(
        name="broken_pack", group="other", value="broken_pack", distribution="other-broken",
        version="0.1", status="failed", error="missing dependency: absent",
        note="reinstall other-broken with its dependencies, or uninstall it",
    )
    return ToolPackResult(tools=[shout], subplugins=[broken, good])


def plain():
    return ToolPackResult(tools=[shout], subplugins=[])


def not_records():
    class Result:
        tools = [shout]
        subplugins = ["broken_pack"]

    return Result()
"""


def _bridge_site(site: FakeSite, value: str = "bridge_pack:bridged") -> None:
    site.distribution(
        "acme-bridge", {"nucleo.tools": {"bridge": value}}, modules={"bridge_pack": BRIDGE_MODULE}
    )


def test_the_packs_own_plugins_are_kept_on_its_record_and_its_tools_are_in(
    site: FakeSite,
) -> None:
    """The pack loads with its tools; each plugin of its own is a record under it, in order."""
    _bridge_site(site)
    host = PluginHost(path=[site.root], environment={})
    (record,) = host.load()
    assert (record.status, record.contributed) == ("loaded", ("tool: shout",))
    assert [(s.plugin, s.status, s.error) for s in record.subplugins] == [
        ("other:broken_pack", "failed", "missing dependency: absent"),
        ("other:good_pack", "loaded", None),
    ]
    assert host.record("nucleo.tools:bridge") == record
    assert [tool.provider.name for tool in host.pack_tools()] == ["shout"]


def test_a_strict_host_raises_for_a_failed_plugin_of_a_pack(site: FakeSite) -> None:
    """``strict=True`` makes a pack's broken plugin fatal, naming it and its reason."""
    _bridge_site(site)
    host = PluginHost(path=[site.root], environment={}, strict=True)
    with pytest.raises(PluginError, match=r"other:broken_pack: missing dependency: absent"):
        host.load()


def test_a_result_whose_records_are_not_plugin_records_fails_the_pack(site: FakeSite) -> None:
    """Anything but a `ToolPackResult` or tools is the wrong type: the pack fails, saying so."""
    _bridge_site(site, "bridge_pack:not_records")
    (record,) = PluginHost(path=[site.root], environment={}).load()
    assert record.status == "failed"
    assert record.error is not None
    assert "expected a tool provider, a ToolPackResult or an iterable" in record.error


def test_a_pack_without_plugins_of_its_own_has_no_subplugins(site: FakeSite) -> None:
    """An empty ``subplugins`` leaves the record as a plain pack's."""
    _bridge_site(site, "bridge_pack:plain")
    (record,) = PluginHost(path=[site.root], environment={}).load()
    assert (record.status, record.subplugins) == ("loaded", ())


@pytest.mark.parametrize(
    ("subplugin", "problem"),
    [
        ("broken_pack", "holds PluginRecord objects, not str"),
        (
            PluginRecord(name="x", group="other", value="x", status="failed"),
            "sub-plugin x failed: its PluginRecord needs an error",
        ),
    ],
)
def test_a_tool_pack_result_refuses_records_a_report_cannot_show(
    subplugin: object, problem: str
) -> None:
    """A sub-plugin that is not a record, or failed without saying why, is a TypeError."""
    with pytest.raises(TypeError, match=problem):
        ToolPackResult(tools=[], subplugins=[subplugin])  # type: ignore[list-item]
