"""Tools, guardrails, hook plugins and skills shared by the hub contract tests.

The guardrails here answer what they are told (grant, refuse, raise, or something that is not a
verdict at all) and remember who built them and what they were asked, so a test can assert
that a guardrail was asked even when another one crashed.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from nucleo_core import Skill, Tool, ToolProvider, Verdict, hookimpl, tool
from nucleo_core.hub.hub import INTERNAL_ERROR

__all__ = [
    "INTERNAL_ERROR",
    "AdmitHook",
    "Deploy",
    "Guardrail",
    "Rule",
    "Summarize",
    "github_issues",
    "github_pulls",
    "lookup",
    "make_skill",
    "write_record",
]

# -- tools ---------------------------------------------------------------------------------------


@tool(read_only=True, risk="low")
def lookup(query: str) -> str:
    """Look a term up in the glossary."""
    return query


@tool(risk="medium")
def write_record(key: str, value: str) -> str:
    """Write one record to the store."""
    return f"{key}={value}"


@tool(read_only=True, risk="low")
def github_issues(repository: str) -> list[str]:
    """List a GitHub repository's open issues."""
    return [repository]


@tool(read_only=True, risk="low")
def github_pulls(repository: str) -> list[str]:
    """List a GitHub repository's open pull requests."""
    return [repository]


class DeployInput(BaseModel):
    service: str


@tool(name="deploy", risk="high")
class Deploy(Tool[DeployInput, str]):
    """Deploy a service to production."""

    def run(self, input: DeployInput) -> str:
        return input.service


class SummarizeInput(BaseModel):
    text: str


@tool(name="summarize", read_only=True, risk="low")
class Summarize(Tool[SummarizeInput, str]):
    """Summarize a text in one paragraph."""

    def run(self, input: SummarizeInput) -> str:
        return input.text[:10]


# -- guardrails ----------------------------------------------------------------------------------


class Guardrail:
    """One guardrail, built for one thinker: answers as its rule says and records the ask."""

    def __init__(self, rule: Rule, thinker: object) -> None:
        self.rule = rule
        self.thinker = thinker

    def check(self, subject: Any) -> Any:
        self.rule.asked.append((self.thinker, subject))
        answer = self.rule.answer
        if isinstance(answer, BaseException):
            raise answer
        return answer


class Rule:
    """A guardrail factory: builds a fresh `Guardrail` per call and records every build.

    Attributes:
        answer: What its guardrails answer (a `Verdict`), raise (an exception), or return
            instead of a verdict (anything else).
        built: Every guardrail built, in order.
        asked: ``(thinker, subject)`` for every check made, in order.
    """

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.built: list[Guardrail] = []
        self.asked: list[tuple[object, Any]] = []

    @classmethod
    def grant(cls) -> Rule:
        """A rule whose guardrails grant."""
        return cls(Verdict.grant("fine by me"))

    @classmethod
    def refuse(cls, reason: str) -> Rule:
        """A rule whose guardrails refuse with ``reason``."""
        return cls(Verdict.refuse(reason))

    @classmethod
    def crash(cls, message: str = "guardrail exploded: secret-detail-42") -> Rule:
        """A rule whose guardrails raise ``RuntimeError(message)``."""
        return cls(RuntimeError(message))

    def __call__(self, thinker: object) -> Guardrail:
        guardrail = Guardrail(self, thinker)
        self.built.append(guardrail)
        return guardrail

    @property
    def asked_names(self) -> list[str]:
        """The names of the tools or skills asked about, in order."""
        return [subject.name for _, subject in self.asked]


class AdmitHook:
    """A hook plugin implementing both admission hooks: answers as told, records each ask."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.asked: list[tuple[object, Any]] = []

    def _say(self, thinker: object, subject: Any) -> Any:
        self.asked.append((thinker, subject))
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer

    @hookimpl
    def nucleo_admit_tool(self, thinker: Any, provider: ToolProvider) -> Any:
        # Any, not Verdict | None: tests script wrong answers too, to see them refused.
        return self._say(thinker, provider)

    @hookimpl
    def nucleo_admit_skill(self, thinker: Any, skill: Skill) -> Any:
        return self._say(thinker, skill)


# -- skills --------------------------------------------------------------------------------------


def make_skill(name: str, bundle: str = "", allowed_tools: tuple[str, ...] | None = None) -> Skill:
    """A skill as a loader would build it, without a folder."""
    return Skill(
        name=name,
        description=f"How to do {name}, step by step.",
        instructions=f"Do {name} carefully.",
        bundle=bundle,
        allowed_tools=allowed_tools,
    )
