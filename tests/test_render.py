"""Renderers: lossless JSON, exact Markdown, and a self-contained HTML page that escapes
every piece of text and keeps stable ids and classes for browser tests."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Any

from agents.artifacts import (
    CitationRef,
    ConstraintChange,
    NegotiationRound,
    NextTermSections,
    OpenQuestion,
    Recommendation,
    Risk,
    ScheduledCourse,
    ScheduledTerm,
    SectionPick,
    Violation,
)
from agents.writing.render import to_html, to_json, to_markdown

SCRIPT = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"

CITATION = CitationRef(
    document="academic-policies",
    section="course-load",
    heading="Course Load",
    quote="At most 54 units a term.\nAbove 54 is an overload.",
    rule_id="LOAD-MAX",
)


def _rec(**over: Any) -> Recommendation:
    base: dict[str, Any] = {
        "request_id": "time-conflict",
        "student_id": "is-sophomore",
        "student_name": "Sam Lee",
        "intent": "plan_next_term",
        "outcome": "unresolved_after_max_rounds",
        "summary": "Unresolved after 3 round(s): LOAD-MAX still violated.",
        "programs": ["IS-BS"],
        "requirement_titles": {"IS-BS/core": "Information systems core"},
        "plan": [
            ScheduledTerm(
                term="S2027",
                label="Spring 2027",
                units=12,
                courses=[
                    ScheduledCourse(
                        course="67-272",
                        title="Design | Development",
                        units=12,
                        satisfies=["IS-BS/core"],
                    )
                ],
            ),
            ScheduledTerm(term="F2027", label="Fall 2027", units=0, away=True),
        ],
        "graduation_term": "S2029",
        "next_term": NextTermSections(
            term="S2027",
            status="clash",
            sections=[SectionPick(course="67-272", section="A", meetings=["TR 13:30-14:50"])],
            clashes=["67-272 A and 70-311 A both meet TR 13:30-14:50"],
            alternative=["67-272", "67-250"],
        ),
        "risks": [
            Risk(kind="consent_needed", message="70-311 needs consent.", term="S2027"),
        ],
        "violations": [
            Violation(
                rule_id="LOAD-MAX",
                severity="hard",
                term="S2028",
                message="Spring 2028 has 63 units; the limit is 54.",
                citation=CITATION,
            )
        ],
        "citations": [CITATION],
        "open_questions": [OpenQuestion(field="target", question="When do you graduate?")],
        "negotiation": [
            NegotiationRound(
                round=1,
                proposal="Graduate S2028 in 3 terms, max 63 units/term (optimal)",
                graduation_term="S2028",
                solver_status="optimal",
                approval="rejected",
                violations=["LOAD-MAX (S2028): Spring 2028 has 63 units; the limit is 54."],
                revision=[
                    ConstraintChange(
                        field="max_units_per_term",
                        before=63,
                        after=54,
                        reason="Cap terms at 54 units.",
                        rule_id="LOAD-MAX",
                    )
                ],
                resolution="max_rounds",
            )
        ],
        "letter": "Dear Sam,\n\nSee below.\n",
        "letter_source": "template",
    }
    return Recommendation(**{**base, **over})


EXPECTED_MARKDOWN = """\
# Advising recommendation for Sam Lee

- **Outcome:** Unresolved after the last round
- **Student:** Sam Lee (is-sophomore)
- **Request:** time-conflict (plan next term)
- **Programs:** IS-BS
- **Graduation:** Spring 2029

Unresolved after 3 round(s): LOAD-MAX still violated.

## Plan

### Spring 2027 (12 units)

| Course | Title | Units | Counts toward |
| --- | --- | --- | --- |
| 67-272 | Design \\| Development | 12 | Information systems core |

### Fall 2027: away

## Next-term sections: Spring 2027

Status: clash

| Course | Section | Meetings |
| --- | --- | --- |
| 67-272 | A | TR 13:30-14:50 |

- Clash: 67-272 A and 70-311 A both meet TR 13:30-14:50
- Alternative: 67-272, 67-250

## Risks

- **consent needed** (Spring 2027): 70-311 needs consent.

## Unresolved violations

- **LOAD-MAX** (hard, Spring 2028): Spring 2028 has 63 units; the limit is 54.

## Negotiation

### Round 1: max rounds

The first proposal: graduate S2028 in 3 terms, max 63 units/term (optimal). \
The policy review rejected it.

- Broken: LOAD-MAX (S2028): Spring 2028 has 63 units; the limit is 54.
- Changed: Every term is capped at 54 units (was 63).

That was the last round allowed.

## Citations

> **Course Load** (academic-policies / course-load; rule LOAD-MAX)
>
> At most 54 units a term.
> Above 54 is an overload.

## Open questions

- When do you graduate?

## Letter to the student

Dear Sam,

