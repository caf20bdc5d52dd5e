"""The public interface of ``nucleo_core.skills``: exactly what it exports, in ruff's order."""

from types import ModuleType

import nucleo_core.skills as skills


def _ruff_order(name: str) -> tuple[int, str]:
    """The order ruff's RUF022 keeps __all__ in: SCREAMING_CASE, then CamelCase, then the rest."""
    if len(name) > 1 and name.isupper():
        return (0, name)
    return (1, name) if name[:1].isupper() else (2, name)


def test_all_is_exactly_the_public_names_of_the_skills_layer() -> None:
    """Every public name nucleo_core.skills binds is in __all__, and __all__ lists nothing else."""
    public = {
        name
        for name, value in vars(skills).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }

    assert set(skills.__all__) == public


def test_all_is_sorted_without_duplicates() -> None:
    """__all__ is kept in ruff's RUF022 order, each name once."""
    assert skills.__all__ == sorted(set(skills.__all__), key=_ruff_order)
