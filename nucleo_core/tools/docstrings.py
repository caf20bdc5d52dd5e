"""Reading a tool's docstring: the description a model reads and each parameter's description.

A catalog reads thousands of docstrings, so the common shapes are read here directly and only
the others go to docstring-parser (imported on that first use), whose answers these match.
"""

from __future__ import annotations

import functools
import inspect
import re

from nucleo_core.errors import ToolDeclarationError

__all__ = ["docstring_description", "docstring_parts", "parameter_docs"]

_SECTION_HEADERS = (
    "Args:",
    "Arguments:",
    "Parameters:",
    "Returns:",
    "Raises:",
    "Yields:",
    "Attributes:",
    "Example:",
    "Examples:",
)


def docstring_parts(doc: str | None, target: str = "a tool") -> tuple[str, dict[str, str]]:
    """Split a docstring into the description a model reads and per-parameter descriptions.

    The description is the docstring without its Google-style sections (``Args``,
    ``Returns``, ``Raises``, ``Attributes``, ``Example``, ...); the parameters come from the
    ``Args`` section.

    Raises:
        ToolDeclarationError: The sections cannot be read (``target`` names the tool).
    """
    if not doc or not doc.strip():
        return "", {}
    cleaned = _cleandoc(doc)
    if not any(header in cleaned for header in _SECTION_HEADERS):
        return cleaned, {}
    return _parse_sections(cleaned, target)


def docstring_description(doc: str | None, target: str = "a tool") -> str:
    """The description part of a docstring alone, without parsing its sections.

    A catalog reads thousands of descriptions (``request_tools`` lists them), so this takes
    the text before the first line that is exactly a section header; a docstring whose
    sections do not start that plainly gets the full parse of `docstring_parts`.
    """
    if not doc or not doc.strip():
        return ""
    cleaned = _cleandoc(doc)
    if not any(header in cleaned for header in _SECTION_HEADERS):
        return cleaned
    lines = cleaned.splitlines()
    for index, line in enumerate(lines):
        if line in _SECTION_HEADERS:
            head = "\n".join(lines[:index]).strip()
            if head:
                return head
            break
    return docstring_parts(doc, target)[0]


#: The section titles docstring_parser's Google parser knows, in its order, and its title line.
_PARSER_TITLES = (
    "Arguments",
    "Args",
    "Parameters",
    "Params",
    "Raises",
    "Exceptions",
    "Except",
    "Attributes",
    "Example",
    "Examples",
    "Returns",
    "Yields",
)
_TITLE_LINE = re.compile(
    "^(" + "|".join(f"({title})" for title in _PARSER_TITLES) + "):[ \t\r\f\v]*$", re.M
)
_PARAMETER_TITLES = frozenset({"Arguments", "Args", "Parameters", "Params"})
#: Sections docstring_parser reads as one block, which it never refuses.
_BLOCK_TITLES = frozenset({"Example", "Examples", "Returns", "Yields"})
_UNINDENTED_LINE = re.compile(r"\n\S")
_LEADING_SPACE = re.compile(r"^\s*")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parameter_docs(doc: str | None, target: str = "a tool") -> dict[str, str]:
    """The per-parameter descriptions of a docstring's ``Args`` section.

    The same answer as ``docstring_parts(doc)[1]``. A catalog reads thousands of docstrings,
    and docstring_parser is most of a function tool's schema: a docstring whose sections are
    an ``Args`` section of ``name: description`` entries and, besides it, only ``Returns``,
    ``Yields`` or ``Example(s)`` is read here, splitting and cleaning each entry exactly as
    docstring_parser does; any other docstring gets the full parse.

    Raises:
        ToolDeclarationError: The sections cannot be read (``target`` names the tool).
    """
    if not doc or not doc.strip():
        return {}
    cleaned = _cleandoc(doc)
    if not any(header in cleaned for header in _SECTION_HEADERS):
        return {}
    quick = _quick_parameter_docs(cleaned)
    return quick if quick is not None else _parse_sections(cleaned, target)[1]


def _quick_parameter_docs(cleaned: str) -> dict[str, str] | None:
    """docstring_parser's parameter descriptions of ``cleaned``, or ``None``: parse it fully."""
    if "\n" in cleaned and _UNINDENTED_LINE.search(cleaned) is None:
        # docstring_parser cleans the text again, which then dedents every line but the first.
        return None
    titles = list(_TITLE_LINE.finditer(cleaned))
    params: dict[str, str] | None = None
    for index, title in enumerate(titles):
        name = title.group(1)
        if name in _BLOCK_TITLES:
            continue
        if name not in _PARAMETER_TITLES or params is not None:
            return None  # a section docstring_parser may refuse, or two parameter sections
        end = titles[index + 1].start() if index + 1 < len(titles) else len(cleaned)
        details = cleaned[title.end() : end]
        unindented = _UNINDENTED_LINE.search(details)
        if unindented is not None:
            details = details[: unindented.start()]
        params = _quick_entries(details.strip("\n"))
        if params is None:
            return None
    return params if params is not None else {}


def _quick_entries(chunk: str) -> dict[str, str] | None:
    """The ``name: description`` entries of a parameter section, read as docstring_parser does."""
    indent = _LEADING_SPACE.match(chunk)
    if indent is None or not indent.group() or "\n" in indent.group():
        return None
    starts = list(re.finditer("^" + re.escape(indent.group()) + r"(?=\S)", chunk, flags=re.M))
    if not starts or starts[0].start() != 0:
        return None
    params: dict[str, str] = {}
    for index, start in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(chunk)
        part = chunk[start.end() : end].strip("\n")
        if ":" not in part:
            return None
        before, description = part.split(":", 1)
        if _IDENTIFIER.fullmatch(before) is None:
            return None  # a typed entry, ``name (int):``, or something odder
        if description:
            description = description[1:] if description[0] == " " else description
            if "\n" in description:
                first_line, rest = description.split("\n", 1)
                description = first_line + "\n" + inspect.cleandoc(rest)
            description = description.strip("\n")
        if description:
            params[before] = description
    return params


@functools.lru_cache(maxsize=64)
def _cleandoc(doc: str) -> str:
    """`inspect.cleandoc`, remembered: a tool's description and its parameters read one doc."""
    return inspect.cleandoc(doc)


@functools.lru_cache(maxsize=512)
def _parse_sections(cleaned: str, target: str) -> tuple[str, dict[str, str]]:
    import docstring_parser

    try:
        parsed = docstring_parser.parse(cleaned, style=docstring_parser.DocstringStyle.GOOGLE)
    except docstring_parser.ParseError as exc:
        raise ToolDeclarationError(
            target,
            [
                f"its docstring's Google-style sections cannot be read ({exc}); under 'Args:' "
                "write one 'name: description' line per parameter"
            ],
        ) from exc
    parts = [part for part in (parsed.short_description, parsed.long_description) if part]
    description = "\n\n".join(parts) if parts else cleaned
    params = {param.arg_name: param.description for param in parsed.params if param.description}
    return description, params
