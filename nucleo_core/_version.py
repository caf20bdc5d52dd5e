"""The version of nucleo-core, where every layer may read it (``pyproject.toml`` says the same)."""

__version__ = "0.1.0.dev0"
