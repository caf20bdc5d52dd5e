"""What of a tool is searchable, and how names, schemas and queries become words.

The index stores three text fields per tool; the search engine's analyzer (lower-casing, ASCII
folding, stop words, an English Snowball stemmer) runs on all of them and on the query, so
"Listing issues" and ``list_issues`` meet at ``list`` + ``issu``. What this module adds is what
a general-purpose analyzer does not know about tools:

* **names are identifiers**: ``getPullRequest``, ``git.log``, ``s3-put_object`` are split at
  ``_``, ``-``, ``.``, ``/``, ``:`` and camelCase, and the whole name is kept as one more word
  (so a query naming the tool exactly matches it above any paraphrase);
* **parameters say what a tool is about**: the name of every property (nested ones too, to a
  bounded depth) and its description, title and short enum values are indexed in a field of
  their own, weighted below the name and the description;
* **bounded work**: a description, a parameter description, the number of parameters, the
  nesting depth and the query are each cut at a fixed size, so a huge or hostile schema
  costs no more than a large ordinary one;
* **tool vocabulary**: a query word also looks for its common synonyms in tool catalogs
  (``remove`` for ``delete``, ``repository`` for ``repo``), weighted below the word itself.
  The table is generic (verbs of CRUD and process control, the usual abbreviations), written
  for catalogs in general, not for one catalog.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, NamedTuple, TypeGuard

from nucleo_core.tools.spec import ToolSpec

__all__ = [
    "MAX_QUERY_CHARS",
    "STOP_WORDS",
    "SYNONYM_GROUPS",
    "ToolText",
    "name_words",
    "query_words",
    "tool_text",
]

#: Characters of a description that are indexed (the rest is usually examples or legal text).
MAX_DESCRIPTION_CHARS = 4_000
#: Characters of one parameter's description that are indexed.
MAX_PARAMETER_DESCRIPTION_CHARS = 400
#: Parameters (at every depth together) that are indexed per tool.
MAX_PARAMETERS = 64
#: How deep nested ``properties`` are followed.
MAX_DEPTH = 3
#: Enum values indexed per parameter, and the longest one that is indexed.
MAX_ENUM_VALUES = 16
MAX_ENUM_CHARS = 40
#: Characters of a query that are read.
MAX_QUERY_CHARS = 1_000
#: Words of a query that are searched.
MAX_QUERY_WORDS = 48

#: Words that carry no meaning in a request for a tool. Deliberately short: "all", "new",
#: "get", "set" and "tool" are meaningful in tool names and descriptions, so the engine's
#: longer lists do not fit.
_STOP_TEXT = (
    "a an and are as at be by can could do does for from how i if in into is it its me my "
    "of on or please should so some than that the their them then there these this those "
    "to too use using want was we were what when where which who will with would "
    "you your "
    # What an apostrophe leaves of a possessive or a contraction ("what's", "don't", "I'm"):
    # split off as words of their own, they matched every description with a possessive.
    "s t d ll m re ve"
)
STOP_WORDS = tuple(_STOP_TEXT.split())

_SEPARATORS = re.compile(r"[\s_\-./:]+")
# A name that is one lower-case word already (most parameter names).
_PLAIN = re.compile(r"[a-z][a-z0-9]*")
# A lower-case snake_case name (most tool names): split at "_" without the general rules.
_SNAKE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)+")
# An acronym's plural kept whole (PDFs, listPRs -> list, PRs: not "PD", "Fs"), upper-case
# runs before a capitalised word (HTTPServer -> HTTP, Server), capitalised or lower-case
# words with trailing digits (oauth2Token -> oauth2, Token), digit runs.
_CAMEL = re.compile(
    r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+"
)
# A plural without a vowel (pdfs, vms, prs; not urls): the English stemmer strips an "s"
# only after a vowel, so these keep theirs and would not meet their singular ("pdf").
_VOWELLESS_PLURAL = re.compile(r"[b-df-hj-np-tv-xz]+[b-df-hj-np-rtv-xz]s")
# A "word" of free text that may be an identifier: letters and digits joined by separators.
_IDENTIFIER = re.compile(r"[^\W_]+(?:[_\-./:][^\W_]+)*")

#: Groups of words that name the same thing in tool catalogs. A query word is expanded to
#: the other members of its groups (at a lower weight), compared after stemming, so "bugs"
#: finds "issue" as "bug" does.
SYNONYM_GROUPS = (
    "delete remove erase destroy drop purge",
    "create add new make insert",
    "get fetch retrieve read obtain",
    "show display view print",
    "list enumerate",
    "find search query lookup locate",
    "update edit modify change alter",
    "rename move",
    "run execute exec invoke launch start trigger",
    "stop halt kill terminate cancel abort",
    "write save store persist",
    "send post publish",
    "upload push",
    "download pull",
    "close archive resolve",
    "comment reply",
    "repo repository repositories repos",
    "pr pull",
    "dir directory folder",
    "db database",
    "doc document docs documents",
    "msg message messages",
    "img image picture photo screenshot",
    "config configuration settings preferences",
    "auth authentication login",
    "email mail",
    "issue ticket bug",
    "event meeting appointment",
    "user member person people account",
    "url link address",
    "web website page site",
    "info information details metadata",
    "stats statistics metrics",
    "env environment",
    "ls list",
    "rm remove",
)


class ToolText(NamedTuple):
    """The searchable text of one tool, one string per indexed field.

    Attributes:
        name: The name's words and the whole name, space-separated (plus the display name's).
        description: The name's words, then the description (cut at `MAX_DESCRIPTION_CHARS`):
            scored as one text, as plain BM25 over name and description would.
        parameters: Every indexed parameter's name, split like a tool name, then the
            parameters' descriptions, titles and short enum values.
    """

    name: str
    description: str
    parameters: str


def name_words(name: str) -> list[str]:
    """The words of an identifier, lower-cased, then the whole identifier when it has several.

    ``getPullRequest`` gives ``get pull request getpullrequest``; ``list_issues`` gives
    ``list issues list_issues``; ``search`` gives ``search``.
    """
    return list(_split(name))


@functools.lru_cache(maxsize=16_384)
def _split(name: str) -> tuple[str, ...]:
    # Cached: parameter names ("path", "owner", "repo") recur across a catalog's tools, and
    # a query's words across queries.
    if _PLAIN.fullmatch(name):
        return (name,)
    if _SNAKE.fullmatch(name):
        return (*name.split("_"), name)
    words: list[str] = []
    for part in _SEPARATORS.split(name):
        if not part:
            continue
        # camelCase is an ASCII convention; a word in another script is kept whole.
        pieces = _CAMEL.findall(part) if part.isascii() else [part]
        for piece in pieces:
            word = piece.lower()
            if _VOWELLESS_PLURAL.fullmatch(word):
                words.append(word[:-1])
            words.append(word)
    whole = name.strip().lower()
    if whole and words[-1:] != [whole]:
        words.append(whole)
    return tuple(words)


def tool_text(spec: ToolSpec) -> ToolText:
    """The fields a tool is indexed under."""
    # Written for speed (it runs once per tool of a catalog being indexed): cached splits,
    # one pass over the parameters, a tuple rather than a frozen dataclass.
    split = _split(spec.name)
    # The name's words without the whole name, which only the name field keeps.
    spoken = " ".join(split[:-1] if len(split) > 1 else split)
    name = " ".join(split)
    if spec.display_name:
        name = " ".join((name, *name_words(spec.display_name[:200])[:16]))
    found = _parameters(spec.input_schema)
    if not found:
        parameters = ""
    else:
        words: list[str] = []
        texts: list[str] = []
        for parameter_name, schema in found:
            split = _split(parameter_name)
            # The whole name is left out: the field's tokenizer would split it into the
            # same words.
            words.extend(split[:-1] if len(split) > 1 else split)
            text = schema.get("description")
            if type(text) is str:
                texts.append(text[:MAX_PARAMETER_DESCRIPTION_CHARS])
            text = schema.get("title")
            if type(text) is str:
                texts.append(text[:MAX_PARAMETER_DESCRIPTION_CHARS])
            values = schema.get("enum")
            if type(values) is list:
                texts.extend(
                    value
                    for value in values[:MAX_ENUM_VALUES]
                    if type(value) is str and len(value) <= MAX_ENUM_CHARS
                )
        texts.insert(0, " ".join(words))
        parameters = "\n".join(texts)
    return ToolText(name, f"{spoken}\n{spec.description[:MAX_DESCRIPTION_CHARS]}", parameters)


def _is_mapping(value: object) -> TypeGuard[Mapping[str, Any]]:
    # A dict is by far the common case, then an absent key (None); the ABC check is several
    # times slower than either, and this runs a few times per tool of a catalog.
    return type(value) is dict or (value is not None and isinstance(value, Mapping))


def _parameters(schema: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(name, schema) of every property, breadth first, bounded in count and depth."""
    found: list[tuple[str, Mapping[str, Any]]] = []
    frontier: list[Mapping[str, Any]] = [schema]
    definitions = schema.get("$defs")
    if _is_mapping(definitions):
        frontier.extend(value for value in definitions.values() if _is_mapping(value))
    for _depth in range(MAX_DEPTH):
        following: list[Mapping[str, Any]] = []
        for node in frontier:
            for child in _alike(node):
                properties = child.get("properties")
                if not _is_mapping(properties):
                    continue
                for key, value in properties.items():
                    if type(key) is not str or not _is_mapping(value):
                        continue
                    found.append((key, value))
                    if len(found) >= MAX_PARAMETERS:
                        return found
                    if not _NESTING.isdisjoint(value.keys()):
                        following.append(value)
        frontier = following
        if not frontier:
            break
    return found


