"""The reason given is the reason (#27 item 4): an infeasible plan names what binds - the
standing restriction, the repeat rule, the load rule, the offering - never a stand-in such
as "<course> is offered in fall and spring; it cannot be taken by <term>". Each reason is
checked as a property: it names its cause, and relaxing exactly that cause in a copy of the
catalog (drop the restriction, raise the repeat limit, raise the load limit, add the
offering) removes it. Capacity arguments count every rule that can raise a load: a class
year's overload, a GPA overload, a maximum an approval lifts.

Wordings follow from the rules' semantics (``agents.policy.rules``, ``records``): the
one-credit catalog (``tests.overload_helpers``) caps a term at 4.0 credits, 5.0 with an
advisor's approval for sophomores and up with a 3.0 GPA; its sophomore has 8 credits (all
A; sophomore standing begins at 8, junior at 16) and needs MAJ's 8."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.artifacts import PlanRequest
from agents.catalog import STANDINGS, Catalog, ClassStanding, PolicyRule, StudentRecord, use_catalog
from agents.catalog.prereq import StandingCond
from agents.planner import PlanConstraints, plan
from agents.planner.prep import Prep
from agents.policy import catalog_load_caps
from agents.toolbox import Settings
from pipeline.runner import RequestOptions, ToolboxFactory, run_request
from pipeline.store import CheckpointStore
from tests.calendar_helpers import FOUR_ONE_FOUR
from tests.overload_helpers import CATALOG, RULES, sophomore
from tests.planner_helpers import ALTERNATE, FS, required
from tests.planner_strategies import catalog, course, program, student
from tests.test_catalog_words import QUARRY, quarry_raw, quarry_student
from tests.test_repeats import CATALOG as REPEAT_RAW
from tests.test_repeats import EARLIER

ONE_TERM = PlanConstraints(max_units_per_term=4, target_term="S2027")  # S2027 only
TWO_TERMS = PlanConstraints(max_units_per_term=4, target_term="F2027")  # S2027 and F2027


@pytest.fixture(autouse=True)
def _credits() -> Iterator[None]:
    with use_catalog(CATALOG):  # credits, not units
        yield


def restricted(cat: Catalog, code: str, standings: list[ClassStanding]) -> Catalog:
    courses = [
        c.model_copy(update={"restricted_to": standings}) if c.code == code else c
        for c in cat.courses
    ]
    return cat.model_copy(update={"courses": courses})


def with_rules(cat: Catalog, *rules: dict[str, Any], **thresholds: float) -> Catalog:
    """``cat`` with these load rules only (and other standing thresholds, if given)."""
    policies = [PolicyRule.model_validate(r) for r in rules]
    update: dict[str, Any] = {"policies": policies}
    if thresholds:
        update["standing_thresholds"] = cat.standing_thresholds.model_copy(update=thresholds)
    return cat.model_copy(update=update)


LOAD_MAX, OVERLOAD = RULES


def rule(base: dict[str, Any], **update: Any) -> dict[str, Any]:
    return {**base, **update}


def reasons(cat: Catalog, record: StudentRecord, c: PlanConstraints) -> list[str]:
    """The proved reasons; a capacity reason that counts terms asks for more than remain."""
    result = plan(cat, record, record.programs, c)
    assert result.status == "infeasible" and result.infeasible_kind == "proven"
    for text in result.reasons:
        m = re.search(r"need (\d+) terms at .*only (\d+) remains?", text)
        assert m is None or int(m.group(1)) > int(m.group(2)), text
    return result.reasons


def feasible(cat: Catalog, record: StudentRecord, c: PlanConstraints) -> bool:
    return plan(cat, record, record.programs, c).status in ("optimal", "feasible")


# --------------------------------------------------------------------------- standing


def test_a_restriction_no_reachable_standing_meets_is_named_and_dropping_it_removes_it() -> None:
    cat = restricted(CATALOG, "AA 108", ["junior", "senior"])
    said = reasons(cat, sophomore(), TWO_TERMS)
    assert said[0] == (
        "AA 108 is open only to juniors and seniors; the student cannot reach junior standing "
        "(16 credits) before F2027, its last offering through the target F2027 (at most 12 "
        "credits by then at the planned loads)"
    )
    assert not any("is offered" in r for r in said)  # the stand-in of old
    assert feasible(restricted(cat, "AA 108", []), sophomore(), TWO_TERMS)


def test_a_course_for_a_standing_the_student_is_past_says_so() -> None:
    cat, free = restricted(CATALOG, "AA 101", ["first_year"]), PlanConstraints(max_units_per_term=4)
    assert reasons(cat, sophomore(), free) == [
        "AA 101 is open only to first-year students; the student already has sophomore "
        "standing (8 credits earned)"
    ]
    assert feasible(restricted(cat, "AA 101", []), sophomore(), free)


def _sure_standing_only(self: Prep, code: str) -> list[int]:
    """The planner before projected standing: a restricted course only where every standing
    the student can have then is open to it."""
    course = self.course(code)
    spans = [(i, self.standings[i]) for i in self.offered_positions(code)]
    return [i for i, (lo, hi) in spans if all(course.open_to(s) for s in STANDINGS[lo : hi + 1])]


def test_the_restriction_is_named_whether_standing_is_projected_or_known(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At 8 credits a term, junior standing may be reached by F2027: a projecting planner
    plans the course there; one that asks for a standing the student surely has refuses it,
    and says that the restriction is why. At 4 a term both refuse it for the same reason."""
    cat = restricted(CATALOG, "AA 108", ["junior", "senior"])
    eight = TWO_TERMS.model_copy(update={"max_units_per_term": 8})
    assert feasible(cat, sophomore(), eight)
    monkeypatch.setattr(Prep, "_allowed_for", _sure_standing_only)
    assert reasons(cat, sophomore(), eight)[0] == (
        "AA 108 is open only to juniors and seniors; the student has sophomore standing (8 "
        "credits earned) and is not sure to have junior standing (16 credits) at the start of "
        "any term it is offered in through the target F2027"
    )
    assert reasons(cat, sophomore(), TWO_TERMS)[0].startswith(
        "AA 108 is open only to juniors and seniors; the student cannot reach junior standing"
    )


