"""What broken plugins produce: failed records, hook errors, and refusals, never a crash."""

import logging

from nucleo_core import (
    PluginError,
    PluginHost,
    ThinkerBase,
    ToolHub,
    ToolSelector,
    hookimpl,
    tool,
)

# Every failure is also logged as a warning on "nucleo_core.plugins"; this example reads the
# records instead, so it keeps the log quiet.
logging.getLogger("nucleo_core.plugins").setLevel(logging.ERROR)


@tool(read_only=True, risk="low")
def lookup(word: str) -> str:
    """Look a word up in the dictionary."""
    return f"{word}: a word"


class Misspelt:
    """Marks a function whose name is not a hook."""

    @hookimpl
    def nucleo_admit_tools(self, provider):
        """Meant to be nucleo_admit_tool."""


class Unmarked:
    """Forgets @hookimpl."""

    def nucleo_admit_tool(self, provider):
        """Would never be called."""


class Crashing:
    """Loads, then raises in its hook."""

    @hookimpl
    def nucleo_admit_tool(self, provider):
        """Fail the way a policy server that is down would."""
        raise RuntimeError("policy server unreachable")


class Dictionary(ThinkerBase):
    """A thinker that may ask for the lookup tool."""

    @classmethod
    def declare_compatible_tools(cls):
        """Its catalog: the lookup tool."""
        return ToolSelector().add_tool(lookup)


hub = ToolHub()
for plugin in (Misspelt(), Unmarked(), Crashing()):
    record = hub.plugins.register_plugin(plugin, name=type(plugin).__name__)
    print(f"{record.plugin}: {record.status}" + (f" ({record.error})" if record.error else ""))

result = Dictionary(hub=hub).request_tools(["lookup"])
print("the model is told:", result.refused[0].reason)
print("the admission record:", hub.admission_record[-1].outcomes[0])
print("the plugin's record:", hub.plugins.record("Crashing").hook_errors)

strict = PluginHost(strict=True)
try:
    strict.register_plugin(Misspelt(), name="Misspelt")
except PluginError as error:
    print("strict:", error)
