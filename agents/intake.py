"""Intake: turn a PlanRequest into an IntakeResult (profile, intent, goals, constraints).

Structured fields of the request win; the free text fills what they leave empty, read by the
configured backend (the offline rule parser by default, or Gemini). Whatever read the text,
every program, course and term it names is checked against the catalog here: what does not
resolve becomes an open question, never a fact. Conflicts with the text are noted. A program
the text names that the student already has is that declared program, never one to add
("finish my economics degree"); see ``agents.reading.programs``.
"""

from __future__ import annotations

import re

import structlog

from agents.artifacts import (
    IntakeResult,
    PlanRequest,
    StudentConstraints,
    StudentProfile,
    TimePreferences,
)
from agents.case import Case
from agents.catalog import (
    Catalog,
    StudentRecord,
    Term,
    active_calendar,
    check_student_against_catalog,
    credit_sub,
    first_regular,
    named_short_term,
    next_main,
)
from agents.catalog.exceptions import use_of
from agents.catalog.lookup import find_course, respell_courses
from agents.llm import (
    IntakeExtraction,
    is_relative_target,
    parse_request_text,
    resolve_target_phrase,
    unresolved_field,
)
from agents.reading.concentrations import assume_concentrations
from agents.reading.goals import Collector, read_goals, term_or_ask
from agents.reading.overrides import read_overrides
from agents.reading.programs import program_years, read_programs, settle_intent
from agents.toolbox import Toolbox

log = structlog.get_logger(__name__)

_HHMM = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")


def profile_of(student: StudentRecord, catalog: Catalog) -> StudentProfile:
    """The student's normalized facts, computed from the record and the catalog."""
    earned = student.units_earned(catalog)
    current = Term.parse(student.current_term)
    start = Term.parse(student.start_term)
    completed = 0
    t = first_regular(start)
    while t < current:
        completed += 1
        t = t.next_regular()
    return StudentProfile(
        student_id=student.id,
        name=student.name,
        declared_programs=list(student.programs),
        class_standing=student.class_standing(catalog),
        units_earned=earned,
        units_in_progress=credit_sub(student.units_earned(catalog, True), earned),
        gpa=student.computed_gpa(catalog),
        academic_status=student.academic_status,
        start_term=student.start_term,
        current_term=student.current_term,
        next_term=next_main(current, catalog.main_kinds).code,  # not a short term between
        terms_completed=completed,
    )


def _read_text(request: PlanRequest, tools: Toolbox, c: Collector) -> tuple[IntakeExtraction, str]:
    """The extraction from the free text and what produced it ('structured' if no text)."""
    text = request.text.strip()
    if not text:
        return IntakeExtraction(), "structured"
    student = request.student
    res = tools.llm.extract_intake(text, catalog=tools.catalog, ledger=tools.ledger)
    if res.note:
        c.notes.append(f"text reader: {res.note}")
    ext = res.value
    if res.source in ("offline", "offline_fallback"):
        # The backend's parser cannot know the student's terms and programs; read again
        # with them.
        ext = parse_request_text(
            text,
            tools.catalog,
            current_term=student.current_term,
            start_term=student.start_term,
            declared=student.programs,
        )
    elif ext.target_phrase and is_relative_target(ext.target_phrase):
        # A model's arithmetic on terms is not trusted: recount from the record.
        got = resolve_target_phrase(
            ext.target_phrase, start_term=student.start_term, current_term=student.current_term
        )
        computed = got[0] if got else None
        if computed != ext.target_graduation:
            c.notes.append(
                f"recounted {ext.target_phrase!r} from the record: {computed or 'unresolved'} "
                f"(the reader said {ext.target_graduation or 'nothing'})"
            )
            ext = ext.model_copy(update={"target_graduation": computed})
    c.notes.extend(ext.notes)
    return ext, res.source


