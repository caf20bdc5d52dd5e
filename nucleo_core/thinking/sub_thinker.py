"""`SubThinker` and the ``sub_thinker`` tool: a delegate any thinker can spawn while it runs.

A thinker working at its `Thinker.delegation_threshold` or deeper (`Depth.STANDARD` for every
thinker) has ``sub_thinker`` in its palette. A call launches a `SubThinker` on the objective the
model states, and everything the sub-thinker may use is taken from the parent *at launch*:

- its palette: the very provider instances the parent's palette makes available at that moment
  (inside the parent's restrictions), less what every thinker gets on its own (the meta-tools,
  which the sub-thinker builds over its own catalogs; the artifact tools, which it binds to its
  own conversation; the system-wide tools; ``sub_thinker`` itself);
- its catalogs: the parent's reconciled tool and skill catalogs, so its own ``request_tools``
  and ``request_skill`` offer exactly what the parent's did;
- its seat: the parent's declaration (grade and answer size), pin, model catalog and client, so
  a pinned parent's delegations are pinned too; its hub, conversation service, execution policy
  and correction budget;
- its binding: a read-only parent has a read-only sub-thinker (delegation never widens what may
  run), and the artifacts the model names are conveyed to it by reference;
- its admission: the hub's rules for the parent's class rule the sub-thinker's requests too
  (it names its parent as `SubThinker.delegated_by`).

It works at `Depth.STANDARD` and delegates only at `Depth.THOROUGH`, so by default it has no
``sub_thinker`` of its own.

**Approvals.** A sub-thinker's ``confirm``-level calls go to the nearest approver up its chain
(its own, its parent's..., the hub's). When none decides (there is none, or it defers) and the
root run may pause (its conversation is durable), the sub-thinker **pauses** instead of being
refused: its temporary conversation is made durable, in the same conversations' file, with its
paused turn; the ``sub_thinker`` call waits in the parent's turn, which pauses too, and the
root run raises `RunPaused` listing the sub-thinker's approvals with its own (each naming the
sub-thinker's class, and in ``requested_by`` the chain of thinkers that launched it). Resuming
the root conversation continues the sub-thinker's run where it paused (a new `SubThinker`, over
what the resumed parent offers then), and its answer is the ``sub_thinker`` call's result; the
sub-thinker's conversation is deleted once it has answered. Launched directly (not through the
tool), a sub-thinker cannot be resumed, and such a call is refused as in a temporary run.

It answers with `SubThinkerOutput`; the artifacts its answer names are linked into the parent's
conversation, under the same ids, for the parent to read.

The ``sub_thinker`` tool is declared **high** risk: what it leads to is whatever the
sub-thinker's palette holds (each of those calls is still checked on its own inside the sub-run).
It is declared read-only exactly in a read-only palette, where the sub-thinker it launches is
bound read-only too, so the read-only sweep keeps it there and nothing mutating can run through
it. It is not sequential: two delegations of one turn run side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from nucleo_core.conversations.errors import ArtifactNotFound
from nucleo_core.errors import CorrectableError, MisuseError, NotPaused, ResponseError, RunPaused
from nucleo_core.hub.meta_tools import REQUEST_SKILL, REQUEST_TOOLS
from nucleo_core.hub.thinker_base import ThinkerBase
from nucleo_core.thinking._delegation_prompts import _DESCRIPTION, _SYSTEM, SubThinkerRequest
from nucleo_core.thinking._delegation_surface import _ceiling_from, _delegable
from nucleo_core.thinking._execution_durable import DelegationPaused, DelegationState
from nucleo_core.thinking.depth import Depth
from nucleo_core.thinking.io import SubThinkerInput, SubThinkerOutput
from nucleo_core.thinking.single_objective import SingleObjectiveThinker
from nucleo_core.thinking.thinker import Thinker, ThinkerIterationLimit
from nucleo_core.tools.decorator import tool
from nucleo_core.tools.providers import provider_for
from nucleo_core.tools.reserved import SUB_THINKER
from nucleo_core.tools.tool import Tool

if TYPE_CHECKING:
    from nucleo_core.conversations import ArtifactStore, ConversationContext
    from nucleo_core.guard.approval_store import ApprovalRecord, ApprovalStore
    from nucleo_core.skills.skill import Skill
    from nucleo_core.tools.provider import ToolProvider

__all__ = ["SUB_THINKER", "SubThinker", "SubThinkerRequest", "sub_thinker_tool"]


class _Delegation(Tool[SubThinkerRequest, SubThinkerOutput]):
    """One ``sub_thinker`` call: launches a `SubThinker` for the thinker that runs it."""

    #: Whether the sub-thinker is bound read-only whatever its parent's binding.
    binds_read_only: ClassVar[bool] = False
    #: The paused sub-thinker this call continues (a resumed turn's), else ``None``.
    _resumed: DelegationState | None = None

    def resume_from(self, state: DelegationState) -> None:
        """Continue the sub-thinker's run ``state`` keeps instead of launching a new one."""
        self._resumed = state

    async def run(self, input: SubThinkerRequest) -> SubThinkerOutput:
        """Run the sub-thinker to its answer; link the artifacts it names into the parent's.

        In a turn that may pause, a sub-thinker that pauses makes the call wait
        (`DelegationPaused`); a resumed call continues that sub-thinker's run.
        """
        parent = self.parent
        if not isinstance(parent, Thinker):
            raise MisuseError(
                f"{SUB_THINKER} runs for a Thinker (it delegates part of the thinker's "
                f"objective), not for {type(parent).__name__}"
            )
        source = parent.conversation.artifacts if parent.conversation is not None else None
        conveyed = []
        for artifact_id in dict.fromkeys(input.artifact_refs):
            if source is None:
                raise ArtifactNotFound(())
            conveyed.append(source.get(artifact_id).ref)
        resumed = self._resumed
        read_only = self.binds_read_only or (resumed is not None and resumed.read_only)
        sub = SubThinker(parent, read_only=read_only)
        sub._resumable = parent._pausable  # a pause it makes can be resumed through the root
        paused = False
        try:
            if resumed is None:
                output = await sub.run(
                    SubThinkerInput(objective=input.objective, artifact_refs=tuple(conveyed))
                )
            else:
                output = await sub.resume(resumed.conversation_id)
        except RunPaused as exc:
            paused = True
            state = DelegationState(exc.conversation_id, sub.read_only, exc.approvals)
            raise DelegationPaused(state) from None
        except NotPaused as exc:  # resumed: its answer was given, but not kept by the parent
            if resumed is None:
                raise
            raise CorrectableError(
                "The sub-thinker's run was resumed after a stop, but the answer it gave then "
                "was not kept; what it ran is not run again. Delegate again if you still need "
                "its result."
            ) from exc
        except ThinkerIterationLimit as exc:
            raise CorrectableError(
                f"The sub-thinker reached its limit of {sub.max_iterations} turns without an "
                "answer; delegate a narrower objective, or work on it yourself."
            ) from exc
        except ResponseError as exc:
            raise CorrectableError(
                f"The sub-thinker's answer stayed unusable after {exc.attempts} attempt(s); "
                "delegate again with a clearer objective, or work on it yourself."
            ) from exc
        finally:
            usage = sub.last_usage
            if usage is not None:
                parent.record_usage(usage)
            parent.record_tool_failures(sub.last_tool_failures or ())
            if resumed is not None and not paused:
                _forget(parent, resumed.conversation_id)
        artifacts = sub.artifacts
        if output.artifact_refs and source is not None and artifacts is not None:
            source.link(output.artifact_refs, artifacts)
        return output


