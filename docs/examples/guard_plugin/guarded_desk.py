"""With acme-guard installed, every hub in the process asks it about every requested tool."""

from nucleo_core import ThinkerBase, ToolHub, ToolSelector, tool


@tool(read_only=True, risk="low")
def read_inbox() -> list[str]:
    """Read the unread messages."""
    return ["Lunch on Friday?"]


@tool  # no risk declared: it counts as high risk, and acme-guard refuses it
def forward_message(message: int, to: str) -> str:
    """Forward a message to someone."""
    return f"message {message} forwarded to {to}"


class Mailroom(ThinkerBase):
    """Sorts the mail."""

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        """The catalog its model may ask for."""
        return ToolSelector.of([read_inbox, forward_message])


hub = ToolHub.default()
for record in hub.plugins.records:
    if record.distribution == "acme-guard":
        print(record.plugin, record.status, record.contributed)

print(Mailroom().request_tools(["read_inbox", "forward_message"]))
for event in hub.admission_record:
    print(f"{event.name}: granted={event.granted}")
    for outcome in event.outcomes:
        print(f"    {outcome.guardrail}: {outcome.verdict}")
