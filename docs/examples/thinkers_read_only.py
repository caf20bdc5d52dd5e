"""A read-only binding: what is not declared read-only is not offered, not granted, not run."""

from nucleo_core import AnswerSize, ThinkerDeclaration, ToolHub, ToolSelector, tool
from nucleo_core.errors import ReadOnlyViolation
from nucleo_core.thinking.depth import Depth
from nucleo_core.thinking.single_objective import SingleObjectiveThinker


@tool(read_only=True, risk="low")
def read_notes(topic: str) -> str:
    """Read the team's notes on a topic."""
    return f"notes on {topic}"


@tool(risk="medium")
def write_note(topic: str, text: str) -> str:
    """Add a note on a topic."""
    return "written"


@tool(risk="high")
def erase_notes(topic: str) -> str:
    """Erase every note on a topic."""
    return "erased"


class NoteKeeper(SingleObjectiveThinker[str, str]):
    """Keeps the team's notes."""

    declaration = ThinkerDeclaration("standard", AnswerSize.SHORT)

    @classmethod
    def declare_default_tools(cls):
        """In the palette, unless the binding sweeps them."""
        return [read_notes, write_note]

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        """What request_tools may grant, once admission agrees."""
        return ToolSelector.of([erase_notes])


# Bound read-only at construction; QUICK keeps delegation out of this example's palette.
auditor = NoteKeeper(NoteKeeper.declaration, hub=ToolHub(), read_only=True, depth=Depth.QUICK)

# 1. The offer: what is not declared read-only is swept before the model sees it.
print("offered:", auditor.reconcile_tool_registry().names())

# 2. Admission: a read-only thinker is refused what is not declared read-only.
print("request_tools:", auditor.request_tools(["erase_notes"]))

# 3. The call: a tool added while the thinker runs is in the registry until the next sweep,
#    so the check at the call is the one that holds.
auditor.add_tool(erase_notes)
try:
    auditor.check_call("erase_notes")
except ReadOnlyViolation as refusal:
    print("at the call:", refusal)
print("next turn offers:", auditor.reconcile_tool_registry().names())
