"""Generate the benchmark's tool functions: many distinct functions of one realistic shape.

Every round of every framework gets functions of its own, compiled from source into a fresh
module, so no framework can reuse work another framework (or an earlier round) did on the same
function object. Annotations are real objects (no ``from __future__ import annotations``), as
in a module that imports ``Literal``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any, Literal

__all__ = ["SEARCH_SIGNATURE", "generated_tools"]

#: The shape every generated tool has (for the printed report). Each tool's ``limit`` default
#: is its own (10 + its index), so no two tools share an input validator: nucleo shares one
#: between tools of the same parameters, which would leave the validator figure unmeasured.
SEARCH_SIGNATURE = (
    'f(query: str, mode: Literal["fast", "balanced", "thorough"], limit: int = 10 + i) -> str'
)

_TEMPLATE = '''
def {name}(query: str, mode: Literal["fast", "balanced", "thorough"], limit: int = {limit}) -> str:
    """Search collection {index} of shard {tag} for documents matching a query.

    Args:
        query: The words to look for in collection {index}.
        mode: How thorough the search of collection {index} is.
        limit: The most results to return.
    """
    return f"{{query}}|{{mode}}|{{limit}}|{index}"
'''


@contextmanager
def generated_tools(count: int, tag: str) -> Iterator[list[Callable[..., Any]]]:
    """Compile ``count`` distinct search functions into a fresh module named after ``tag``.

    The module is in `sys.modules` while the block runs (some frameworks look a function's
    module up there) and removed afterwards, so each round's functions can be freed.

    Args:
        count: How many functions to generate.
        tag: Makes names, docstrings and the module name unique to one round of one framework;
            letters, digits and underscores only.

    Yields:
        The functions, in definition order, named ``search_<tag>_<index>``.
    """
    module_name = f"nucleo_bench_generated_{tag}"
    module = ModuleType(module_name)
    module.__dict__["Literal"] = Literal
    source = "".join(
        _TEMPLATE.format(name=f"search_{tag}_{index:04d}", index=index, tag=tag, limit=10 + index)
        for index in range(count)
    )
    # dont_inherit: this module's own `from __future__ import annotations` must not apply.
    exec(compile(source, f"<{module_name}>", "exec", dont_inherit=True), module.__dict__)
    functions = [module.__dict__[f"search_{tag}_{index:04d}"] for index in range(count)]
    sys.modules[module_name] = module
    try:
        yield functions
    finally:
        del sys.modules[module_name]