def test_a_restricted_prerequisite_is_named_in_its_chain() -> None:
    chain = catalog(
        [course("10-101", 9, FS), course("10-201", 9, FS, "10-101"), course("20-100", 9, FS)],
        [program("MAJ", required("10-201"))],
    )
    cat = restricted(chain, "10-101", ["senior"])
    by_f2027 = PlanConstraints(max_units_per_term=27, target_term="F2027")
    with use_catalog(cat):
        said = reasons(cat, student(["MAJ"]), by_f2027)
        assert said[0] == (
            "10-101 is open only to seniors; the student cannot reach senior standing (270 "
            "units) before F2027, its last offering through the target F2027 (at most 27 units "
            "by then at the planned loads)"
        )
        # The chain's length names the restriction that draws it out.
        assert "; 10-101 is open only to seniors, from S2032 at the earliest)" in said[1]
        assert not any("10-201 is offered" in r for r in said)
        assert feasible(restricted(cat, "10-101", []), student(["MAJ"]), by_f2027)


JUNIOR = StandingCond(standing="junior")


@pytest.mark.parametrize(
    ("prereq", "barred", "said"),
    [
        (JUNIOR, [], "AA 108 requires junior standing (16 credits) first, which the student "
         "cannot reach before F2027, its last offering through the target F2027 (at most 12 "
         "credits by then at the planned loads)"),
        (None, ["S2027", "F2027"], "AA 108 is offered through the target F2027 only in S2027 "
         "and F2027, which the request keeps it out of"),
    ],
)  # fmt: skip
def test_a_standing_prerequisite_or_a_barred_term_is_named(
    prereq: StandingCond | None, barred: list[str], said: str
) -> None:
    aa108 = CATALOG.course("AA 108").model_copy(update={"prerequisites": prereq})
    cat = CATALOG.model_copy(
        update={"courses": [*CATALOG.courses[:7], aa108, *CATALOG.courses[8:]]}
    )
    c = TWO_TERMS.model_copy(update={"not_in_term": {"AA 108": barred}})
    assert reasons(cat, sophomore(), c)[0] == said
    assert feasible(CATALOG, sophomore(), TWO_TERMS)  # neither: a plan


