"""Where the command sends a user for more: the online documentation, never a file of a checkout.

A user who installed a wheel has no ``docs/`` folder; the pages are published from it.
"""

from __future__ import annotations

__all__ = ["DOCS_URL", "REPOSITORY_URL", "docs_page"]

#: The published documentation (``docs/`` of the repository, built with mkdocs).
DOCS_URL = "https://nucleo-agents.github.io/nucleo/"
#: The source repository.
REPOSITORY_URL = "https://github.com/nucleo-agents/nucleo"


def docs_page(page: str, anchor: str = "") -> str:
    """The URL of one page of the documentation: ``docs_page("mcp")`` for docs/mcp.md.

    Args:
        page: The page's file name without ``.md``.
        anchor: A heading's anchor on the page, without ``#``.
    """
    return f"{DOCS_URL}{page}/" + (f"#{anchor}" if anchor else "")
