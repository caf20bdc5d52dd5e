"""Class tools: `Tool[In, Out]`, sync or async `run`, built per call by `create(parent)`."""

import asyncio

from pydantic import BaseModel, Field

from nucleo_core import Tool, provider_for, run_tool, tool


class ConvertInput(BaseModel):
    """An amount to convert."""

    amount: float = Field(gt=0, description="The amount, in the source currency.")
    currency: str = Field(pattern="^[A-Z]{3}$", description="ISO 4217 code, e.g. EUR.")


class Conversion(BaseModel):
    """A converted amount."""

    amount: float
    currency: str


@tool(read_only=True, risk="low")
class ConvertToUsd(Tool[ConvertInput, Conversion]):
    """Convert an amount of money to US dollars."""

    def run(self, input: ConvertInput) -> Conversion:
        """Convert at today's fixed rate."""
        rate = {"EUR": 1.08, "GBP": 1.27}[input.currency]
        return Conversion(amount=round(input.amount * rate, 2), currency="USD")


@tool(name="fetch_rates", read_only=True, risk="low")
class FetchRates(Tool[ConvertInput, str]):
    """Fetch the latest exchange rate for a currency."""

    def __init__(self, parent: object | None = None) -> None:
        super().__init__(parent)
        # `parent` is whoever the tool runs for (a thinker), or None.
        self.caller = parent

    async def run(self, input: ConvertInput) -> str:
        """Fetch without blocking the event loop."""
        await asyncio.sleep(0)
        return f"1 {input.currency} = 1.08 USD (asked by {self.caller})"


convert = provider_for(ConvertToUsd)
print(convert.name, convert.output_schema is not None)  # a pydantic output has a schema

# A provider parses what the model sent, builds a tool for one call, and runs it.
call_input = convert.parse_input('{"amount": 10, "currency": "EUR"}')
print(asyncio.run(run_tool(convert.create(parent=None), call_input)))

# An async `run` is awaited; a sync one runs in a worker thread so it cannot stall the loop.
fetch = provider_for(FetchRates)
call_input = fetch.parse_input({"amount": 1, "currency": "EUR"})
print(asyncio.run(run_tool(fetch.create(parent="report-writer"), call_input)))

# The name defaults to the class name in snake_case, unless @tool(name=...) says otherwise.
assert convert.name == "convert_to_usd"
assert fetch.name == "fetch_rates"