def _ask_unresolved(request: PlanRequest, ext: IntakeExtraction, intent: str, c: Collector) -> None:
    given = {
        "target_graduation": request.target_graduation,
        "terms_away": request.terms_away,
        "add_programs": request.add_programs,
        "include_courses": request.include_courses or request.avoid_courses,
    }
    for phrase in ext.unresolved:
        field = unresolved_field(phrase, request.text)
        if field == "programs":
            change = intent in ("add_program", "switch_program")
            field = "add_programs" if change else "programs"
        if given.get(field):
            # The structured field already answers what the phrase was about.
            c.notes.append(f"left {phrase!r} unread: the request's {field} field gives it")
            continue
        c.ask(field, _unresolved_question(field, phrase), phrase)


def _unresolved_question(field: str, phrase: str) -> str:
    cal = active_calendar()
    last, first = (
        cal.kind_by_code[k].name for k in (cal.last_regular_of_year, cal.academic_year_starts)
    )
    return {
        "programs": f"The request names {phrase!r}, which is not a program in the catalog; "
        "which program is meant?",
        "add_programs": f"The request asks to add {phrase!r}, which is not a program in the "
        "catalog; which program is meant?",
        "include_courses": f"The request names {phrase!r}, which is not a course in the "
        "catalog; which course is meant?",
        "target_graduation": f"The request says {phrase!r}; which term should the plan "
        f"finish by (e.g. '{last} 2029')?",
        "terms_away": f"The request says {phrase!r}; which term (e.g. '{first} 2027') will the "
        "student be away?",
    }.get(field, f"What does {phrase!r} in the request mean?")


def _intent(request: PlanRequest, ext: IntakeExtraction, c: Collector) -> tuple[str, str]:
    if request.intent is not None:
        if ext.intent is not None and ext.intent != request.intent:
            c.notes.append(
                f"the request's intent {request.intent} wins over the text's {ext.intent}"
            )
        return request.intent, "structured"
    if request.add_programs and request.drop_programs:
        return "switch_program", "structured"
    if request.add_programs:
        return "add_program", "structured"
    if request.question:
        return "policy_question", "structured"
    if ext.intent is not None:
        return ext.intent, "text"
    c.notes.append("no intent stated or recognized; planning the degree (plan_degree)")
    return "plan_degree", "default"


def _constraints(
    request: PlanRequest, ext: IntakeExtraction, catalog: Catalog, current: Term, c: Collector
) -> StudentConstraints:
    away: list[str] = []
    for code in [*request.student.terms_away, *(request.terms_away or ext.terms_away)]:
        t = term_or_ask(code, "terms_away", c)
        if t is not None and t <= current:
            c.ask(
                "terms_away",
                f"{t.code} is not a future term; which term will the student be away?",
                code,
            )
        elif t is not None and t.code not in away:
            away.append(t.code)
    away.sort(key=lambda x: Term.parse(x).index)
    include = _courses(request.include_courses or ext.include_courses, catalog, c)
    avoid = _courses(request.avoid_courses or ext.avoid_courses, catalog, c)
    for code in sorted(set(include) & set(avoid)):
        c.ask("avoid_courses", f"{code} is both wanted and to be avoided; which is it?", code)
    interests = list(
        dict.fromkeys([*(request.interests or ext.interests), *request.student.interests])
    )
    tp = request.time_preferences
    prefs = TimePreferences(
        free_days=tp.free_days or ext.free_days,
        not_before=tp.not_before or _clock(ext.not_before, c),
        not_after=tp.not_after or _clock(ext.not_after, c),
    )
    pins, forced = read_overrides(request, ext, catalog, current, avoid, c)
    include += [x for x in [*pins, *forced] if x not in include]
    return StudentConstraints(
        terms_away=away,
        include_courses=include,
        avoid_courses=avoid,
        pin_courses=pins,
        force_courses=forced,
        interests=interests,
        time_preferences=prefs,
    )


