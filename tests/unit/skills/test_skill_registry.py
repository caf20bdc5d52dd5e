"""Unit tests of `SkillRegistry`: order, the duplicate policy, bundles and threads."""

import logging
import threading

import pytest

from nucleo_core.errors import MisuseError
from nucleo_core.skills import Skill, SkillCollisionError, SkillRegistry


def make_skill(name: str, bundle: str = "", description: str = "Does a thing.") -> Skill:
    """A skill as a loader would build it, without a folder."""
    return Skill(name=name, description=description, instructions="Steps.", bundle=bundle)


def test_skills_are_kept_in_registration_order() -> None:
    """Iteration, names() and skills() all follow registration order, not alphabetical order."""
    registry = SkillRegistry([make_skill("zeta"), make_skill("alpha"), make_skill("mid")])

    assert registry.names() == ["zeta", "alpha", "mid"]
    assert [skill.name for skill in registry] == ["zeta", "alpha", "mid"]
    assert [skill.name for skill in registry.skills()] == ["zeta", "alpha", "mid"]
    assert len(registry) == 3


def test_re_registering_from_the_same_bundle_replaces_in_place() -> None:
    """Same name, same bundle is an upsert: the newer skill takes the older one's place."""
    registry = SkillRegistry([make_skill("a", "acme"), make_skill("b", "acme")])
    newer = make_skill("a", "acme", description="Newer text.")

    assert registry.register(newer) is newer

    assert registry.names() == ["a", "b"]
    assert registry.get("a") is newer


def test_a_name_claimed_from_another_bundle_is_a_collision_naming_both() -> None:
    """Same name, different bundle raises SkillCollisionError naming both bundles."""
    registry = SkillRegistry([make_skill("review", "acme.skills")])

    with pytest.raises(SkillCollisionError) as caught:
        registry.register(make_skill("review", "other.jar"))

    error = caught.value
    assert isinstance(error, MisuseError)
    assert (error.name, error.existing_bundle, error.incoming_bundle) == (
        "review",
        "acme.skills",
        "other.jar",
    )
    assert "'acme.skills'" in str(error)
    assert "'other.jar'" in str(error)
    assert "shadow=True" in str(error)
    assert registry.get("review") == make_skill("review", "acme.skills")


def test_a_collision_with_a_bundleless_skill_says_so() -> None:
    """A skill outside any bundle is described as such in a collision, not as bundle ''."""
    registry = SkillRegistry([make_skill("review")])

    with pytest.raises(SkillCollisionError, match="outside any bundle"):
        registry.register(make_skill("review", "acme"))


def test_shadowing_replaces_a_skill_from_another_bundle_in_place_and_logs_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """shadow=True lets a different bundle take the name, keeping its place, and logs it."""
    registry = SkillRegistry([make_skill("review", "acme"), make_skill("other")])
    replacement = make_skill("review", "local.overrides")

    with caplog.at_level(logging.INFO, logger="nucleo.skills"):
        registry.register(replacement, shadow=True)

    assert registry.names() == ["review", "other"]
    assert registry.get("review") is replacement
    assert "review" in caplog.text
    assert "shadowed" in caplog.text


def test_register_all_registers_in_order_and_returns_the_skills() -> None:
    """register_all registers each skill in turn and hands them back."""
    registry = SkillRegistry()
    skills = [make_skill("one"), make_skill("two")]

    assert registry.register_all(skills) == skills
    assert registry.names() == ["one", "two"]


def test_registering_something_other_than_a_skill_is_a_type_error() -> None:
    """The registry holds Skill objects only; anything else is refused at the door."""
    with pytest.raises(TypeError, match="takes a Skill"):
        SkillRegistry().register("review")  # type: ignore[arg-type]


def test_unregister_by_name_removes_and_returns_the_skill() -> None:
    """unregister(name) removes the skill and returns it; a later one keeps its relative order."""
    review = make_skill("review")
    registry = SkillRegistry([make_skill("a"), review, make_skill("b")])

    assert registry.unregister("review") is review
    assert registry.names() == ["a", "b"]
    assert "review" not in registry


def test_unregistering_what_is_not_registered_is_a_no_op() -> None:
    """Unregistering an unknown name, or a skill that differs from the one held, changes nothing."""
    registry = SkillRegistry([make_skill("review", "acme")])

    assert registry.unregister("missing") is None
    assert registry.unregister(make_skill("review", "other")) is None
    assert registry.names() == ["review"]


