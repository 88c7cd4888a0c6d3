"""Report templates: shipped as package data, overridable by an office's directory (letter
wording, branding) without code; a broken override is a clear error; the HTML prints on a
page of its own; the batch index and the audit worksheet come from templates too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.catalog import load_catalog, load_student, use_catalog
from agents.errors import TemplateProblemError
from agents.llm import template_letter
from agents.reports import TEMPLATE_NAMES, check_templates, shipped_template, use_templates
from agents.writing.render import to_html, to_markdown
from pipeline.index import index_rows, write_index
from tests.test_render import _rec

REPO = Path(__file__).resolve().parents[1]


def test_every_template_ships_with_the_package() -> None:
    for name in TEMPLATE_NAMES:
        assert (REPO / "agents" / "templates" / name).is_file()
        assert shipped_template(name)


def test_an_office_overrides_the_letter_wording_and_the_page_without_code(tmp_path: Path) -> None:
    letter = shipped_template("letter.txt.j2").replace(
        "Warm regards,\n{{ sign_off }}", "With best wishes,\nNorthfield Advising Center"
    )
    (tmp_path / "letter.txt.j2").write_text(letter, encoding="utf-8")
    css = shipped_template("style.css.j2").replace("#14325c", "#7a0019")
    (tmp_path / "style.css.j2").write_text(css, encoding="utf-8")
    assert check_templates(tmp_path) == ["letter.txt.j2", "style.css.j2"]
    shipped = template_letter(_rec())
    with use_templates(tmp_path):
        office = template_letter(_rec())
        page = to_html(_rec())
    assert shipped.endswith("Warm regards,\nOffice of Undergraduate Advising\n")
    assert office.endswith("With best wishes,\nNorthfield Advising Center\n")
    assert "#7a0019" in page and "#14325c" not in page
    assert "#14325c" in to_html(_rec())  # outside the block: the shipped ones again


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("letter.txt.j2", "Dear {{ first_name }\n", "letter.txt.j2, line 1: unexpected '}'"),
        ("report.md.j2", "{% if x %}\nno end\n", "report.md.j2, line 2: Unexpected end of "),
        ("letters.txt.j2", "hello", "letters.txt.j2: not a template name; expected one of "),
    ],
)
def test_a_broken_override_is_refused_naming_the_file_and_line(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(TemplateProblemError) as err:
        check_templates(tmp_path)
    assert str(err.value).startswith(f"template {tmp_path / name}"[: len("template ")])
    assert message in str(err.value)


def test_a_template_naming_an_unknown_variable_says_so(tmp_path: Path) -> None:
    (tmp_path / "letter.txt.j2").write_text("Dear {{ nickname }},\n", encoding="utf-8")
    with use_templates(tmp_path), pytest.raises(TemplateProblemError) as err:
        template_letter(_rec())
    assert str(err.value) == (
        "template letter.txt.j2: 'nickname' is undefined; see the shipped template for the "
        "names it may use"
    )


def test_the_letter_names_policies_and_terms_never_rule_ids_or_instructions() -> None:
    letter = template_letter(_rec())
    assert "LOAD-MAX" not in letter
    assert "Spring 2028" in letter and "S2028" not in letter
    for leftover in ("cap every term at it", "find the earliest graduation within it"):
        assert leftover not in letter


def test_the_page_prints_on_its_own_layout_and_shows_what_courses_count_toward() -> None:
    page = to_html(_rec())
    assert "@media print{" in page and "@page{" in page
    assert '<span class="toward">counts toward Information systems core</span>' in page
    md = to_markdown(_rec())
    assert "| 67-272 | Design \\| Development | 12 | Information systems core |" in md
    assert "IS-BS/core" not in page + md  # the id stays in the JSON only
    untitled = _rec(requirement_titles={})  # a recommendation written before titles
    assert '<span class="toward">counts toward Core</span>' in to_html(untitled)
    assert "->" not in md.split("## Negotiation")[1].split("## Citations")[0]


def _summary(out: Path, lines: list[dict[str, object]]) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    return [json.dumps(x) for x in lines]


def test_the_batch_index_lists_every_request_with_its_facts_and_report(tmp_path: Path) -> None:
    rec = _rec()
    (tmp_path / "time-conflict.json").write_text(rec.model_dump_json(), encoding="utf-8")
    (tmp_path / "time-conflict.html").write_text(to_html(rec), encoding="utf-8")
    lines = _summary(
        tmp_path,
        [
            {"id": "time-conflict", "source": "line 1", "status": "done",
             "outcome": rec.outcome, "rounds": 3, "error": None},
            {"id": "r2", "source": "line 2", "status": "awaiting_approval", "outcome": None,
             "rounds": 1, "error": "awaiting approval: LOAD-OVERLOAD (S2027) by advisor"},
            {"id": None, "source": "line 3", "status": "invalid", "outcome": None,
             "rounds": None, "error": "not valid JSON at column 2: Expecting value"},
        ],
    )  # fmt: skip
    rows = index_rows(tmp_path, lines)
    got = [(r["id"], r["status"], r["graduation_label"], r["risks"], r["report"]) for r in rows]
    assert got == [
        ("time-conflict", "done", "Spring 2029", 1, "time-conflict.html"),
        ("r2", "awaiting_approval", "", "", None),
        ("", "invalid", "", "", None),
    ]  # fmt: skip
    page = write_index(tmp_path, lines).read_text(encoding="utf-8")
    assert '<a href="time-conflict.html">time-conflict</a>' in page
    assert (
        "3 requests: Needs approval 1 · Needs an advisor&#39;s review 1 · Invalid request 1"
    ) in page
    assert "<script>" in page and "http" not in page.split("<script>")[1]  # no CDN


def test_the_audit_worksheet_in_markdown_has_progress_fallthrough_and_lookahead() -> None:
    from agents.audit import audit
    from agents.writing.worksheet import worksheet_markdown, worksheet_view

    catalog = load_catalog()
    student = load_student(REPO / "demos" / "students" / "is-senior.json")
    with use_catalog(catalog):
        view = worksheet_view(catalog, student, audit(catalog, student, add_programs=["CS-MIN"]))
        md = worksheet_markdown(view)
    assert [(p["code"], p["percent"], p["what_if"]) for p in view["programs"]] == [
        ("IS-BS", 92, False),
        ("BUS-MIN", 60, False),  # 3 of 5: 70-391 and the upper course are in progress
        ("CS-MIN", 25, True),
    ]
    assert "- **Overall:** 79% complete (26 of 33 requirements met by completed courses)" in md
    assert "## CS-MIN Computer Science minor (minor, what-if): 25% complete" in md
    assert "- 15-110 Principles of Computing (F2023, B+, 12 units)" in md
    assert "- 70-415 Introduction to Entrepreneurship (F2026, in progress): counts toward " \
        "Advanced business courses" in md  # fmt: skip
    assert "BUS-MIN/" not in md


def test_run_and_batch_use_an_office_templates_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pipeline.cli import main

    office = tmp_path / "office"
    office.mkdir()
    (office / "letter.txt.j2").write_text(
        shipped_template("letter.txt.j2").replace("Warm regards,", "Yours,"), encoding="utf-8"
    )
    (office / "index.html.j2").write_text(
        shipped_template("index.html.j2").replace("<h1>Batch index</h1>", "<h1>Northfield</h1>"),
        encoding="utf-8",
    )
    line = next(
        x
        for x in (REPO / "demos" / "requests.jsonl").read_text("utf-8").splitlines()
        if json.loads(x)["request_id"] == "senior-on-track"
    )
    (tmp_path / "in.jsonl").write_text(line + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["batch", "in.jsonl", "--templates", "office", "--quiet"]) == 0
    rec = json.loads((tmp_path / "out" / "senior-on-track.json").read_text("utf-8"))
    assert "\nYours,\nOffice of Undergraduate Advising\n" in rec["letter"]
    assert "<h1>Northfield</h1>" in (tmp_path / "out" / "index.html").read_text("utf-8")
    (office / "report.md.j2").write_text("{% for x in %}", encoding="utf-8")
    capsys.readouterr()
    assert main(["batch", "in.jsonl", "--templates", "office", "--quiet"]) == 2
    assert capsys.readouterr().err == (
        "error: template office/report.md.j2, line 1: Expected an expression, got 'end of "
        "statement block'\n"
    )
