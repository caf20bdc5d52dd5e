"""SkillSelectorTest: a selector is read against the registry when resolved, never before.

A selector names skills exactly, by bundle-id prefix, or all that the registry holds; the hub
resolves it once per thinker class. A declared name the registry does not hold is logged and
skipped, so a missing bundle never takes a thinker down.
"""

import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nucleo_core.skills import Skill, SkillRegistry, SkillSelector


def make_skill(name: str, bundle: str = "") -> Skill:
    """A skill as a loader would build it, without a folder."""
    return Skill(name=name, description=f"The {name} skill.", instructions="Steps.", bundle=bundle)


def names_of(skills: list[Skill]) -> list[str]:
    return [skill.name for skill in skills]


# -- resolution-time reads ----------------------------------------------------------------------


def test_a_skill_registered_after_the_selector_was_built_is_found() -> None:
    """The registry is read at resolve(), so a later registration is part of the result."""
    registry = SkillRegistry()
    selector = SkillSelector("delegation").add_bundle("acme.skills").add_all()

    registry.register(make_skill("delegation"))
    registry.register(make_skill("research", "acme.skills.research"))

    assert names_of(selector.resolve(registry)) == ["delegation", "research"]


def test_a_skill_unregistered_before_resolution_is_not_returned() -> None:
    """Nothing is captured at construction: a skill gone by resolve() time is not resolved."""
    registry = SkillRegistry([make_skill("review", "acme"), make_skill("draft", "acme")])
    selector = SkillSelector().add_bundle("acme")

    registry.unregister("review")

    assert names_of(selector.resolve(registry)) == ["draft"]


def test_one_selector_resolves_against_whichever_registry_it_is_given() -> None:
    """A selector holds no skills itself; two registries give two answers."""
    selector = SkillSelector().add_all()
    first = SkillRegistry([make_skill("one")])
    second = SkillRegistry([make_skill("two"), make_skill("three")])

    assert names_of(selector.resolve(first)) == ["one"]
    assert names_of(selector.resolve(second)) == ["two", "three"]


# -- what a selector names ----------------------------------------------------------------------


def test_exact_names_resolve_in_the_order_given() -> None:
    """Exact names come back in the selector's order, not the registry's."""
    registry = SkillRegistry([make_skill("a"), make_skill("b"), make_skill("c")])

    assert names_of(SkillSelector("c", "a").add("b").resolve(registry)) == ["c", "a", "b"]


@pytest.mark.parametrize("prefix", ["acme.skills", "acme.skills."])
def test_a_bundle_prefix_selects_a_whole_skilljar_by_dotted_segments(prefix: str) -> None:
    """A prefix selects its bundle and nested ones (trailing dot or not), never a lookalike."""
    registry = SkillRegistry(
        [
            make_skill("research", "acme.skills.research"),
            make_skill("unrelated", "acme.skillset"),
            make_skill("core", "acme.skills"),
            make_skill("loose"),
        ]
    )

    assert names_of(SkillSelector().add_bundle(prefix).resolve(registry)) == ["research", "core"]


def test_add_all_selects_every_skill_in_registry_order() -> None:
    """add_all() resolves to everything the registry holds, in its order."""
    registry = SkillRegistry([make_skill("z", "x"), make_skill("a"), make_skill("m", "y")])

    assert names_of(SkillSelector().add_all().resolve(registry)) == ["z", "a", "m"]


def test_exact_names_come_first_then_bundle_matches_in_registry_order_each_once() -> None:
    """Exact names come as given, then other matches in registry order, each skill once."""
    registry = SkillRegistry(
        [
            make_skill("alpha", "acme"),
            make_skill("beta", "other"),
            make_skill("gamma", "acme.deep"),
            make_skill("delta", "acme"),
        ]
    )
    selector = SkillSelector("delta", "beta").add_bundle("acme").add_bundle("acme.deep")

    assert names_of(selector.resolve(registry)) == ["delta", "beta", "alpha", "gamma"]


def test_an_empty_selector_resolves_to_nothing() -> None:
    """A selector that names nothing selects nothing, whatever the registry holds."""
    assert SkillSelector().resolve(SkillRegistry([make_skill("a")])) == []