# --------------------------------------------------------------------------- repeats


def _repeat_catalog(limit: int) -> dict[str, Any]:
    """The repeat catalog of ``tests.test_repeats`` (a repeat only after C- or below, at
    most ``limit``) with 10-108, which needs 10-101 with a C, required instead of 10-101."""
    raw = json.loads(json.dumps(REPEAT_RAW))
    raw["courses"].append({**raw["courses"][0], "code": "10-108", "prerequisites": "10-101[C]"})
    core = raw["programs"][0]["requirement"]["children"]
    core[0] = {"kind": "course", "id": "calc", "course": "10-108"}
    raw["policies"][1]["limit"] = limit
    return raw


def _repeater() -> StudentRecord:
    """A D in 10-101, twice."""
    attempts = [{"course": "10-101", "term": t, "grade": "D"} for t in ("F2025", "S2026")]
    return student(["MA-BS"], [*EARLIER, *attempts])


REFUSED = (
    "10-108 needs 10-101 with a grade of C or better; 10-101 cannot be taken again: REPEATS "
    "allows at most 1 repeat, and the record already has 1 (D in F2025, D in S2026)"
)


def test_a_retake_the_repeat_rule_refuses_is_named_and_a_higher_limit_removes_it() -> None:
    """10-101 was taken off the plan (the critique's avoid): the rule behind it is named;
    under a limit of two repeats the same avoid list is only that."""
    avoid = PlanConstraints(max_units_per_term=27, avoid=["10-101"])
    strict = Catalog.model_validate(_repeat_catalog(1))
    with use_catalog(strict):
        assert reasons(strict, _repeater(), avoid) == [REFUSED]
        loose = Catalog.model_validate(_repeat_catalog(2))
        assert reasons(loose, _repeater(), avoid) == [
            "10-108 needs 10-101 with a grade of C or better and the record has D in F2025, D "
            "in S2026; 10-101 is on the avoid list"
        ]


def _run(tmp: Path, limit: int) -> tuple[list[str], list[str]]:
    """The whole pipeline on the repeat catalog: the last schedule's reasons, the risks."""
    tmp.mkdir(parents=True)
    (path := tmp / "catalog.json").write_text(json.dumps(_repeat_catalog(limit)), "utf-8")
    request = PlanRequest.model_validate(
        {"request_id": "r", "student": _repeater().model_dump(mode="json"), "intent": "plan_degree"}
    )
    factory = ToolboxFactory(catalog_path=path, index_dir=tmp / "index")
    ctx = run_request(
        request, RequestOptions(store=CheckpointStore(tmp / "state"), toolbox_factory=factory,
        settings=Settings(), out_dir=None),
    )  # fmt: skip
    assert ctx.recommendation is not None, ctx.errors
    return ctx.schedules[-1].reasons, [r.message for r in ctx.recommendation.risks]


def test_the_pipeline_names_the_repeat_rule_behind_a_prerequisite(tmp_path: Path) -> None:
    """Round 1 plans the retake of 10-101 that 10-108 needs; the critique refuses it under
    REPEATS; round 2 has no plan and says why - the rule, not 10-108's offerings."""
    said, risks = _run(tmp_path / "strict", 1)
    assert said == [REFUSED]
    assert any(m.startswith("no plan exists without 10-101") for m in risks)
    relaxed, _ = _run(tmp_path / "loose", 2)
    assert relaxed == []


# --------------------------------------------------------------------------- loads