def _forget(parent: Thinker[Any, Any], conversation_id: str) -> None:
    """Delete a resumed sub-thinker's conversation: kept only for its pause, now over."""
    import logging

    try:
        parent.conversations.delete(conversation_id)
    except Exception:  # a leftover conversation is untidy, never unsafe: nothing resumes it
        logging.getLogger("nucleo.thinking").exception(
            "the conversation %s of a resumed sub-thinker could not be deleted", conversation_id
        )


@tool(
    name=SUB_THINKER,
    description=_DESCRIPTION,
    display_name="Sub-thinker",
    action_verb="Delegating",
    risk="high",
)
class _MutatingDelegation(_Delegation):
    """``sub_thinker`` in a palette that is not read-only."""


@tool(
    name=SUB_THINKER,
    description=_DESCRIPTION,
    display_name="Sub-thinker",
    action_verb="Delegating",
    read_only=True,
    risk="high",
)
class _ReadOnlyDelegation(_Delegation):
    """``sub_thinker`` in a read-only palette: the sub-thinker it launches is read-only too."""

    binds_read_only = True


_PROVIDERS: dict[bool, ToolProvider] = {}


def sub_thinker_tool(thinker: ThinkerBase) -> ToolProvider:
    """The ``sub_thinker`` provider for ``thinker``'s palette (one per binding, per process).

    The read-only variant for a read-only thinker: it is declared read-only, and the
    sub-thinker it launches is bound read-only whoever runs it.
    """
    read_only = thinker.read_only
    provider = _PROVIDERS.get(read_only)
    if provider is None:
        target = _ReadOnlyDelegation if read_only else _MutatingDelegation
        provider = _PROVIDERS.setdefault(read_only, provider_for(target))
    return provider