See below.
"""


def test_markdown_renders_every_part_in_order() -> None:
    assert to_markdown(_rec()) == EXPECTED_MARKDOWN


def test_markdown_for_an_answer_without_a_plan() -> None:
    rec = _rec(
        intent="policy_question",
        outcome="answered",
        summary="Answered from the policy sections: Course Load.",
        plan=[],
        graduation_term=None,
        next_term=None,
        risks=[],
        violations=[],
        negotiation=[],
        open_questions=[],
        answer='Course Load: "At most 54 units a term."',
        letter="Dear Sam,\n\nThe answer.\n",
    )
    assert to_markdown(rec) == (
        "# Advising recommendation for Sam Lee\n\n"
        "- **Outcome:** Answered\n"
        "- **Student:** Sam Lee (is-sophomore)\n"
        "- **Request:** time-conflict (policy question)\n"
        "- **Programs:** IS-BS\n"
        "- **Graduation:** not planned\n\n"
        "Answered from the policy sections: Course Load.\n\n"
        "## Answer\n\n"
        'Course Load: "At most 54 units a term."\n\n'
        "## Citations\n\n"
        "> **Course Load** (academic-policies / course-load; rule LOAD-MAX)\n"
        ">\n"
        "> At most 54 units a term.\n"
        "> Above 54 is an overload.\n\n"
        "## Letter to the student\n\n"
        "Dear Sam,\n\nThe answer.\n"
    )


def test_json_is_sorted_indented_and_round_trips() -> None:
    rec = _rec()
    text = to_json(rec)
    assert text.endswith("}\n")
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"
    assert Recommendation.model_validate_json(text) == rec


class _Collector(HTMLParser):
    """Records each start tag with its attributes and the ids of its open ancestors."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, dict[str, str]]] = []
        self.tags: list[tuple[str, dict[str, str], list[str]]] = []
        self.unclosed: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        ancestors = [x[1].get("id", "") for x in self.stack if x[1].get("id")]
        self.tags.append((tag, a, ancestors))
        if tag not in ("meta", "br"):
            self.stack.append((tag, a))

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1][0] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def inside(self, ancestor: str, cls: str) -> list[dict[str, str]]:
        return [
            a for _, a, anc in self.tags if ancestor in anc and cls in a.get("class", "").split()
        ]


def _parse(page: str) -> _Collector:
    c = _Collector()
    c.feed(page)
    c.close()
    assert c.stack == []
    return c


def test_html_has_stable_ids_and_classes_for_each_part() -> None:
    page = to_html(_rec())
    c = _parse(page)
    ids = [a["id"] for _, a, _ in c.tags if "id" in a]
    assert ids == [
        "outcome",
        "summary",
        "plan",
        "semester-grid",
        "next-term",
        "negotiation",
        "risks",
        "violations",
        "citations",
        "open-questions",
        "letter",
    ]
    terms = c.inside("semester-grid", "term")
    assert [(t["data-term"], t["class"]) for t in terms] == [
        ("S2027", "term"),
        ("F2027", "term away"),
    ]
    rounds = c.inside("negotiation", "round")
    assert [(r["data-round"], r["data-resolution"]) for r in rounds] == [("1", "max_rounds")]
    assert [x["data-rule"] for x in c.inside("citations", "citation")] == ["LOAD-MAX"]
    assert c.inside("letter", "letter-text") == [{"class": "letter-text"}]
    assert '<span id="outcome" class="badge unresolved_after_max_rounds">' in page
    assert '<tr class="clash"><td class="code">67-272</td><td>A</td>' in page


def test_html_is_self_contained() -> None:
    page = to_html(_rec()).lower()
    for needle in ("<script", "<link", "src=", "href=", "url(", "http:", "https:", "@import"):
        assert needle not in page


def test_html_escapes_script_from_request_name_questions_and_every_text_field() -> None:
    quote_rec = CITATION.model_copy(
        update={"quote": f"Quoted {SCRIPT}", "heading": SCRIPT, "rule_id": SCRIPT}
    )
    rec = _rec(
        request_id="script-injection",
        student_name=f"Robert {SCRIPT}",
        summary=f"Needs input: what is {SCRIPT}?",
        answer=f'You asked: "{SCRIPT}"',
        programs=[SCRIPT],
        open_questions=[
            OpenQuestion(field="add_programs", question=f"What is {SCRIPT}?", source_text=SCRIPT)
        ],
        risks=[Risk(kind="other", message=SCRIPT, term="S2027", rule_id=SCRIPT)],
        citations=[quote_rec],
        letter=f"Dear Robert {SCRIPT},\n",
    )
    page = to_html(rec)
    assert "<script" not in page.lower()
    for text in (
        f"Advising recommendation for Robert {ESCAPED}",
        f"Needs input: what is {ESCAPED}?",
        f"You asked: &#34;{ESCAPED}&#34;",
        f'<span class="chip">{ESCAPED}</span>',
        f'<li class="question">What is {ESCAPED}?</li>',
        f"<figcaption>{ESCAPED}</figcaption><blockquote>Quoted {ESCAPED}</blockquote>",
        f'data-rule="{ESCAPED}"',
        f"<strong>other</strong> (Spring 2027, {ESCAPED}): {ESCAPED}</li>",
        f"Dear Robert {ESCAPED},",
    ):
        assert text in page
    _parse(page)
    assert "<script" not in to_markdown(rec).lower()
