"""`ToolIndex`: ranked search over a catalog of tools, updated in place as the catalog changes.

Why tantivy (the Rust search library behind Quickwit, through its official Python bindings)
rather than ``bm25s`` or ``rank-bm25``, measured on this project's machine:

* **incremental by design**: tantivy writes additions as new segments and computes BM25's
  statistics over all segments at query time, so adding a tool to a 20,000-tool index costs
  that tool (plus a commit of a few milliseconds), and its results equal a fresh build's.
  ``bm25s`` precomputes every (term, tool) score from the corpus' statistics: one more tool
  changes them all, so it can only be rebuilt or approximated by segments scored with
  statistics of their own (which ranks a newly added tool on a one-tool corpus);
* **fast enough to build**: ``bm25s`` needed about 100 ms to index 5,000 documents before
  any analysis of ours; tantivy builds, commits and opens 5,000 tools' three text fields
  in about 65 ms (idle), and answers a query over 20,000 tools in about a millisecond;
* **fields, stemming and fuzzy matching built in**: BM25 per field with query-time boosts,
  an English Snowball stemmer and ASCII folding (no PyStemmer), and Levenshtein automata
  for the closest names to a mistyped one;
* **dependency-light**: one self-contained wheel (no numpy, no scipy, no transitive
  dependencies), imported only when the first index is built.

So tantivy is a runtime dependency of nucleo-core rather than an extra: lexical search is the
default path of a core feature (`search_tools`), and it must work wherever nucleo installs.

How a query ranks the tools (three weighted fields, synonyms, ties broken by name) is
`nucleo_core.search._ranking`; the closest names to a mistyped one are
`nucleo_core.search._suggestion`'s.
With an embedder (the optional ``semantic`` extra), the lexical ranking is fused with a
semantic one (`nucleo_core.search.semantic`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, final

from nucleo_core.search._analysis import (
    MAX_QUERY_CHARS,
    ToolText,
    name_words,
    query_words,
    tool_text,
)
from nucleo_core.search._ranking import FIELD_WEIGHTS, SYNONYM_WEIGHT, best_hits, ranking_query
from nucleo_core.search._records import ToolRecord, read_records
from nucleo_core.search._suggestion import closest_names
from nucleo_core.search.hit import ToolSearchHit
from nucleo_core.tools.spec import ToolSpec

if TYPE_CHECKING:
    from nucleo_core.search._engine import Engine
    from nucleo_core.search.semantic import Embedder

__all__ = ["FIELD_WEIGHTS", "SYNONYM_WEIGHT", "ToolIndex"]

#: Removed tools, as a share of the indexed documents, past which the engine is rebuilt so
#: that their terms stop counting in the statistics (and never below `_COMPACT_MINIMUM`).
_COMPACT_SHARE = 0.25
_COMPACT_MINIMUM = 64
#: How deep each ranking goes before they are fused (semantic ranking only).
_FUSION_DEPTH = 50
_MAX_LIMIT = 1_000
#: Tools analysed per chunk handed to the engine as a batch is indexed (see `ToolIndex.add`).
_ANALYSIS_CHUNK = 256


@dataclass(slots=True)
class _Entry:
    doc_id: int
    spec: ToolSpec
    text: ToolText


@final
class ToolIndex:
    """A ranked, searchable catalog of tools, from `ToolSpec`s or plain records.

    Index what a thinker's catalog holds (native, pack and MCP tools alike, or any list of
    name/description/JSON-schema records) and search it by what a tool does::

        index = ToolIndex(registry.specs())
        for hit in index.search("open a pull request", limit=5):
            print(hit.name, hit.score)

    A record is a `ToolSpec`, a `ToolProvider` (its ``spec()`` is indexed) or a mapping with
    ``name``, ``description`` and ``input_schema`` (``inputSchema`` and ``parameters`` are
    read too). `add` and `remove` change the index in place. Safe to share between threads:
    every method holds the index's lock.

    Args:
        specs: The tools to index.
        embedder: Adds semantic ranking (the ``semantic`` extra, e.g.
            ``nucleo_core.search.semantic.MiniLMEmbedder()``): each tool's name and
            description are embedded as they are added, each query as it is searched, and
            the cosine ranking is fused with the lexical one by reciprocal rank. ``None``
            (the default): lexical only, nothing beyond tantivy loaded.

    Raises:
        ToolRecordError: A record cannot be read as a tool (nothing is indexed).
    """

    __slots__ = (
        "_by_id",
        "_embedder",
        "_engine",
        "_entries",
        "_lock",
        "_matrix",
        "_next_id",
        "_removed",
        "_vectors",
    )

    def __init__(
        self, specs: Iterable[ToolRecord] = (), *, embedder: Embedder | None = None
    ) -> None:
        self._lock = threading.RLock()
        # Semantic ranking, when an embedder is given (the optional extra): each tool's unit
        # vector by name, and the matrix of them all (rebuilt at the first search after a
        # change), fused with the lexical ranking (`nucleo_core.search.semantic`).
        self._embedder = embedder
        self._vectors: dict[str, Any] = {}
        self._matrix: tuple[list[str], Any] | None = None
        self._entries: dict[str, _Entry] = {}
        self._by_id: dict[int, str] = {}
        self._next_id = 0
        self._removed = 0
        self._engine: Engine | None = None
        self.add(specs)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __repr__(self) -> str:
        return f"ToolIndex({len(self._entries)} tools)"

    def names(self) -> list[str]:
        """The indexed tools' names, in the order they were (last) added."""
        with self._lock:
            return list(self._entries)

    def spec(self, name: str) -> ToolSpec:
        """The indexed spec of the tool called ``name``.

        Raises:
            KeyError: No tool of that name is indexed.
        """
        with self._lock:
            return self._entries[name].spec

    def add(self, specs: Iterable[ToolRecord]) -> None:
        """Index more tools; a tool whose name is already indexed is replaced.

        Costs the new tools only: the rest of the index is neither re-read nor rebuilt.

        Raises:
            ToolRecordError: A record cannot be read as a tool, or two records of ``specs``
                share a name (nothing of the batch is indexed).
        """
        # Every record is read (and checked) before the writer gets any: a bad record leaves
        # the index untouched. A batch of several chunks is then analysed a chunk at a time,
        # each chunk handed to tantivy's indexing thread before the next is analysed, so the
        # two overlap (measured: a 5,000-tool build about a sixth faster than analysing the
        # batch first; one tool at a time cost more CPU, the thread waking for each).
        read = read_records(specs)
        embedder = self._embedder
        vectors = embedder.embed([_meaning(spec) for spec in read]) if embedder and read else None
        with self._lock:
            engine = self._engine_now()
            if len(read) <= _ANALYSIS_CHUNK:
                for spec, text in zip(read, [tool_text(spec) for spec in read], strict=True):
                    self._put(engine, spec, text)
            else:
                self._put_in_chunks(engine, read)
            if vectors is not None:
                self._vectors.update(zip((spec.name for spec in read), vectors, strict=True))
                self._matrix = None
            self._compact_if_worn()

    def _put(self, engine: Engine, spec: ToolSpec, text: ToolText) -> None:
        """Index one analysed tool, replacing the one indexed under its name."""
        name = spec.name
        previous = self._entries.pop(name, None)
        if previous is not None:
            engine.delete(previous.doc_id)
            del self._by_id[previous.doc_id]
            self._removed += 1
        doc_id = self._next_id
        self._next_id += 1
        self._entries[name] = _Entry(doc_id, spec, text)
        self._by_id[doc_id] = name
        engine.add(doc_id, text)

    def _put_in_chunks(self, engine: Engine, read: list[ToolSpec]) -> None:
        """`_put` every tool, analysed a chunk at a time; all of them or, on a failure, none."""
        kept = (dict(self._entries), dict(self._by_id), self._next_id, self._removed)
        try:
            for start in range(0, len(read), _ANALYSIS_CHUNK):
                chunk = read[start : start + _ANALYSIS_CHUNK]
                for spec, text in zip(chunk, [tool_text(spec) for spec in chunk], strict=True):
                    self._put(engine, spec, text)
        except BaseException:
            # An analysis that failed indexes nothing of the batch: the tools indexed before
            # are put back, and the engine rebuilt from them (`compact`).
            self._entries, self._by_id, self._next_id, self._removed = kept
            self.compact()
            raise

    def remove(self, names: Iterable[str]) -> int:
        """Take tools out of the index; names not indexed are ignored.

        A removed tool is never returned by a later `search` or `suggest`.

        Returns:
            How many tools were removed.
        """
        if isinstance(names, str):
            names = [names]
        removed = 0
        with self._lock:
            engine = self._engine_now()
            for name in names:
                entry = self._entries.pop(name, None)
                if entry is None:
                    continue
                engine.delete(entry.doc_id)
                del self._by_id[entry.doc_id]
                if self._vectors.pop(name, None) is not None:
                    self._matrix = None
                removed += 1
            self._removed += removed
            self._compact_if_worn()
        return removed

    def compact(self) -> None:
        """Rebuild the ranking engine from the tools indexed now.

        Removed tools' words stop counting in the term statistics, so scores become exactly
        those of a fresh `ToolIndex` of the same tools. Done automatically once removed
        tools pass a quarter of the documents; call it to have it now.
        """
        with self._lock:
            from nucleo_core.search._engine import Engine

            self._engine = Engine.load(
                (entry.doc_id, entry.text) for entry in self._entries.values()
            )
            self._removed = 0

    def search(self, query: str, limit: int = 10) -> list[ToolSearchHit]:
        """The tools that best match ``query``, best first (at most ``limit``).

        Ties are broken by name, so the same catalog and query give the same list. A query
        with no searchable word (empty, punctuation, stop words only) matches nothing.

        Args:
            query: What the tool should do, in words; tool and parameter names work too.
            limit: The most hits to return, from 1 to 1,000.

        Raises:
            TypeError: ``query`` is not text or ``limit`` is not an integer.
            ValueError: ``limit`` is outside 1..1,000.
        """
        limit = _checked("query", query, limit)
        embedder = self._embedder
        meant = embedder.embed([query[:MAX_QUERY_CHARS]])[0] if embedder and query.strip() else None
        with self._lock:
            if not self._entries:
                return []
            engine = self._engine_now()
            if meant is None:
                ranked = best_hits(
                    engine, ranking_query(engine, query_words(query)), limit, self._by_id
                )
            else:
                ranked = self._fused(engine, query, meant, limit)
            return [
                ToolSearchHit(name=name, score=score, spec=self._entries[name].spec)
                for score, name in ranked
            ]

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """The indexed names closest to ``name`` (a mistyped or half-remembered one).

        Only close names are returned, closest first, so an unrelated name gets an empty
        list rather than a list of the catalog. An indexed ``name`` is its own first match.

        Args:
            name: The name as written.
            limit: The most names to return, from 1 to 1,000.

        Raises:
            TypeError: ``name`` is not text or ``limit`` is not an integer.
            ValueError: ``limit`` is outside 1..1,000.
        """
        limit = _checked("name", name, limit)
        wanted = name.strip().lower()[:256]
        with self._lock:
            if not wanted or not self._entries:
                return []
            return closest_names(self._engine_now(), self._by_id, wanted, limit)

    def _fused(self, engine: Engine, query: str, meant: Any, limit: int) -> list[tuple[float, str]]:
        """The lexical and the semantic rankings' reciprocal rank fusion (`semantic.fuse`)."""
        from nucleo_core.search.semantic import _numpy, fuse

        depth = max(limit, _FUSION_DEPTH)
        lexical = [
            name
            for _, name in best_hits(
                engine, ranking_query(engine, query_words(query)), depth, self._by_id
            )
        ]
        matrix = self._matrix
        if matrix is None:
            names = list(self._vectors)
            rows = _numpy().stack([self._vectors[name] for name in names]) if names else None
            matrix = self._matrix = (names, rows)
        names, rows = matrix
        semantic: list[str] = []
        if rows is not None:
            similarity = rows @ meant
            count = min(depth, len(names))
            best = similarity.argpartition(-count)[-count:]
            semantic = [names[i] for i in sorted(best, key=lambda i: (-similarity[i], names[i]))]
        return fuse([lexical, semantic], limit)

    def _engine_now(self) -> Engine:
        if self._engine is None:
            # Imported here, not at module level: tantivy loads with the first index.
            from nucleo_core.search._engine import Engine

            self._engine = Engine()
        return self._engine

    def _compact_if_worn(self) -> None:
        documents = len(self._entries) + self._removed
        threshold = max(_COMPACT_MINIMUM, int(_COMPACT_SHARE * documents))
        if self._removed > threshold:
            self.compact()


def _checked(what: str, text: object, limit: int) -> int:
    """``limit``, once ``text`` (the argument called ``what``) is text and ``limit`` in range."""
    if not isinstance(text, str):
        raise TypeError(f"{what} must be text (str), not {type(text).__name__}")
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"limit must be an integer, not {type(limit).__name__}")
    if not 1 <= limit <= _MAX_LIMIT:
        raise ValueError(f"limit must be between 1 and {_MAX_LIMIT}")
    return limit


def _meaning(spec: ToolSpec) -> str:
    """What a tool's embedding is made of: its name's words and its description's start."""
    words = name_words(spec.name)
    spoken = " ".join(words[:-1] if len(words) > 1 else words)
    return f"{spoken}: {spec.description[:_MEANING_CHARS]}"


#: Characters of a description embedded (the model reads 128 tokens, about 500 characters).
_MEANING_CHARS = 600
