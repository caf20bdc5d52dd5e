"""Developer sessions: ``nox -s tests``, ``lint``, ``typecheck``, ``docs``, ``bench``."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint", "typecheck"]
nox.options.reuse_existing_virtualenvs = True

# The peers the benchmarks measure nucleo against. They are installed in the bench session only,
# never as a dependency of nucleo itself.
# The first-party plugin distributions' packages, type-checked like the core.
FIRST_PARTY_PLUGIN_PACKAGES = [
    "plugins/nucleo-tools-files/src/nucleo_tools_files",
    "plugins/nucleo-guard-risk/src/nucleo_guard_risk",
    "plugins/nucleo-skills-core/src/nucleo_skills_core",
]
BENCH_PEERS = ["langchain-core", "pydantic-ai-slim", "openai-agents", "llm"]


@nox.session(python="3.11")
def tests(session: nox.Session) -> None:
    """Run the whole test suite."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """Ruff: style, imports, bug patterns and Google-style docstrings."""
    session.install("ruff>=0.6")
    session.run(
        "ruff", "check", "nucleo_core", "tests", "benchmarks", "docs", "noxfile.py", "plugins"
    )
    session.run("ruff", "format", "--check", "nucleo_core", "plugins")


@nox.session(python="3.11")
def typecheck(session: nox.Session) -> None:
    """Type-check the package with mypy --strict."""
    session.install("-e", ".[test]", "mypy>=1.11", "types-jsonschema", "types-PyYAML")
    session.run("mypy", "--strict", "nucleo_core")
    session.run("mypy", "--strict", *FIRST_PARTY_PLUGIN_PACKAGES)


@nox.session(python="3.11")
def docs(session: nox.Session) -> None:
    """Build the documentation site; warnings are errors."""
    session.install(".", "mkdocs>=1.6")
    session.run("mkdocs", "build", "--strict")


@nox.session(python="3.11")
def bench(session: nox.Session) -> None:
    """Benchmarks side by side with the peers, measured in one run; prints figures and ratios."""
    session.install(".[mcp]", *BENCH_PEERS)  # (j) measures MCP calls against the MCP SDK
    session.run("python", "benchmarks/run.py", *session.posargs)
