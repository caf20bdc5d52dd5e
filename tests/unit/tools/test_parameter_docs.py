"""`parameter_docs` reads a docstring's parameter descriptions exactly as docstring_parser does.

Its quick reading of the common shape must never differ from the full parse (`docstring_parts`),
on what it answers or on what it refuses; docstrings are generated from the pieces real ones
(and odd ones) are made of.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from nucleo_core.errors import ToolDeclarationError
from nucleo_core.tools.docstrings import _quick_parameter_docs, docstring_parts, parameter_docs

_words = st.text(alphabet="abc xyz.,:()-", min_size=0, max_size=12)
_names = st.sampled_from(["query", "mode", "limit", "x_1", "_private", "a b", "n (int)", ""])
_indents = st.sampled_from(["    ", "  ", "\t", "", "      "])
_titles = st.sampled_from(
    [
        *("Args", "Arguments", "Parameters", "Params", "Returns", "Raises", "Yields"),
        *("Example", "Examples", "Attributes", "Note"),
        "Args ",  # a space before the colon: no title
    ]
)


@st.composite
def _entry(draw: st.DrawFn, indent: str) -> str:
    head = f"{indent}{draw(_names)}{draw(st.sampled_from([':', ': ', ':  ', ' ']))}{draw(_words)}"
    more = draw(st.lists(st.tuples(_indents, _words), max_size=2))
    return "\n".join([head, *(f"{indent}{extra}{words}" for extra, words in more)])


@st.composite
def _section(draw: st.DrawFn) -> str:
    title = draw(_titles)
    indent = draw(_indents)
    entries = draw(st.lists(_entry(indent), max_size=3))
    blank = draw(st.sampled_from(["", "\n", "\n   "]))
    return "\n".join([f"{title}:{draw(st.sampled_from(['', ' ']))}", *entries]) + blank


@st.composite
def _docstrings(draw: st.DrawFn) -> str:
    summary = draw(st.sampled_from(["Search the documents.", "Do it.\nOver two lines.", ""]))
    sections = draw(st.lists(_section(), max_size=3))
    body = "\n\n".join([summary, *sections])
    margin = draw(st.sampled_from(["", "    ", "        "]))
    lines = body.split("\n")
    return "\n".join([lines[0], *(margin + line for line in lines[1:])]) + "\n" + margin


def _full(doc: str) -> object:
    try:
        return docstring_parts(doc)[1]
    except ToolDeclarationError:
        return "refused"


def _quick(doc: str) -> object:
    try:
        return parameter_docs(doc)
    except ToolDeclarationError:
        return "refused"


@settings(max_examples=600, deadline=None)
@given(_docstrings())
@example(
    """Search.

    Args:
        query: The words to look for.
        mode: How thorough,
            over two lines.
        limit: The most results.

    Returns:
        What was found.
    """
)
def test_the_quick_reading_agrees_with_docstring_parser(doc: str) -> None:
    """The same descriptions, and a refusal wherever the full parse refuses."""
    assert _quick(doc) == _full(doc)


def test_the_common_shape_is_read_quickly() -> None:
    """An Args section of plain entries beside Returns takes the quick path."""
    cleaned = "Search.\n\nArgs:\n    query: The words.\n    limit: The most.\n\nReturns:\n    It."
    assert _quick_parameter_docs(cleaned) == {"query": "The words.", "limit": "The most."}


@pytest.mark.parametrize(
    "cleaned",
    [
        "Search.\n\nArgs:\n    query (str): The words.",
        "Search.\n\nArgs:\n    query: The words.\n\nRaises:\n    ValueError: never.",
        "Search.\n\nArgs:\n    query: The words.\n\nParameters:\n    limit: The most.",
        "Search.\n\nArgs:\n    query the words",
    ],
)
def test_other_shapes_get_the_full_parse(cleaned: str) -> None:
    """Typed entries, sections docstring_parser may refuse, or an entry without a colon."""
    assert _quick_parameter_docs(cleaned) is None