#: Keys through which a property's schema holds properties of its own.
_NESTING = frozenset({"properties", "items", "anyOf", "oneOf", "allOf"})


def _alike(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The node and the schemas that describe the same value (items, any/one/allOf)."""
    alike = [node]
    items = node.get("items")
    if _is_mapping(items):
        alike.append(items)
    for key in ("anyOf", "oneOf", "allOf"):
        options = node.get(key)
        if type(options) is list:
            alike.extend(option for option in options[:8] if _is_mapping(option))
    return alike


def query_words(query: str) -> list[str]:
    """The words of a query: free text, with identifiers in it split like tool names.

    Stop words are dropped, duplicates kept once, and the query is cut at
    `MAX_QUERY_CHARS` characters and `MAX_QUERY_WORDS` words. A plural the stemmer keeps
    (``pdfs``, ``vms``) is looked up as its singular too.
    """
    words: list[str] = []
    for token in _IDENTIFIER.findall(query[:MAX_QUERY_CHARS]):
        for word in _split(token):
            if _VOWELLESS_PLURAL.fullmatch(word):
                words.append(word[:-1])
            words.append(word)
    stop = _STOP
    unique = [word for word in dict.fromkeys(words) if word not in stop]
    return unique[:MAX_QUERY_WORDS]


_STOP = frozenset(STOP_WORDS)
