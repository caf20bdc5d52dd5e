"""Bundle-id prefixes: the dotted-name matching `SkillRegistry` and `SkillSelector` share."""

from __future__ import annotations

__all__ = ["bundle_matches", "normalize_bundle_prefix"]


def normalize_bundle_prefix(prefix: str) -> str:
    """``prefix`` without its trailing dots (``"acme.skills."`` and ``"acme.skills"`` agree).

    Raises:
        TypeError: ``prefix`` is not a string.
        ValueError: Nothing is left of ``prefix``; selecting every skill is spelled
            ``add_all()``, never an empty prefix.
    """
    if not isinstance(prefix, str):
        raise TypeError(f"a bundle prefix is a dotted name, not {type(prefix).__name__}")
    normalized = prefix.strip().rstrip(".")
    if not normalized:
        raise ValueError(
            "an empty bundle prefix would select every skill; use SkillSelector.add_all() "
            "to mean that"
        )
    return normalized


def bundle_matches(bundle: str, prefix: str) -> bool:
    """Whether ``bundle`` is the bundle ``prefix`` (normalized) names, or one nested in it.

    Matching is by whole dotted segments: ``acme.skills`` matches ``acme.skills`` and
    ``acme.skills.research``, never ``acme.skillset``.
    """
    return bundle == prefix or bundle.startswith(prefix + ".")
