"""A schema refiner narrows the generated input schema before any model sees it."""

from typing import Any

from nucleo_core import InvalidToolInput, SchemaRefinementError, provider_for, tool

OPEN_PROJECTS = ["apollo", "gemini"]


def only_open_projects(schema: dict[str, Any]) -> None:
    # Refine the copy in place (or return a new dict): `project` may only name an open project.
    schema["properties"]["project"]["enum"] = OPEN_PROJECTS


@tool(risk="medium", refiner=only_open_projects)
def file_ticket(project: str, title: str) -> str:
    """File a ticket in a project's tracker."""
    return f"{project}: {title}"


provider = provider_for(file_ticket)
print(provider.input_schema["properties"]["project"])

# Input is validated against the refined schema: a closed project is refused.
try:
    provider.parse_input({"project": "mercury", "title": "Fix the launch date"})
except InvalidToolInput as exc:
    print(exc)


def broken_refiner(schema: dict[str, Any]) -> None:
    raise KeyError("properties")


@tool(risk="medium", refiner=broken_refiner)
def close_ticket(ticket_id: int) -> str:
    """Close a ticket."""
    return "closed"


# A failing refiner never lets the unrefined schema through: the schema is not published at all.
try:
    provider_for(close_ticket).spec()
except SchemaRefinementError as exc:
    print(type(exc).__name__, "-", exc)
else:
    raise AssertionError("the unrefined schema was published")
