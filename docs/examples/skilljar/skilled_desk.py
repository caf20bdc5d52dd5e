"""A thinker offered every skill of the installed acme skilljar, and a model pulling one in."""

from nucleo_core import SkillSelector, ThinkerBase, ToolHub, UnknownTool, tool


@tool(read_only=True, risk="low")
def current_weather(city: str) -> str:
    """Say what the weather is like in a city right now."""
    return f"{city}: 21°C, sunny"


@tool(read_only=True, risk="low")
def forecast(city: str, days: int = 3) -> str:
    """Forecast the weather for a city."""
    return f"{city}: sunny for the next {days} days"


@tool(risk="medium")
def subscribe_alerts(city: str, email: str) -> str:
    """Send weather alerts for a city to an email address."""
    return f"{email} will hear about storms in {city}"


class WeatherDesk(ThinkerBase):
    """Answers questions about the weather."""

    @classmethod
    def declare_default_tools(cls):
        """The tools every instance's palette holds."""
        return [current_weather, forecast, subscribe_alerts]

    @classmethod
    def declare_compatible_skills(cls) -> SkillSelector:
        """Every skill of the acme_skills package, whichever skills it holds."""
        return SkillSelector().add_bundle("acme_skills")


hub = ToolHub.default()
for record in hub.plugins.records:
    if record.distribution == "acme-skills":
        print(record.plugin, record.status, record.contributed)
for skill in hub.skills.select_bundle("acme_skills"):
    print(f"{skill.qualified_name}: allowed-tools {skill.allowed_tools}")

desk = WeatherDesk()
print("skills offered:", [skill.name for skill in desk.skill_catalog()])
print("callable:", desk.reconcile_tool_registry().available_names())

# What the model's call to request_skill does: the skill joins the conversation...
print(desk.request_skill("weather-report"))
print(desk.skills[0].instructions.splitlines()[0])
# ...and its allowed-tools narrow what can be called, at the call itself.
print("callable:", desk.reconcile_tool_registry().available_names())
try:
    desk.check_call("subscribe_alerts")
except UnknownTool as refusal:
    print("refused:", refusal)