def test_resolving_twice_gives_the_same_list() -> None:
    """Resolution is deterministic, so a catalog built from it is stable across turns."""
    registry = SkillRegistry([make_skill(name, "jar") for name in ["q", "b", "k"]])
    selector = SkillSelector("k").add_bundle("jar")

    assert selector.resolve(registry) == selector.resolve(registry)


def test_the_selector_reports_what_it_declares() -> None:
    """names, bundles and selects_all read back the declaration, deduplicated and normalized."""
    selector = SkillSelector("a", "a").add_bundle("acme.skills.").add_bundle("acme.skills")

    assert selector.names == ("a",)
    assert selector.bundles == ("acme.skills",)
    assert not selector.selects_all
    assert selector.add_all().selects_all
    assert repr(selector) == "SkillSelector(names=['a'], bundles=['acme.skills'], all=True)"


@pytest.mark.parametrize(
    ("declare", "error"),
    [
        (lambda s: s.add(""), ValueError),
        (lambda s: s.add(None), TypeError),
        (lambda s: s.add_bundle(""), ValueError),
        (lambda s: s.add_bundle("."), ValueError),
        (lambda s: s.add_bundle(3), TypeError),
    ],
    ids=["empty name", "None name", "empty prefix", "dot prefix", "number prefix"],
)
def test_a_meaningless_declaration_is_refused_when_made(declare: object, error: type) -> None:
    """An empty or non-string name or prefix is a bug in the declaring code, raised at once."""
    with pytest.raises(error):
        declare(SkillSelector())  # type: ignore[operator]


# -- missing skills ---------------------------------------------------------------------------


def test_a_missing_name_is_logged_and_skipped_never_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A name the registry lacks is warned about (it and the selector named); the rest resolve."""
    registry = SkillRegistry([make_skill("present")])
    selector = SkillSelector("absent-skill", "present")

    with caplog.at_level(logging.WARNING, logger="nucleo.skills"):
        resolved = selector.resolve(registry)

    assert names_of(resolved) == ["present"]
    (record,) = caplog.records
    assert record.name == "nucleo.skills"
    assert record.levelno == logging.WARNING
    assert "absent-skill" in record.getMessage()
    assert repr(selector) in record.getMessage()


def test_a_bundle_prefix_matching_nothing_is_not_an_error() -> None:
    """A prefix no installed skilljar matches simply selects nothing."""
    registry = SkillRegistry([make_skill("a", "acme")])

    assert SkillSelector().add_bundle("missing.jar").resolve(registry) == []


# -- the order invariant ------------------------------------------------------------------------

skill_names = st.sampled_from(["a", "b", "c", "d", "e", "f"])
bundles = st.sampled_from(["", "acme", "acme.x", "acme.xy", "other"])


@given(
    registered=st.lists(st.tuples(skill_names, bundles), max_size=8, unique_by=lambda t: t[0]),
    wanted=st.lists(skill_names, max_size=6),
    prefixes=st.lists(st.sampled_from(["acme", "acme.x", "other", "none"]), max_size=3),
    select_all=st.booleans(),
)
def test_resolution_is_exact_names_first_then_registry_order_without_duplicates(
    registered: list[tuple[str, str]], wanted: list[str], prefixes: list[str], select_all: bool
) -> None:
    """For any registry and selector: held exact names as given, then registry order, once each."""
    registry = SkillRegistry(make_skill(name, bundle) for name, bundle in registered)
    selector = SkillSelector(*wanted)
    for prefix in prefixes:
        selector.add_bundle(prefix)
    if select_all:
        selector.add_all()

    logging.disable(logging.WARNING)  # missing names are expected here, and logged each time
    try:
        resolved = names_of(selector.resolve(registry))
    finally:
        logging.disable(logging.NOTSET)

    exact = list(dict.fromkeys(name for name in wanted if name in registry))
    matched = [
        skill.name
        for skill in registry
        if select_all
        or any(skill.bundle == p or skill.bundle.startswith(p + ".") for p in prefixes)
    ]
    assert resolved == exact + [name for name in matched if name not in exact]