class SubThinker(SingleObjectiveThinker[SubThinkerInput, SubThinkerOutput]):
    """A delegate launched by a running thinker: its tools, catalogs and seat are the parent's.

    See the module documentation for what is inherited. Launch one through the parent's
    ``sub_thinker`` tool, or directly while the parent runs (inside one of its tools)::

        output = await SubThinker(parent).run(SubThinkerInput(objective="..."))

    Args:
        parent: The thinker delegating; what it offers is captured now.
        read_only: Bind the sub-thinker read-only even when the parent is not (a read-only
            parent always has a read-only sub-thinker).
        depth: How deep the sub-thinker works; it delegates in turn only at `Depth.THOROUGH`.
        system: The system text; a sub-thinker's own preamble by default.
    """

    top_level: ClassVar[bool] = False

    def __init__(
        self,
        parent: Thinker[Any, Any],
        *,
        read_only: bool = False,
        depth: Depth = Depth.STANDARD,
        system: str | None = None,
    ) -> None:
        super().__init__(
            parent.declaration,
            hub=parent.hub,
            catalog=parent.catalog,
            conversations=parent.conversations,
            pin=parent.pin,
            read_only=parent.read_only or read_only,
            depth=depth,
            execution=parent.execution,
            system=_SYSTEM if system is None else system,
            correction=parent.correction,
            client=parent.client,
        )
        self.parent = parent
        self._ceiling = _ceiling_from(parent)
        # As ThinkerBase computes them (an override of the parent's cannot widen delegation),
        # and only when the parent could ask for more itself at launch, within its own surface.
        surface = self._ceiling
        self._tool_catalog: tuple[ToolProvider, ...] = (
            tuple(p for p in ThinkerBase.tool_catalog(parent) if p.name in surface)
            if REQUEST_TOOLS in surface
            else ()
        )
        self._skill_catalog: tuple[Skill, ...] = (
            tuple(ThinkerBase.skill_catalog(parent)) if REQUEST_SKILL in surface else ()
        )
        context = parent.conversation
        self._source: ArtifactStore | None = context.artifacts if context is not None else None
        self._conveyed: tuple[str, ...] = ()
        self._artifacts: ArtifactStore | None = None
        self._delegator = parent
        for provider in _delegable(parent):
            self._inherited[provider.name] = self.add_tool(provider)
        self.approval_expiry = parent.approval_expiry
        # Whether a pause of this sub-thinker can be resumed: set by the ``sub_thinker`` tool
        # when its parent's run may pause itself (see the module).
        self._resumable = False

    @property
    def delegated_by(self) -> Thinker[Any, Any]:
        """The thinker this one acts for: the hub's admission rules for its class apply here."""
        return self.parent

    def delegation_threshold(self) -> Depth:
        """A sub-thinker delegates in turn only at `Depth.THOROUGH`."""
        return Depth.THOROUGH

    def state_owner(self, provider: ToolProvider) -> Thinker[Any, Any]:
        """The parent's owner for a tool inherited from the parent; this thinker for its own.

        A delegate works on the state its parent's conversation keeps for an inherited tool,
        and its end does not tell that tool anything: the parent's conversation has not ended.
        """
        inherited = self._inherited.get(provider.name)
        if inherited is not None and (inherited is provider or inherited == provider):
            return self.parent.state_owner(provider)
        return self

    # -- pauses -------------------------------------------------------------------------------

    def approval_store(self) -> ApprovalStore:
        """Its own `approvals` when set, else its parent's store: the root files every pause."""
        if self.approvals is not None:
            return self.approvals
        return self.parent.approval_store()

    def _may_pause(self, context: ConversationContext) -> bool:
        """Only when launched by the ``sub_thinker`` tool of a run that may pause."""
        del context
        return self._resumable

    def _resuming_conversation(self, context: ConversationContext) -> str:
        """The root's conversation: resuming it continues this run."""
        del context
        above = self.parent.conversation
        if above is None:  # launched while the parent runs: never without its conversation
            raise MisuseError("a sub-thinker pauses only while its parent runs")
        return self.parent._resuming_conversation(above)

    def _keep_pause(
        self, context: ConversationContext, approvals: tuple[ApprovalRecord, ...]
    ) -> None:
        """Keep the conversation (with its paused turn) durably; the root files the approvals."""
        del approvals
        if not context.durable:
            self.conversations.make_durable(context)

    # -- the captured catalogs ----------------------------------------------------------------

    def _catalog_base(self) -> Sequence[ToolProvider]:
        """The parent's reconciled catalog as captured at launch.

        Narrowed from there, like any thinker's, by the surface restriction of a skill this
        sub-thinker attached and by `reconcile_catalog`.
        """
        return self._tool_catalog

    def _skill_catalog_base(self) -> Sequence[Skill]:
        """The parent's reconciled skill catalog as captured at launch."""
        return self._skill_catalog

    # -- the run ------------------------------------------------------------------------------

    @property
    def artifacts(self) -> ArtifactStore | None:
        """The artifacts of the last run's conversation (readable after the run), if any."""
        return self._artifacts

    async def run(
        self,
        input: SubThinkerInput,
        *,
        conversation_id: str | None = None,
        durable: bool = False,
    ) -> SubThinkerOutput:
        """Run the delegated objective; the conveyed artifacts are linked in first.

        Raises:
            ArtifactNotFound: A conveyed artifact is not kept in the parent's conversation.
            ThinkerIterationLimit: No answer within ``max_iterations`` turns.
            ResponseParseError: The model's answer stayed unparseable within the budget.
            ResponseValidationError: The model's answer stayed invalid within the budget.
            ModelError: The model provider failed.
        """
        self._conveyed = tuple(ref.id for ref in input.artifact_refs)
        return await super().run(input, conversation_id=conversation_id, durable=durable)

    async def think(self, context: ConversationContext) -> SubThinkerOutput:
        """Link the conveyed artifacts into ``context``, then run the loop."""
        self._artifacts = context.artifacts
        if self._conveyed:
            if self._source is None:
                raise ArtifactNotFound(())
            context.artifacts.link(self._conveyed, self._source)
        return await super().think(context)

    def render_input(self, input: SubThinkerInput) -> str:
        """The objective, then the artifacts conveyed (ids, sizes and media types)."""
        if not input.artifact_refs:
            return input.objective
        lines = [
            input.objective,
            "",
            "Artifacts conveyed to you (read them with get_artifact_field and "
            "search_artifact_content):",
        ]
        lines += [f"- {ref.id}: {ref.size} chars, {ref.media_type}" for ref in input.artifact_refs]
        return "\n".join(lines)
