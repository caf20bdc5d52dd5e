"""A model catalog read from TOML: entries with their limits, grades, and a pin."""

import tempfile
import tomllib
from pathlib import Path

from nucleo_core.errors import ModelNotConfigured
from nucleo_core.models import AnswerSize, ModelCatalog, ThinkerDeclaration

# What a project's nucleo.toml holds (pyproject.toml holds the same under [tool.nucleo.models]).
NUCLEO_TOML = """
[models.grades]
fast = "openai-compatible:http://127.0.0.1:11434/v1#llama3.2"
standard = "anthropic:claude-sonnet-4-5"
strong = "openai:gpt-4.1"

[models.entries."anthropic:claude-sonnet-4-5"]
context_window = 200_000
max_output_tokens = 64_000

[models.entries."openai-compatible:http://127.0.0.1:11434/v1#llama3.2"]
context_window = 131_072
max_output_tokens = 4_096
native_tools = false
"""

catalog = ModelCatalog.from_mapping(tomllib.loads(NUCLEO_TOML)["models"])

for grade, entry_id in catalog.grades.items():
    entry = catalog.entries[entry_id]
    print(f"{grade:<9} {entry.provider:<17} {entry.model:<17}", end=" ")
    print(f"context {entry.context_window:>7,}  output {entry.max_output_tokens:>6,}", end="  ")
    print("native tools" if entry.native_tools else "JSON envelope")

# A thinker declares a grade; the catalog decides which model serves it.
summarizer = ThinkerDeclaration(grade="fast", answer_size=AnswerSize.SHORT)
seat = catalog.resolve(summarizer)
print("summarizer sits on", seat.id, "at", seat.base_url)
print("first answer budget:", summarizer.answer_tokens, "tokens")

# A pin beats the grade. An id the catalog does not list gets the default limits.
pinned = catalog.resolve(summarizer, pin="anthropic:claude-haiku-4-5")
print(
    f"pinned: {pinned.id}, context {pinned.context_window:,}, output {pinned.max_output_tokens:,}"
)

# discover() finds the nearest nucleo.toml, or a pyproject.toml with [tool.nucleo.models].
with tempfile.TemporaryDirectory() as project:
    (Path(project) / "pyproject.toml").write_text(
        '[tool.nucleo.models.grades]\nstandard = "openai:gpt-4.1-mini"\n', encoding="utf-8"
    )
    print("discovered:", dict(ModelCatalog.discover(project).grades))

# Mistakes are reported when the catalog is read, naming where and what.
mistakes = [
    {"grades": {"standard": "mistral:large"}},
    {"entries": {"openai:gpt-4.1": {"context": 1_000_000}}},
]
for table in mistakes:
    try:
        ModelCatalog.from_mapping(table, origin="nucleo.toml [models]")
    except ModelNotConfigured as error:
        print(error)
try:
    catalog.resolve(ThinkerDeclaration(grade="creative", answer_size=AnswerSize.LONG))
except ModelNotConfigured as error:
    print(error)
