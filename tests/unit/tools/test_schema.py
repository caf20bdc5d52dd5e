"""Unit tests of docstring splitting, the source of function tools' descriptions."""

import pytest

from nucleo_core.tools.schema import docstring_parts


@pytest.mark.parametrize("doc", [None, "", "   \n  "])
def test_no_docstring_gives_no_description(doc: str | None) -> None:
    """A missing or blank docstring has no description and no parameter docs."""
    assert docstring_parts(doc) == ("", {})


def test_a_docstring_without_sections_is_the_whole_description() -> None:
    """Without Google-style sections the cleaned docstring is the description."""
    doc = """Summary line.

        Body, indented in the source.
        """
    assert docstring_parts(doc) == ("Summary line.\n\nBody, indented in the source.", {})


@pytest.mark.parametrize("header", ["Args:", "Arguments:", "Parameters:"])
def test_the_parameter_section_is_read_and_stripped(header: str) -> None:
    """Each spelling of the parameter section yields parameter docs and leaves the description."""
    doc = f"""Summary line.

        {header}
            first: The first one.
            second: The second one,
                over two lines.
        """
    description, params = docstring_parts(doc)
    assert description == "Summary line."
    assert params == {"first": "The first one.", "second": "The second one,\nover two lines."}


def test_returns_and_raises_sections_are_stripped() -> None:
    """Returns and Raises are for developers; the model's description ends before them."""
    doc = """Summary line.

        Returns:
            Something.

        Raises:
            ValueError: Sometimes.
        """
    assert docstring_parts(doc) == ("Summary line.", {})
