"""A permission hook: a plugin that tightens the policy, and one that fails, which denies."""

import logging

from nucleo_core import FunctionToolProvider, PluginHost, hookimpl, tool
from nucleo_core.guard import PermissionGuard

# A failing hook is also logged as a warning (on "nucleo_core.plugins", with its distribution);
# this example prints the decision's detail instead, so it keeps the log quiet.
logging.getLogger("nucleo_core.plugins").setLevel(logging.ERROR)


@tool(read_only=True, risk="low")
def search_tickets(query: str) -> list[str]:
    """Search the support tickets."""
    return [query]


@tool(risk="medium")
def reply_to_ticket(ticket: int, text: str) -> str:
    """Reply to a ticket."""
    return text


class FreezeWindow:
    """During a deployment freeze, every call that is not read-only waits for a person."""

    @hookimpl
    def nucleo_permission(self, provider):
        """Confirm every call of a tool not declared read-only; no opinion otherwise."""
        return None if provider.read_only else "confirm"


class Broken:
    """A plugin whose answer is not a decision."""

    @hookimpl
    def nucleo_permission(self, arguments):
        """Answer something that is not a decision (which denies)."""
        return "allow"


host = PluginHost(environment={})
host.register_plugin(FreezeWindow(), name="freeze-window")
guard = PermissionGuard(host=host, hook_timeout=2.0)
search = FunctionToolProvider(search_tickets)
reply = FunctionToolProvider(reply_to_ticket)
for provider, arguments in ((search, {"query": "refund"}), (reply, {"ticket": 7, "text": "Hi"})):
    decided = guard.decide(None, provider, arguments)
    print(f"{provider.name:16} {decided.decision.value:8} {decided.decided_by}")

host.register_plugin(Broken(), name="broken", distribution="acme-broken")
decided = guard.decide(None, search, {"query": "refund"})
print(f"{search.name:16} {decided.decision.value:8} {decided.decided_by}")
print(decided.reason)
print(decided.detail)
