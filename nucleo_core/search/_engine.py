"""The ranking engine under `ToolIndex`: an in-memory tantivy index (BM25, per field).

Imported only when the first index is built, so ``import nucleo_core`` never loads tantivy.

One tantivy document per tool: an integer ``id`` (the key `ToolIndex` maps back to a name)
and the three weighted text fields of `ToolText`; the name field holds the whole name as one
term too, which suggestions match with a Levenshtein automaton. (A separate raw field for
the whole name cost a third of the commit time of an index, for nothing the name field
lacks.)

Additions are written to the open writer and committed lazily, on the next search, so widening
a catalog by a tool costs that tool's indexing only; tantivy keeps each commit as a segment and
computes term statistics over all segments at query time, so a search after additions scores
exactly as a fresh index of the same tools. A removal deletes the tool's document at once (it
is never returned again), but, as in Lucene, its terms keep counting in document frequencies
until the segment is merged; `ToolIndex` rebuilds the engine (from the text it already
analysed) once removed tools pass a share of the index.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

try:
    import tantivy
except ImportError as exc:  # pragma: no cover - tantivy is a dependency of nucleo-core
    raise ImportError(
        "nucleo's tool search needs the 'tantivy' package, a dependency of nucleo-core; "
        "reinstall nucleo-core (python -m pip install --force-reinstall nucleo-core)"
    ) from exc

from nucleo_core.search._analysis import STOP_WORDS, SYNONYM_GROUPS, ToolText

__all__ = ["TEXT_FIELDS", "Engine"]

#: The weighted text fields, in `ToolText`'s order.
TEXT_FIELDS = ("name", "description", "parameters")
#: The field whose text arrives already split into words (and keeps whole names whole).
_WORD_FIELDS = frozenset({"name"})

_WORDS_TOKENIZER = "nucleo_words"
_TEXT_TOKENIZER = "nucleo_text"
# tantivy's floor is 15 MB per writer thread; one thread keeps an index's footprint small
# and its additions in order. Each commit's new segment allocates this budget afresh, so the
# floor is also the cheapest commit (measured: 8 ms at 15 MB, 10 at 20, 14 at 60).
_WRITER_HEAP = 15_000_000
# Long enough for a whole tool name (providers cap names at 64 characters).
_LONGEST_TERM = 64


def _analyzer(tokenizer: tantivy.Tokenizer, *, stop_words: bool) -> tantivy.TextAnalyzer:
    builder = tantivy.TextAnalyzerBuilder(tokenizer).filter(tantivy.Filter.lowercase())
    builder = builder.filter(tantivy.Filter.ascii_fold())
    if stop_words:
        builder = builder.filter(tantivy.Filter.custom_stopword(list(STOP_WORDS)))
    builder = builder.filter(tantivy.Filter.stemmer("english"))
    return builder.filter(tantivy.Filter.remove_long(_LONGEST_TERM)).build()


_SYNONYM_TABLE: dict[str, tuple[str, ...]] = {}


def _synonym_table(analyzer: tantivy.TextAnalyzer) -> dict[str, tuple[str, ...]]:
    """`SYNONYM_GROUPS` as stems, built once per process (every engine stems alike)."""
    if not _SYNONYM_TABLE:
        table: dict[str, dict[str, None]] = {}
        for group in SYNONYM_GROUPS:
            stems = list(
                dict.fromkeys(stem for word in group.split() for stem in analyzer.analyze(word))
            )
            for stem in stems:
                table.setdefault(stem, {}).update(
                    dict.fromkeys(other for other in stems if other != stem)
                )
        _SYNONYM_TABLE.update((stem, tuple(others)) for stem, others in table.items())
    return _SYNONYM_TABLE


class Engine:
    """One in-memory tantivy index of tools, written to and searched by `ToolIndex` only."""

    __slots__ = ("_index", "_pending", "_schema", "_searcher", "_text", "_words", "_writer")

    def __init__(self) -> None:
        builder = tantivy.SchemaBuilder()
        builder.add_integer_field("id", indexed=True, fast=True)
        for field in TEXT_FIELDS:
            tokenizer = _WORDS_TOKENIZER if field in _WORD_FIELDS else _TEXT_TOKENIZER
            builder.add_text_field(field, tokenizer_name=tokenizer, index_option="freq")
        self._schema = builder.build()
        self._index = tantivy.Index(self._schema)
        # Names and parameter names arrive split by `name_words`; their stop words are kept
        # ("get", "all", "to" in a name mean something). Free text is tokenised by tantivy.
        self._words = _analyzer(tantivy.Tokenizer.whitespace(), stop_words=False)
        self._text = _analyzer(tantivy.Tokenizer.simple(), stop_words=True)
        self._index.register_tokenizer(_WORDS_TOKENIZER, self._words)
        self._index.register_tokenizer(_TEXT_TOKENIZER, self._text)
        self._writer = self._index.writer(heap_size=_WRITER_HEAP, num_threads=1)
        self._pending = False
        self._searcher: tantivy.Searcher | None = None

    def add(self, doc_id: int, text: ToolText) -> None:
        """Write one tool's document (visible from the next search on)."""
        # One constructor call (the id converted to the schema's integer type): the cheapest
        # way into the writer, which matters once per tool of a large catalog.
        self._writer.add_document(
            tantivy.Document(
                id=doc_id, name=text.name, description=text.description, parameters=text.parameters
            )
        )
        self._pending = True

    def delete(self, doc_id: int) -> None:
        """Delete one tool's document (gone from the next search on)."""
        self._writer.delete_documents_by_term("id", doc_id)
        self._pending = True

    def word_terms(self, word: str) -> list[str]:
        """The terms a query word is looked up as in the name field."""
        return self._words.analyze(word)

    def text_terms(self, word: str) -> list[str]:
        """The terms a query word is looked up as in the free-text fields."""
        return self._text.analyze(word)

    def synonyms(self, term: str) -> tuple[str, ...]:
        """The stemmed synonyms of a stemmed term (see `SYNONYM_GROUPS`)."""
        table = _synonym_table(self._words)
        return table.get(term, ())

    def term(self, field: str, term: str, boost: float) -> tantivy.Query:
        """A BM25-scored query for one analysed term in one field, weighted by ``boost``."""
        query = tantivy.Query.term_query(self._schema, field, term, index_option="freq")
        return tantivy.Query.boost_query(query, boost)

    def fuzzy_name(self, term: str, distance: int) -> tantivy.Query:
        """Name terms within ``distance`` edits of ``term`` (a transposition counts as one)."""
        return tantivy.Query.fuzzy_term_query(
            self._schema, "name", term, distance=distance, transposition_cost_one=True
        )

    @staticmethod
    def any_of(clauses: Sequence[tantivy.Query]) -> tantivy.Query:
        """A query matching documents that match any clause, scored by the clauses' sum."""
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, clause) for clause in clauses])

    @staticmethod
    def best_of(clauses: Sequence[tantivy.Query], tie_breaker: float) -> tantivy.Query:
        """The best clause's score plus ``tie_breaker`` times the others' (a disjunction max)."""
        return tantivy.Query.disjunction_max_query(list(clauses), tie_breaker)

    def run(self, query: tantivy.Query, limit: int) -> list[tuple[float, int]]:
        """The top ``limit`` (score, id) pairs of ``query``, best first."""
        searcher = self._current()
        hits = searcher.search(query, limit, count=False).hits
        if not hits:
            return []
        ids = searcher.fast_field_values("id", [address for _, address in hits])
        # Every document has its integer id, so no value is None.
        return [
            (float(score), int(doc_id))
            for (score, _), doc_id in zip(hits, ids, strict=True)
            if isinstance(doc_id, int)
        ]

    def _current(self) -> tantivy.Searcher:
        if self._pending or self._searcher is None:
            if self._pending:
                self._writer.commit()
                self._index.reload()
                self._pending = False
            self._searcher = self._index.searcher()
        return self._searcher

    def live_documents(self) -> int:
        """How many documents a search sees (after committing what is pending)."""
        return int(self._current().num_docs)

    @staticmethod
    def load(documents: Iterable[tuple[int, ToolText]]) -> Engine:
        """A new engine holding ``documents`` (id, text)."""
        engine = Engine()
        for doc_id, text in documents:
            engine.add(doc_id, text)
        return engine