def _courses(codes: list[str], catalog: Catalog, c: Collector) -> list[str]:
    out: list[str] = []
    for said in codes:
        code = find_course(catalog, said)
        if code is None and not catalog.code_index.fits_pattern(said):
            c.ask("include_courses", f"The request names {catalog.code_index.unknown(said)}", said)
        elif code is None:
            c.ask("include_courses", _unresolved_question("include_courses", said), said)
        elif code not in out:
            out.append(code)
    return out


def _clock(value: str | None, c: Collector) -> str | None:
    if value is None or _HHMM.match(value):
        return value
    c.notes.append(f"ignored the time {value!r}: expected 24-hour 'HH:MM'")
    return None


def run(case: Case, tools: Toolbox) -> IntakeResult:
    """The stage: read the case's request."""
    return read_request(case.request, tools)


def read_request(request: PlanRequest, tools: Toolbox) -> IntakeResult:
    """Read the request against the catalog; see the module docstring."""
    catalog = tools.catalog
    c = Collector()
    student, respelt = respell_courses(request.student, catalog)  # 'cs101' -> 'CS 101'
    c.notes.extend(respelt)
    for problem in check_student_against_catalog(student, catalog):
        # An unknown declared program leaves it unclear what to plan for: that blocks.
        field = "programs" if problem.startswith("$.programs") else "student"
        c.ask(field, f"The record does not match the catalog: {problem}")
    profile = profile_of(student, catalog)
    current = Term.parse(student.current_term)
    ext, parser = _read_text(request, tools, c)
    intent, intent_source = _intent(request, ext, c)
    _ask_unresolved(request, ext, intent, c)
    progs = read_programs(request, ext, catalog, c)
    intent = settle_intent(intent, intent_source, progs, c)
    if intent == "plan_next_term" and (
        short := named_short_term(request.text, current, catalog.main_kinds)
    ):
        # "What can I take in January?": the short term the student names, not the next
        # main one.
        profile = profile.model_copy(update={"next_term": short.code})
        c.notes.append(f"the text names {short.label()}: the next-term plan is for it")
    target, added, dropped = progs.target, progs.added, progs.dropped
    if intent == "switch_program" and added and not dropped:
        kinds = {catalog.program_by_code[a].kind for a in added}
        dropped = [p for p in target if p not in added and catalog.program_by_code[p].kind in kinds]
        target = [p for p in target if p not in dropped]
        if dropped:
            c.notes.append(f"switching to {', '.join(added)} drops {', '.join(dropped)}")
    said: list[str] = []
    if intent != "policy_question":
        assumed, said = assume_concentrations(catalog, student, target)
        target, added = [*target, *assumed], [*added, *assumed]
    asked = any(q.field == "add_programs" for q in c.questions)
    if intent in ("add_program", "switch_program") and not added and not asked:
        c.ask(
            "add_programs",
            "Which program should be added? The request names none that the student does "
            "not already have.",
        )
    question = request.question or ext.question
    if intent == "policy_question" and not question:
        question = request.text.strip() or None
        if question is None:
            c.ask("question", "What is the policy question?")
    student = program_years(request, student, catalog, c)
    as_of, expired = None, []
    if student.exceptions:
        day = request.as_of or tools.today()
        as_of = day.isoformat()
        student, gone = student.split_expired(day)
        expired = [
            use_of(e, "expired", f"expired on {e.expires} (the request is judged on {as_of})")
            for e in gone
        ]
    result = IntakeResult(
        request_id=request.request_id,
        intent=intent,  # type: ignore[arg-type]
        intent_source=intent_source,  # type: ignore[arg-type]
        profile=profile,
        student=student,
        target_programs=target,
        added_programs=added,
        dropped_programs=dropped,
        assumed=said,
        goals=read_goals(request, ext, current, c),
        constraints=_constraints(request, ext, catalog, current, c),
        question=question,
        open_questions=c.questions,
        notes=c.notes,
        parser=parser,  # type: ignore[arg-type]
        as_of=as_of,
        exceptions_expired=expired,
    )
    log.info(
        "intake.done",
        request_id=request.request_id,
        intent=intent,
        parser=parser,
        open_questions=len(c.questions),
    )
    return result
