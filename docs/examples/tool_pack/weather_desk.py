"""A thinker that selects the installed acme weather pack, and a model asking for its tools."""

from nucleo_core import ThinkerBase, ToolHub, ToolSelector


class WeatherDesk(ThinkerBase):
    """Answers questions about the weather."""

    @classmethod
    def declare_compatible_tools(cls) -> ToolSelector:
        """Every installed pack whose entry point name matches: no module is named here."""
        return ToolSelector().add_pack("acme-weather*")


# The process hub loads the installed plugins the first time it is asked for.
for record in ToolHub.default().plugins.records:
    if record.distribution == "acme-weather-tools":
        print(record.plugin, record.status, record.contributed)

desk = WeatherDesk()
print("catalog:", [provider.name for provider in desk.tool_catalog()])

# What the model's call to request_tools does: admitted tools join the palette.
print(desk.request_tools(["current_weather", "forecast"]))
palette = desk.reconcile_tool_registry()
print("palette:", palette.names())

# Every call is checked at the call itself, then runs.
provider = desk.check_call("forecast")
print(provider.create(desk).run(provider.parse_input({"city": "Lisbon", "days": 2})))
