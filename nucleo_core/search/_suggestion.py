"""`ToolIndex.suggest`: the indexed names closest to a mistyped or half-remembered one."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import TYPE_CHECKING

from nucleo_core.search._analysis import name_words

if TYPE_CHECKING:
    from nucleo_core.search._engine import Engine

__all__ = ["closest_names"]

#: Suggestions closer than this (0..1, difflib's ratio or the share of shared words) only.
_SUGGESTION_CUTOFF = 0.5
_SUGGESTION_POOL = 24


def closest_names(engine: Engine, by_id: Mapping[int, str], wanted: str, limit: int) -> list[str]:
    """The indexed names closest to ``wanted`` (lowered and stripped), closest first.

    Candidates are the names within a small edit distance of ``wanted`` or sharing a word with
    it; only those at least `_SUGGESTION_CUTOFF` close are kept. ``by_id`` names the indexed
    documents; a document it lacks (a removed tool) is skipped.
    """
    words = name_words(wanted)
    distance = 2 if len(wanted) > 4 else 1
    clauses = [engine.fuzzy_name(term, distance) for term in engine.word_terms(wanted)]
    for word in dict.fromkeys(words):
        clauses.extend(engine.term("name", term, 1.0) for term in engine.word_terms(word))
    candidates = {
        by_id[doc_id]
        for _, doc_id in engine.run(engine.any_of(clauses), _SUGGESTION_POOL)
        if doc_id in by_id
    }
    scored = []
    for candidate in candidates:
        closeness = _closeness(wanted, set(words), candidate)
        if closeness >= _SUGGESTION_CUTOFF:
            scored.append((-closeness, candidate))
    return [candidate for _, candidate in sorted(scored)[:limit]]


def _closeness(wanted: str, wanted_words: set[str], candidate: str) -> float:
    """How close two names are: difflib's ratio, or the share of words they have in common."""
    lowered = candidate.lower()
    ratio = difflib.SequenceMatcher(None, wanted, lowered, autojunk=False).ratio()
    words = set(name_words(lowered))
    shared = len(wanted_words & words) / max(len(wanted_words | words), 1)
    return max(ratio, shared)
