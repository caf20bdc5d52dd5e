"""Helpers writing skill folders into a temporary directory, as an author would lay them out."""

from pathlib import Path


def front_matter(name: str, description: str = "Does one thing well.", **fields: str) -> str:
    """A SKILL.md's text: front matter with ``name``, ``description`` and raw YAML lines."""
    lines = [f"name: {name}", f"description: {description}"]
    lines += [f"{key.replace('_', '-')}: {value}" for key, value in fields.items()]
    return "---\n" + "\n".join(lines) + "\n---\n"


def write_skill(parent: Path, folder: str, text: str | bytes | None) -> Path:
    """Create ``parent/folder`` holding SKILL.md with ``text`` (no SKILL.md for ``None``)."""
    root = parent / folder
    root.mkdir(parents=True)
    if isinstance(text, bytes):
        (root / "SKILL.md").write_bytes(text)
    elif text is not None:
        (root / "SKILL.md").write_text(text, encoding="utf-8", newline="")
    return root


def write_valid_skill(parent: Path, name: str, body: str = "Follow these steps.\n") -> Path:
    """A minimal valid skill folder called ``name``."""
    return write_skill(parent, name, front_matter(name) + "\n" + body)
