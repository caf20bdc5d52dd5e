"""Every hook is documented in docs/hooks.md, under its own heading, with its exact signature.

The hooks are discovered from `nucleo_core.plugins.hookspecs` (every function pluggy marks as a
``nucleo`` hook specification), never listed here, so a new hook fails these tests until it is
documented, and a renamed or removed one fails them until the page follows.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import pytest
from docs_pages import DOCS, Block, fenced_blocks

from nucleo_core.plugins import PROJECT_NAME, hookspecs

PAGE = DOCS / "hooks.md"

_HEADING = re.compile(r"^(#{1,6})\s+`?([A-Za-z_][\w.]*)`?\s*$")
_HOOK_NAME = re.compile(rf"^{PROJECT_NAME}_\w+$")


def discovered_hooks() -> dict[str, Callable[..., Any]]:
    """Every hook specification of the module, by name (pluggy marks each with an attribute)."""
    marker = f"{PROJECT_NAME}_spec"
    return {
        name: function
        for name, function in inspect.getmembers(hookspecs, inspect.isfunction)
        if hasattr(function, marker)
    }


HOOKS = discovered_hooks()


class _Source:
    """An annotation shown as the source text it was written as."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _as_source(annotation: object) -> object:
    if annotation is inspect.Signature.empty:
        return annotation
    # The module uses `from __future__ import annotations`, so annotations are their source.
    text = annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)
    return _Source(text)


def signature_source(name: str, function: Callable[..., Any]) -> str:
    """``def name(params) -> return``, as the hook's specification is written."""
    signature = inspect.signature(function)
    shown = signature.replace(
        parameters=[
            parameter.replace(annotation=_as_source(parameter.annotation))
            for parameter in signature.parameters.values()
        ],
        return_annotation=_as_source(signature.return_annotation),
    )
    return f"def {name}{shown}"


def normalized(code: str) -> str:
    """``code`` with whitespace folded, so that a signature may be wrapped over lines."""
    text = " ".join(code.split())
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r",?\s*\)", ")", text)
    return text.removesuffix(":").strip()


def sections(page_text: str) -> dict[str, tuple[int, int]]:
    """Each heading's text mapped to the lines of its section (1-based, end exclusive)."""
    lines = page_text.splitlines()
    headings = [
        (index + 1, len(found.group(1)), found.group(2))
        for index, line in enumerate(lines)
        if (found := _HEADING.match(line))
    ]
    found_sections: dict[str, tuple[int, int]] = {}
    for position, (line, level, title) in enumerate(headings):
        end = next(
            (later for later, later_level, _ in headings[position + 1 :] if later_level <= level),
            len(lines) + 1,
        )
        found_sections[title] = (line, end)
    return found_sections


SECTIONS = sections(PAGE.read_text(encoding="utf-8"))
SIGNATURES = [block for block in fenced_blocks(PAGE) if block.marks("signature")]


def signature_blocks_of(hook: str) -> list[Block]:
    return [block for block in SIGNATURES if block.marker and block.marker[1] == hook]


def test_the_hooks_are_discovered_from_the_specification_module() -> None:
    """Discovery finds the module's hooks, so the checks below cannot pass vacuously."""
    assert HOOKS
    assert sorted(HOOKS) == sorted(hookspecs.__all__)


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_every_hook_has_a_heading_of_its_own(hook: str) -> None:
    """The reference has a heading naming each hook, so it can be linked to."""
    assert hook in SECTIONS, f"docs/hooks.md has no heading '### {hook}'"


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_every_hook_is_documented_with_its_exact_signature(hook: str) -> None:
    """Under its heading, each hook's signature block equals its specification's signature."""
    expected = signature_source(hook, HOOKS[hook])
    blocks = signature_blocks_of(hook)
    assert len(blocks) == 1, (
        f"docs/hooks.md shows {len(blocks)} '<!-- signature: {hook} -->' blocks, not 1; "
        f"add one holding:\n{expected}"
    )
    block = blocks[0]
    assert block.language == "python", f"{block.where}: a signature is shown as ```python"
    start, end = SECTIONS.get(hook, (0, 0))
    assert start < block.line < end, f"{block.where}: the signature is not under '### {hook}'"
    assert normalized(block.text) == normalized(expected), (
        f"{block.where}: the signature of {hook} is\n{expected}"
    )


def test_no_documented_hook_is_missing_from_the_specifications() -> None:
    """Every hook the page names in a heading or a signature block is a real hook."""
    named = {title for title in SECTIONS if _HOOK_NAME.match(title)}
    named |= {block.marker[1] for block in SIGNATURES if block.marker}
    assert named - set(HOOKS) == set(), "docs/hooks.md documents hooks that do not exist"


def test_the_signature_check_catches_a_changed_annotation() -> None:
    """The comparison is exact: a signature differing in one annotation does not match."""
    hook = sorted(HOOKS)[0]
    expected = signature_source(hook, HOOKS[hook])
    assert normalized(expected.replace("None", "Nothing", 1)) != normalized(expected)
    assert normalized(expected.replace("(", "(\n    ", 1)) == normalized(expected)
