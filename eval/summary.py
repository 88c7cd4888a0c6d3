"""The suite's numbers (``summarize``) from the per-scenario results of ``eval.metrics``,
and the exit status they give (``exit_code``)."""

from __future__ import annotations

from collections.abc import Sequence

from eval.metrics import ScenarioResult


def _ratio(num: float, den: float) -> float | None:
    return round(num / den, 4) if den else None


def summarize(
    results: Sequence[ScenarioResult],
    *,
    wall_s: float,
    determinism: dict[str, bool] | None = None,
) -> dict[str, object]:
    """The suite's numbers. ``determinism`` maps re-run scenario ids to whether the second
    run was byte-identical apart from wall-clock values (None: not checked)."""
    ran = [r for r in results if r.outcome != "rejected" and r.expected_outcome != "rejected"]
    labeled_grad = [r for r in results if r.graduation_ok is not None]
    plans = [r for r in results if r.plan_checked]
    resolved = [r for r in plans if r.optimum_match is not None]
    bounded = [r for r in plans if r.gap_terms is not None]
    expected_v = sum(len(r.violations_expected) for r in results)
    found_v = sum(len(r.violations_found) for r in results)
    cites = sum(r.citations_checked for r in results)
    cite_err = sum(len(r.citation_errors) for r in results)
    sections = sum(len(r.sections_expected) for r in results)
    sections_missing = sum(len(r.sections_missing) for r in results)
    questions = sum(len(r.open_questions_expected) for r in results)
    questions_missing = sum(len(r.open_questions_missing) for r in results)
    risks = sum(len(r.risks_expected) for r in results)
    pipeline_ms = sum(r.ms for r in ran)
    hard_missed = [f"{r.id}: {x}" for r in results for x in r.hard_missed]
    invalid_plans = [r.id for r in plans if r.defects]
    labeled_alt = [r for r in results if r.alternatives_expected is not None]
    shown_alt = [r for r in results if r.alternatives_found]
    return {
        "scenarios": len(results),
        "outcome_accuracy": _ratio(sum(r.outcome_ok for r in results), len(results)),
        "graduation_accuracy": _ratio(
            sum(bool(r.graduation_ok) for r in labeled_grad), len(labeled_grad)
        ),
        "validity": _ratio(len(plans) - len(invalid_plans), len(plans)),
        "plans_verified": len(plans),
        "invalid_plans": invalid_plans,
        "violation_recall": _ratio(
            expected_v - sum(len(r.violations_missed) for r in results), expected_v
        ),
        "violation_precision": _ratio(
            found_v - sum(len(r.violations_unexpected) for r in results), found_v
        ),
        "hard_violations_missed": hard_missed,
        "citation_accuracy": _ratio(
            cites - cite_err + sections - sections_missing, cites + sections
        ),
        "citations_checked": cites,
        "citation_errors": cite_err,
        "cited_sections_recall": _ratio(sections - sections_missing, sections),
        "open_question_recall": _ratio(questions - questions_missing, questions),
        "risk_recall": _ratio(risks - sum(len(r.risks_missing) for r in results), risks),
        "optimality": {
            "plans": len(plans),
            "proven_optimal": _ratio(sum(r.solver_status == "optimal" for r in plans), len(plans)),
            "matches_planner_optimum": _ratio(
                sum(bool(r.optimum_match) for r in resolved), len(resolved)
            ),
            "at_lower_bound": _ratio(sum(r.gap_terms == 0 for r in bounded), len(bounded)),
            "mean_terms_above_bound": _ratio(sum(r.gap_terms or 0 for r in bounded), len(bounded)),
            "max_terms_above_bound": max((r.gap_terms or 0 for r in bounded), default=None),
            "below_bound": [r.id for r in bounded if (r.gap_terms or 0) < 0],
        },
        "deterministic": None if determinism is None else all(determinism.values()),
        "determinism_checked": 0 if determinism is None else len(determinism),
        "determinism_mismatches": sorted(k for k, v in (determinism or {}).items() if not v),
        "failed_runs": [r.id for r in results if r.outcome == "failed"],
        "outcome_mismatches": [_mismatch(r) for r in results if not r.outcome_ok],
        "label_accuracy": _ratio(sum(not r.label_mismatches for r in results), len(results)),
        "alternatives": {
            "scenarios_labeled": len(labeled_alt),
            "labels_match": _ratio(
                sum(r.alternatives_found == r.alternatives_expected for r in labeled_alt),
                len(labeled_alt),
            ),
            "shown": sum(len(r.alternatives_found) for r in results),
            "scenarios_with_alternatives": len(shown_alt),
            "invalid": [f"{r.id}: {d}" for r in results for d in r.alternative_defects],
        },
        "label_mismatches": [f"{r.id}: {m}" for r in results for m in r.label_mismatches],
        "throughput_rps": _ratio(len(ran), pipeline_ms / 1000),
        "pipeline_s": round(pipeline_ms / 1000, 3),
        "wall_s": round(wall_s, 3),
    }


def _mismatch(r: ScenarioResult) -> str:
    got = r.outcome
    if r.invalid_message is not None:
        got = f"rejected with {r.invalid_message!r}"
    elif r.error is not None:
        got = f"{got} ({r.error.splitlines()[0]})"
    return f"{r.id}: expected {r.expected_outcome}, got {got}"


def exit_code(summary: dict[str, object]) -> int:
    """1 if a final plan or an alternative shown fails the verifier, an expected hard
    violation is missed, or a run failed; else 0. Outcome accuracy below 1.0 is reported,
    not fatal: a label the
    pipeline disagrees with is a finding to read, and the labels stay honest."""
    bad = summary["invalid_plans"] or summary["hard_violations_missed"] or summary["failed_runs"]
    alternatives = summary.get("alternatives")
    if isinstance(alternatives, dict) and alternatives.get("invalid"):
        bad = True  # an alternative shown as valid that is not
    return 1 if bad else 0
