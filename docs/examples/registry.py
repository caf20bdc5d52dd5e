"""A ToolRegistry: one tool per name, a stable order, and the surface a call may reach."""

from pydantic import BaseModel

from nucleo_core import Phase, Tool, ToolCollisionError, ToolRegistry, UnknownTool, tool


@tool(read_only=True, risk="low")
def read_file(path: str) -> str:
    """Read a text file."""
    return ""


@tool(risk="medium")
def write_file(path: str, text: str) -> str:
    """Write a text file."""
    return "written"


@tool(risk="high")
def run_command(command: str) -> str:
    """Run a shell command."""
    return ""


registry = ToolRegistry([read_file, write_file])
registry.register(run_command)
registry.register(read_file)  # registering again is a no-op: it keeps its place
print(registry.names())


class ReadInput(BaseModel):
    """Which file."""

    path: str


@tool(name="read_file", read_only=True, risk="low")
class SandboxedRead(Tool[ReadInput, str]):
    """Read a text file inside the sandbox."""

    def run(self, input: ReadInput) -> str:
        """Read it."""
        return ""


# A different kind of provider under a taken name is a collision, unless asked for deliberately.
try:
    registry.register(SandboxedRead)
except ToolCollisionError:
    registry.register(SandboxedRead, shadow=True)
print(registry.shadowed[0].replaced_kind, "->", registry.shadowed[0].by_kind)
print(registry.names())  # the replacement kept the tool's place

# Lookups take the bare name or the source-prefixed id.
assert registry.get("native:read_file") is registry.get("read_file")

# A restriction narrows what a call can reach; restrictions add up as a union.
registry.restrict("skill:review", ["read_file"])
print(registry.available_names(), registry.available("write_file"))
registry.lift_restriction("skill:review")

# In a phase, the tools it does not permit are absent: not in the specs, not callable.
registry.enter_phase(Phase.read_only_tools("planning"))
print([spec.name for spec in registry.specs()])
try:
    registry.create_tool("run_command")
except UnknownTool as exc:
    print(exc)
registry.enter_phase(None)
print(registry.available_names())