def test_a_load_no_rule_can_raise_names_the_most_the_rules_allow() -> None:
    assert reasons(CATALOG, sophomore(), ONE_TERM)[0] == (
        "8 remaining credits need 2 terms at 5 credits (the most LOAD-OVERLOAD allows, with "
        "advisor approval), only 1 remains through the target S2027"
    )
    # An overload up to 8: the plan's own cap binds, and it fits with the rule's approval.
    higher = with_rules(CATALOG, LOAD_MAX, rule(OVERLOAD, limit=8.0))
    assert reasons(higher, sophomore(), ONE_TERM)[:1] == [
        "8 remaining credits need 2 terms at the planned 4 credits, only 1 remains through "
        "the target S2027; LOAD-OVERLOAD allows up to 8 credits with advisor approval: the "
        "plan needs an overload approval to fit"
    ]
    assert feasible(higher, sophomore(), ONE_TERM.model_copy(update={"max_units_per_term": 8}))


def test_a_gpa_overload_counts_for_a_student_who_meets_its_gpa_only() -> None:
    low = sophomore("C")  # a 2.00 GPA: LOAD-OVERLOAD asks for 3.0
    assert reasons(CATALOG, low, ONE_TERM)[:1] == [
        "8 remaining credits need 2 terms at 4 credits (the most LOAD-MAX allows), only 1 "
        "remains through the target S2027"
    ]
    relaxed = with_rules(CATALOG, LOAD_MAX, rule(OVERLOAD, applies_when={"gpa_min": 2.0}))
    assert "the most LOAD-MAX allows" not in " ".join(reasons(relaxed, low, ONE_TERM))


SENIOR_RULES = (
    LOAD_MAX,
    rule(LOAD_MAX, id="JUNIOR-MAX", applies_when={"standing_in": ["junior"]}, limit=3.0),
    rule(OVERLOAD, id="SENIOR-OVERLOAD", applies_when={"standing_in": ["senior"]},
         requires_approval="dean"),
)  # fmt: skip


def test_a_class_year_overload_is_counted_and_the_terms_are_never_miscounted() -> None:
    """A junior (8 credits; senior at 11) with the standard loads: 3 credits as a junior, 4
    as a senior. It was "need 2 terms at 4 credits, only 2 remain" while a senior overload
    allows more: now the loads that bind are said, and the rule that lets the plan fit."""
    cat = with_rules(CATALOG, *SENIOR_RULES, sophomore=4.0, junior=8.0, senior=11.0)
    standard = TWO_TERMS.model_copy(update={"standing_max_units": {"junior": 3.0}})
    assert reasons(cat, sophomore(), standard)[:1] == [
        "8 remaining credits need more than the 7 credits that the 2 terms through the target "
        "F2027 hold at the planned 3 to 4 credits each; SENIOR-OVERLOAD allows up to 5 credits "
        "with dean approval: the plan needs an overload approval to fit"
    ]
    approved = standard.model_copy(update={"max_units_per_term": 5.0})
    assert feasible(cat, sophomore(), approved)
    # Without the overload the load rules bind, and say so.
    none = with_rules(CATALOG, *SENIOR_RULES[:2], sophomore=4.0, junior=8.0, senior=11.0)
    assert reasons(none, sophomore(), standard)[0].endswith(
        "hold at 3 to 4 credits each (the most the load rules allow: JUNIOR-MAX 3; LOAD-MAX 4)"
    )


def test_a_maximum_an_approval_lifts_is_an_overload() -> None:
    dean = with_rules(CATALOG, rule(LOAD_MAX, requires_approval="dean"))
    assert reasons(dean, sophomore(), ONE_TERM)[:1] == [
        "8 remaining credits need 2 terms at the planned 4 credits, only 1 remains through "
        "the target S2027; LOAD-MAX allows more than 4 credits with dean approval: the plan "
        "needs an overload approval to fit"
    ]


# --------------------------------------------------------------------------- offerings


def test_an_offering_after_the_target_is_named_and_a_yearly_offering_removes_it() -> None:
    c = PlanConstraints(max_units_per_term=54, target_term="S2028")
    with use_catalog(ALTERNATE):
        rec = student(["MAJ"])
        assert reasons(ALTERNATE, rec, c)[0] == (
            "10-101 is offered only in fall of even years; its next offering is F2028, after "
            "the target S2028"
        )
        every = [
            x.model_copy(update={"offered": x.offered.model_copy(update={"years": "every"})})
            for x in ALTERNATE.courses
        ]
        assert feasible(ALTERNATE.model_copy(update={"courses": every}), rec, c)


