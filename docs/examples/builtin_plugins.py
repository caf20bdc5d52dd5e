from nucleo_core import PluginHost, SingleObjectiveThinker, ThinkerDeclaration, ToolHub
from nucleo_core.conversations import ConversationService
from nucleo_core.models import ModelCatalog
from nucleo_core.testing import ScriptedModel


class Researcher(SingleObjectiveThinker[str, str]):
    """A thinker with no tools of its own."""


# Every host registers nucleo's builtin plugins first; blocking a name switches one off.
hub = ToolHub(plugins=PluginHost(block=["builtin:sub_thinker"], environment={}))
for record in hub.plugins.builtins:
    print(f"{record.plugin:24} {record.status}")

thinker = Researcher(
    ThinkerDeclaration("standard", "short"),
    hub=hub,
    catalog=ModelCatalog(grades={"standard": "anthropic:any"}),
    conversations=ConversationService(":memory:"),
    client=ScriptedModel(["done"]),
)
print(thinker.reconcile_tool_registry().names())  # no sub_thinker in the palette
