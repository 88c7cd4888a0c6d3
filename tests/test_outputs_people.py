"""What people read names requirements by title and says where a request stands in an
advisor's words (#30 item 3): the requirement titles helper, the batch index's names,
status words, sections and catalog column, and the worksheet's status shown by words and
an icon, never colour alone."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agents.artifacts import PlanRequest, Recommendation
from agents.audit import (
    audit,
    name_requirements,
    readable_id,
    render_audit,
    requirement_name,
    requirement_names,
    requirement_titles,
)
from agents.catalog import load_catalog, load_student, use_catalog
from agents.toolbox import Settings
from agents.writing import to_html, to_json, to_markdown
from agents.writing.worksheet import worksheet_html, worksheet_markdown, worksheet_view
from pipeline.index import index_rows, write_index
from pipeline.results import ADVISOR_WORDS, advisor_group
from pipeline.runner import RequestOptions, ToolboxFactory, run_request
from pipeline.store import CheckpointStore
from tests.test_render import _rec

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("req_id", "words"),
    [
        ("IS-BS/is-electives", "Is electives"),
        ("total-units", "Total units"),
        ("CS-MIN/core_1", "Core 1"),
        ("envs-301", "Envs 301"),
    ],
)
def test_an_id_without_a_title_reads_as_words(req_id: str, words: str) -> None:
    assert readable_id(req_id) == words
    assert requirement_name(req_id, {}) == words


def test_titles_come_from_the_audit_and_ids_never_show_in_the_audit_text() -> None:
    catalog = load_catalog()
    student = load_student(REPO / "demos" / "students" / "is-senior.json")
    with use_catalog(catalog):
        report = audit(catalog, student, add_programs=["CS-MIN"])
        text = render_audit(report)
    titles = requirement_titles(report)
    assert titles["BUS-MIN/bus-min-upper"] == "Advanced business courses"
    assert requirement_titles(report, {"BUS-MIN/bus-min-upper"}) == {
        "BUS-MIN/bus-min-upper": "Advanced business courses"
    }
    assert requirement_titles(report, set()) == {}
    assert requirement_names(["BUS-MIN/bus-min-upper", "free elective"], titles) == [
        "Advanced business courses",
        "free elective",
    ]
    assert "Advanced business courses: " in text
    assert "(bus-min-upper)" not in text and "bus-min-upper" not in text


def test_the_worksheet_tells_status_by_words_and_icon_not_colour_alone() -> None:
    catalog = load_catalog()
    student = load_student(REPO / "demos" / "students" / "is-senior.json")
    with use_catalog(catalog):
        view = worksheet_view(catalog, student, audit(catalog, student))
        page, md = worksheet_html(view), worksheet_markdown(view)
    cells = re.findall(
        r'<td class="st"><span class="icon" aria-hidden="true">(.)</span> ([a-z ]+)</td>', page
    )
    rows = re.findall(r'<tr class="req ([a-z_]+)"', page)
    assert len(cells) == len(rows) > 10
    words = {
        "met": "met",
        "partly_met": "in progress",
        "unmet": "not started",
        "spare": "not needed",
    }
    assert {(status, w) for status, (_, w) in zip(rows, cells, strict=True)} <= set(words.items())
    assert {w for _, w in cells} >= {"met", "not started"}
    assert "| \u2713 met |" in md
    lookahead = page.split('id="lookahead"')[1].split("</section>")[0]
    assert "Advanced business courses" in lookahead and "BUS-MIN/" not in lookahead


def _lines(rows: list[dict[str, object]]) -> list[str]:
    base = {"source": "line 1", "state": None, "outcome": None, "rounds": None, "error": None}
    return [json.dumps(base | r) for r in rows]


def _checkpoint(state: Path, rid: str, name: str, catalog: str) -> None:
    state.mkdir(exist_ok=True)
    body = {"request_id": rid, "state": "awaiting_approval", "catalog_source": catalog,
            "request": {"student": {"id": "s1", "name": name}}}  # fmt: skip
    (state / f"{rid}.json").write_text(json.dumps(body), encoding="utf-8")


def test_the_index_names_students_and_lists_who_needs_what_in_sections(tmp_path: Path) -> None:
    out, state = tmp_path / "out", tmp_path / "state"
    out.mkdir()
    rec = _rec(outcome="needs_input")
    (out / "time-conflict.json").write_text(rec.model_dump_json(), encoding="utf-8")
    (out / "time-conflict.html").write_text(to_html(rec), encoding="utf-8")
    _checkpoint(state, "r2", "Ana Ruiz", "/data/harrow-bay")
    _checkpoint(state, "time-conflict", "Sam Lee", "<bundled>")
    lines = _lines([
        {"id": "time-conflict", "status": "done", "outcome": "needs_input", "rounds": 1},
        {"id": "r2", "status": "awaiting_approval", "rounds": 1,
         "error": "awaiting approval: LOAD-OVERLOAD (S2027) by advisor"},
        {"id": "r3", "status": "failed", "error": "scheduling: RuntimeError: boom"},
        {"id": "../x", "status": "failed", "error": "bad id"},
    ])  # fmt: skip
    rows = index_rows(out, lines, state)
    assert [(r["name"], r["words"], r["catalog"]) for r in rows] == [
        ("Sam Lee", "Needs information", "bundled sample"),
        ("Ana Ruiz", "Needs approval", "/data/harrow-bay"),
        ("", "Failed", ""),
        ("", "Failed", ""),  # an unsafe id is never read as a path
    ]
    page = write_index(out, lines, state).read_text(encoding="utf-8")
    sections = re.findall(r'<section id="group-([a-z-]+)" class="group"', page)
    assert sections == ["awaiting-approval", "needs-input", "failed"]
    for anchor in sections:
        assert f'href="#group-{anchor}"' in page
    approval = page.split('id="group-awaiting-approval"')[1].split("</section>")[0]
    assert "Ana Ruiz (r2)" in approval and "LOAD-OVERLOAD" in approval
    needs = page.split('id="group-needs-input"')[1].split("</section>")[0]
    assert '<a href="time-conflict.html">Sam Lee</a> (time-conflict)' in needs
    assert '<th data-type="text">Catalog</th>' in page  # two catalogs: a column
    assert '<td class="status-awaiting_approval">Needs approval</td>' in page
    assert '<option value="awaiting_approval">Needs approval</option>' in page

    one = write_index(out, lines[:1], state).read_text(encoding="utf-8")
    assert "Catalog</th>" not in one  # one catalog: no column


@pytest.mark.parametrize(
    ("status", "outcome", "timed_out", "words"),
    [
        ("done", "approved", False, "Ready"),
        ("skipped", "approved_with_risks", False, "Ready, with risks"),
        ("done", "infeasible", False, "Cannot be planned as asked"),
        ("done", "infeasible", True, "No plan in time"),
        ("degraded", "needs_input", False, "Needs information"),
        ("awaiting_approval", None, False, "Needs approval"),
        ("locked", None, False, "Failed"),
        ("invalid", None, False, "Invalid request"),
    ],
)
def test_status_words_an_advisor_uses(
    status: str, outcome: str | None, timed_out: bool, words: str
) -> None:
    assert ADVISOR_WORDS[advisor_group(status, outcome, timed_out)] == words


def test_a_sentence_names_requirements_by_title_whole_ids_only() -> None:
    titles = {"MATH-MIN/math": "Mathematics", "MATH-MIN/math-adv": "Advanced mathematics"}
    assert name_requirements("MATH-MIN/math-adv cannot be met; MATH-MIN/math can.", titles) == (
        "Advanced mathematics cannot be met; Mathematics can."
    )
    assert name_requirements("MATH-MIN/math-advx and XMATH-MIN/math", titles) == (
        "MATH-MIN/math-advx and XMATH-MIN/math"  # not a whole id: left as it is
    )
    assert name_requirements("no ids here", {}) == "no ids here"


@pytest.fixture(scope="module")
def infeasible(tmp_path_factory: pytest.TempPathFactory) -> Recommendation:
    """The sample batch's add-minor-infeasible request, run through the pipeline."""
    line = next(
        x
        for x in (REPO / "demos" / "requests.jsonl").read_text("utf-8").splitlines()
        if json.loads(x)["request_id"] == "add-minor-infeasible"
    )
    store = CheckpointStore(tmp_path_factory.mktemp("state"))
    ctx = run_request(
        PlanRequest.model_validate_json(line),
        RequestOptions(
            store=store,
            toolbox_factory=ToolboxFactory(backend="offline"),
            settings=Settings(),
            out_dir=None,
        ),
    )
    assert ctx.recommendation is not None
    return ctx.recommendation


def test_the_planners_reasons_reach_people_with_titles_and_machines_with_ids(
    infeasible: Recommendation,
) -> None:
    rec = infeasible
    assert rec.outcome == "infeasible"
    whole = r"(?<![\w/-]){}(?![\w-])"
    blocked = [
        k for k in rec.requirement_titles if re.search(whole.format(re.escape(k)), rec.summary)
    ]
    assert blocked, rec.summary  # the planner's reason names the requirement by id ...
    people = to_markdown(rec) + to_html(rec) + rec.letter
    for req_id in blocked:  # ... and people read its title
        assert not re.search(whole.format(re.escape(req_id)), people)
        assert rec.requirement_titles[req_id] in people
    assert all(k in to_json(rec) for k in blocked)  # the JSON keeps the ids