def test_unregister_by_skill_removes_the_equal_skill() -> None:
    """A Skill passed to unregister removes the registered skill equal to it."""
    registry = SkillRegistry([make_skill("review", "acme")])

    assert registry.unregister(make_skill("review", "acme")) == make_skill("review", "acme")
    assert len(registry) == 0


def test_unregister_none_is_a_type_error() -> None:
    """A None name is a bug in the caller, so unregister refuses it loudly."""
    with pytest.raises(TypeError):
        SkillRegistry().unregister(None)  # type: ignore[arg-type]


def test_get_answers_none_for_unknown_and_none_names() -> None:
    """get() is a lookup: an unknown name and a None name both answer None."""
    registry = SkillRegistry([make_skill("review")])

    assert registry.get("missing") is None
    assert registry.get(None) is None


def test_contains_takes_a_name_or_a_skill() -> None:
    """`in` checks a name, or whether that very skill (by equality) is registered."""
    registry = SkillRegistry([make_skill("review", "acme")])

    assert "review" in registry
    assert make_skill("review", "acme") in registry
    assert make_skill("review", "other") not in registry
    assert 3 not in registry
    assert None not in registry


@pytest.mark.parametrize("prefix", ["acme.skills", "acme.skills."])
def test_select_bundle_matches_whole_dotted_segments(prefix: str) -> None:
    """A prefix matches its bundle and bundles nested in it, never a sibling sharing letters."""
    registry = SkillRegistry(
        [
            make_skill("research", "acme.skills.research"),
            make_skill("unrelated", "acme.skillset"),
            make_skill("core", "acme.skills"),
            make_skill("parent", "acme"),
            make_skill("loose"),
        ]
    )

    assert [skill.name for skill in registry.select_bundle(prefix)] == ["research", "core"]


@pytest.mark.parametrize("prefix", ["", ".", "  "])
def test_an_empty_bundle_prefix_is_refused(prefix: str) -> None:
    """An empty prefix would select everything by accident, so it is a ValueError."""
    with pytest.raises(ValueError, match="add_all"):
        SkillRegistry().select_bundle(prefix)


def test_the_repr_counts_the_skills() -> None:
    """The repr says how many skills the registry holds."""
    assert repr(SkillRegistry([make_skill("a")])) == "<SkillRegistry 1 skills>"


def test_concurrent_registrations_and_reads_lose_nothing() -> None:
    """Several threads registering, upserting and reading at once leave every skill registered."""
    registry = SkillRegistry()
    threads_count, per_thread = 8, 200
    start = threading.Barrier(threads_count + 1)
    failures: list[BaseException] = []

    def writer(worker: int) -> None:
        start.wait()
        try:
            for index in range(per_thread):
                registry.register(make_skill(f"w{worker}-s{index}", f"bundle.w{worker}"))
                registry.register(make_skill("shared", "bundle.shared"))
        except BaseException as exc:  # collected, so a failure in a thread fails the test
            failures.append(exc)

    def reader() -> None:
        start.wait()
        try:
            for _ in range(per_thread):
                names = registry.names()
                assert len(names) == len(set(names))
                registry.select_bundle("bundle")
                list(registry)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(threads_count - 1)]
    threads.append(threading.Thread(target=reader))
    for thread in threads:
        thread.start()
    start.wait()
    for thread in threads:
        thread.join()

    assert failures == []
    assert len(registry) == (threads_count - 1) * per_thread + 1
    assert len(registry.select_bundle("bundle.w0")) == per_thread


def test_concurrent_claims_from_different_bundles_leave_exactly_one_winner() -> None:
    """When threads race to claim one name from different bundles, one wins and the rest collide."""
    registry = SkillRegistry()
    contenders = 8
    start = threading.Barrier(contenders)
    outcomes: list[str] = []
    lock = threading.Lock()

    def claim(worker: int) -> None:
        start.wait()
        try:
            registry.register(make_skill("contested", f"bundle{worker}"))
            outcome = "won"
        except SkillCollisionError:
            outcome = "collided"
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=claim, args=(n,)) for n in range(contenders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["collided"] * (contenders - 1) + ["won"]
    assert len(registry) == 1