def test_a_quarter_calendar_counting_courses_names_its_load_rule() -> None:
    """Quarry College: at most 3 courses a quarter (LOAD-MAX), the caps the pipeline plans
    with (``catalog_load_caps``); 10 courses cannot fit in two quarters. Raising the limit
    in a copy of the catalog raises the caps with it, and the load reason goes."""
    record = StudentRecord.model_validate(quarry_student(0))
    by_spring = PlanConstraints(max_units_per_term=3, target_term="S2027")
    with use_catalog(QUARRY):
        assert reasons(QUARRY, record, by_spring)[0] == (
            "10 remaining courses need 4 terms at 3 courses (the most LOAD-MAX allows), only 2 "
            "remain through the target S2027"
        )
        raw = quarry_raw()
        raw["policies"][0]["limit"] = 5
        five = Catalog.model_validate(raw)
        caps = by_spring.model_copy(update={"max_units_per_term": catalog_load_caps(five).ceiling})
        assert not any("remaining courses" in r for r in reasons(five, record, caps))


def test_the_diagnosis_names_a_restriction_no_plan_can_meet() -> None:
    """No target: senior standing (270 units) is reachable at full loads on paper, but the
    catalog has 27 units of courses - only the solver finds that no plan gets there. The
    relaxation that helps is the restriction, and it is named."""
    chain = catalog(
        [course("10-101", 9, FS), course("10-201", 9, FS, "10-101"), course("20-100", 9, FS)],
        [program("MAJ", required("10-201"))],
    )
    cat = restricted(chain, "10-101", ["senior"])
    with use_catalog(cat):
        assert reasons(cat, student(["MAJ"]), PlanConstraints(max_units_per_term=27)) == [
            "10-101 is open only to seniors, a standing no plan reaches before a term it is "
            "offered in through F2032"
        ]


def test_a_four_one_four_interim_is_counted_at_its_own_limit() -> None:
    """4-1-4: the January interim holds 1 credit, a spring 4.5 (5.5 for a senior with the
    dean's approval). It was "need 2 terms at 4.5 credits, only 2 remain"; now what every
    rule allows is summed, and a higher overload makes it the approval the plan needs."""
    interim = rule(LOAD_MAX, id="INTERIM-MAX", applies_when={"term_kinds": ["J"]}, limit=1.0)
    senior = rule(SENIOR_RULES[2], limit=5.5)
    cat = with_rules(CATALOG, rule(LOAD_MAX, limit=4.5), interim, senior, senior=8.0)
    runs = [
        x.model_copy(update={"offered": x.offered.model_copy(update={"terms": [*FS, "interim"]})})
        for x in cat.courses
    ]
    cat = cat.model_copy(update={"calendar": FOUR_ONE_FOUR, "courses": runs})
    c = PlanConstraints(
        max_units_per_term=4.5,
        term_max_units={"J2027": 1.0},
        optional_kinds=["J"],
        target_term="S2027",
    )
    with use_catalog(cat):
        said = reasons(cat, sophomore(), c)
        assert said[0] == (
            "8 remaining credits need more than the 6.5 credits that the 2 terms through the "
            "target S2027 hold at 1 to 5.5 credits each (the most the load rules allow: "
            "INTERIM-MAX 1; SENIOR-OVERLOAD 5.5, with dean approval)"
        )
        higher = with_rules(cat, rule(LOAD_MAX, limit=4.5), interim, rule(senior, limit=7.0))
        assert reasons(higher, sophomore(), c)[0].endswith(
            "SENIOR-OVERLOAD allows up to 7 credits with dean approval: the plan needs an "
            "overload approval to fit"
        )
        approved = c.model_copy(update={"max_units_per_term": 7.0})
        assert feasible(higher, sophomore(), approved)
