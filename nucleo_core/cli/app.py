"""The ``nucleo`` click group, and its ``tools`` commands.

``nucleo tools`` lists and ``nucleo tools show NAME`` shows; ``--from`` and ``--json`` may be
given before or after ``show``, and both placements add up. The other commands (``plugins``,
``skills``, ``catalog``, ``ask``, ``run``, ``chat``, ``demo``) each live in a module of their
own. A mistake in what the user asked (a source that cannot be imported, a misdeclared tool, an
unknown name) is printed as one ``Error:`` message with exit code 2, never as a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from nucleo_core._version import __version__
from nucleo_core.cli import render
from nucleo_core.cli.approvals import approvals
from nucleo_core.cli.ask import ask
from nucleo_core.cli.audit import audit
from nucleo_core.cli.catalog import catalog
from nucleo_core.cli.chat import chat
from nucleo_core.cli.command_error import CommandError
from nucleo_core.cli.demo import demo
from nucleo_core.cli.hub import loaded_hub
from nucleo_core.cli.links import DOCS_URL, docs_page
from nucleo_core.cli.mcp import mcp
from nucleo_core.cli.plugins import plugins
from nucleo_core.cli.repeatable_option import repeatable_option
from nucleo_core.cli.resume import resume
from nucleo_core.cli.run import run
from nucleo_core.cli.serve import serve
from nucleo_core.cli.skills import skills
from nucleo_core.cli.sources import CollectedTools, ToolSourceError, collect_registry
from nucleo_core.cli.store import store

if TYPE_CHECKING:
    from nucleo_core.hub import ToolHub
    from nucleo_core.tools import ToolFormat, ToolProvider

__all__ = ["main", "nucleo"]

_Command = TypeVar("_Command", bound=Callable[..., Any])

#: ``--format`` values: nucleo's own view, or one model provider's tool definition.
FORMATS = ("neutral", "openai", "anthropic", "mcp")


def _from_option(command: _Command) -> _Command:
    return repeatable_option(
        "--from",
        "sources",
        "MODULE_OR_PATH",
        "Load the tools a module defines: a dotted module name (found as `python -m` finds "
        "one) or a path to a .py file. Repeatable.",
    )(command)


def _json_option(command: _Command) -> _Command:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON, for machines.")(
        command
    )


@click.group(
    context_settings={"help_option_names": ["-h", "--help"]},
    # \b keeps click from rewrapping the paragraph: a URL broken in two cannot be followed.
    epilog=(
        f"\b\nDocumentation: {DOCS_URL}\n"
        f"Shell completion (bash, zsh, fish): {docs_page('cli', 'shell-completion')}"
    ),
)
@click.version_option(__version__, "-V", "--version", prog_name="nucleo")
def nucleo() -> None:
    """nucleo: LLM agents whose tools are decided in code and enforced at every call."""


@nucleo.group(invoke_without_command=True)
@_from_option
@_json_option
@click.pass_context
def tools(ctx: click.Context, sources: tuple[str, ...], as_json: bool) -> None:
    """List the tools this process has, and those of each --from source.

    The process has the tools of every installed tool pack and the system-wide tools plugins
    add, and those of the MCP servers configured for the project (`nucleo mcp` shows the
    servers). Tools are listed under their origin; each row shows the tool's name, source,
    whether it is declared read-only, its declared risk ("high (undeclared)" when none was
    declared) and the first line of its description. `nucleo tools show NAME` shows one tool
    in full.
    """
    if ctx.invoked_subcommand is not None:
        return  # the subcommand reads these options from this context
    hub = loaded_hub()
    collected = _collect(hub, sources)
    providers = collected.registry.providers()
    if as_json:
        render.print_json([_summary(provider, collected) for provider in providers])
    elif not providers:
        render.print_empty(sources, packs_not_loaded=_packs_not_loaded(hub))
    else:
        origins = [collected.origin(provider) for provider in providers]
        # Tools listed under one title saying which --from source they come from would only
        # repeat what was typed: the one source given is the one origin.
        alone = len(sources) == 1 and set(origins) == {f"--from {sources[0]}"}
        render.print_tool_table(providers, None if alone else origins)


@tools.command()
@click.argument("name")
@_from_option
@_json_option
@click.option(
    "--format",
    "format_",
    type=click.Choice(FORMATS),
    default="neutral",
    show_default=True,
    help=(
        "neutral: nucleo's own view. openai, anthropic, mcp: the definition that model "
        "provider is sent, always as JSON."
    ),
)
@click.pass_context
def show(
    ctx: click.Context, name: str, sources: tuple[str, ...], as_json: bool, format_: str
) -> None:
    """Show one tool in full: its declarations, description and schemas.

    NAME is the tool's name, bare (forecast) or with its source prefix (native:forecast).
    """
    group = ctx.parent.params if ctx.parent is not None else {}
    all_sources = (*group.get("sources", ()), *sources)
    collected = _collect(loaded_hub(), all_sources)
    provider = collected.registry.get_provider_by_name(name)
    if provider is None:
        raise CommandError(_unknown_tool_message(name, collected))
    if format_ != "neutral":
        render.print_json(render.rendered_for(provider, cast("ToolFormat", format_)))
    elif as_json or group.get("as_json", False):
        render.print_json({**_summary(provider, collected), **render.tool_schemas(provider)})
    else:
        render.print_tool_detail(provider, collected.origin(provider))


nucleo.add_command(plugins)
nucleo.add_command(skills)
nucleo.add_command(catalog)
nucleo.add_command(ask)
nucleo.add_command(run)
nucleo.add_command(chat)
nucleo.add_command(demo)
nucleo.add_command(mcp)
nucleo.add_command(audit)
nucleo.add_command(approvals)
nucleo.add_command(resume)
nucleo.add_command(serve)
nucleo.add_command(store)


def main(args: Sequence[str] | None = None) -> None:
    """Run the ``nucleo`` command line; the console script's entry point.

    Args:
        args: The arguments, without the program name; ``None`` reads ``sys.argv``.
    """
    nucleo.main(args=None if args is None else list(args), prog_name="nucleo")


def _collect(hub: ToolHub, sources: Sequence[str]) -> CollectedTools:
    try:
        collected = collect_registry(sources, hub=hub)
    except ToolSourceError as exc:
        raise CommandError(str(exc)) from exc
    for warning in collected.warnings:
        click.echo(f"Warning: {warning}", err=True)
    return collected


def _summary(provider: ToolProvider, collected: CollectedTools) -> dict[str, Any]:
    """A tool's JSON object: its summary, then where it comes from."""
    return {**render.tool_summary(provider), "origin": collected.origin(provider)}


def _packs_not_loaded(hub: ToolHub) -> int:
    return sum(
        1
        for record in hub.plugins.records
        if record.group == "nucleo.tools" and record.status in ("failed", "blocked", "disabled")
    )


def _unknown_tool_message(name: str, collected: CollectedTools) -> str:
    available = collected.registry.names()
    if not available:
        return (
            f"no tool named '{name}': no tools are registered (install a tool pack, or add "
            "some with --from)"
        )
    return f"no tool named '{name}'. Available tools: {', '.join(available)}"
