"""A ToollessThinker: one exchange, no tools, a typed input; its guardrail may ask again."""

import asyncio

from pydantic import BaseModel

from nucleo_core import AnswerSize, ModelCatalog, ThinkerDeclaration, ToolHub
from nucleo_core.errors import MisuseError
from nucleo_core.testing import ScriptedModel, override_client
from nucleo_core.thinking.toolless import ToollessThinker


class Article(BaseModel):
    """The input: what to write a headline for."""

    title: str
    summary: str


class Headliner(ToollessThinker[Article, str]):
    """Writes one headline for an article."""

    declaration = ThinkerDeclaration("fast", AnswerSize.SHORT)

    def validate_answer(self, answer: str) -> str | None:
        """Refuse a headline that is too long, saying how long it may be."""
        if len(answer) > 40:
            return "Keep the headline to 40 characters."
        return None


model = ScriptedModel(
    ["Lisbon's tram 28 returns after a long renovation", "Tram 28 is back in Lisbon"]
)
catalog = ModelCatalog(grades={"fast": "anthropic:claude-haiku-4-5"})
headliner = Headliner(Headliner.declaration, hub=ToolHub(), catalog=catalog)
article = Article(title="Tram 28", summary="The line reopens after eight months of works.")


async def main() -> None:
    with override_client(model):
        print(await headliner.run(article))
    first = model.requests[0]
    print("the model read:", first.messages[0].text)
    print("tools sent:", first.tools, "| requests:", len(model.requests))
    try:
        headliner.add_tool(lambda: None)
    except MisuseError as error:
        print("add_tool:", error)


asyncio.run(main())
