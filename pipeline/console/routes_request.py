"""One request: its page (report, negotiation, risks, what it waits for, decisions), its
report as the run wrote it, approve / deny, and runs (resume, rerun) on the worker pool."""

from __future__ import annotations

from datetime import date
from typing import Any, cast

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from agents.catalog import term_label
from agents.negotiation import approval_line
from pipeline.approvals import Verdict, decide, pending
from pipeline.console.access import AccessLog
from pipeline.console.auth import checked_form, need
from pipeline.console.jobs import JobKind, JobRunner
from pipeline.console.pages import flash, page, request_id
from pipeline.context import State, WorkflowContext
from pipeline.errors import ApprovalError, CheckpointError, LockHeldError
from pipeline.store import CheckpointStore

# The run's report is our own rendering, but it is shown in a sandbox all the same: no
# script, no form, nothing fetched from anywhere.
REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"


def load_context(request: Request, rid: str) -> WorkflowContext:
    store: CheckpointStore = request.app.state.store
    try:
        ctx = store.load(rid)
    except CheckpointError as exc:
        raise HTTPException(409, str(exc)) from None
    if ctx is None:
        raise HTTPException(404, "no such request")
    return ctx


def _risks(ctx: WorkflowContext) -> list[Any]:
    if ctx.recommendation is not None:
        return list(ctx.recommendation.risks)
    return list(ctx.critiques[-1].risks) if ctx.critiques else []


def _waits_for(ctx: WorkflowContext) -> list[str]:
    if ctx.state is State.awaiting_approval:
        return [f"{approval_line(a)}: {a.message}" for a in pending(ctx)]
    if ctx.state is State.failed and ctx.errors:
        last = ctx.errors[-1]
        return [f"a fix, then resume: {last.stage.value} failed: {last.type}: {last.message}"]
    if ctx.state is not State.done:
        return [f"a run to continue from {ctx.state.value} (resume)"]
    return []


def _live_lease(store: CheckpointStore, rid: str) -> str | None:
    """Who holds the request's lease, if a live holder does (a killed one's is no run)."""
    info = store.lease_info(rid)
    if info is None or store.leases.stale_reason(info) is not None:
        return None
    return info.describe()


async def show(request: Request) -> Response:
    user = need(request, "viewer")
    rid = request_id(request)
    runner: JobRunner = request.app.state.jobs
    job = runner.current(rid)
    if job is not None and not request.app.state.store.exists(rid):  # a new request's run
        return page(request, "pending.html.j2", job=job)
    ctx = load_context(request, rid)
    access: AccessLog = request.app.state.access
    access.record(user.name, user.role, "view", request_id=rid, student_id=ctx.request.student.id)
    store: CheckpointStore = request.app.state.store
    lease = _live_lease(store, rid)
    busy = lease is not None or (job is not None and job.state in ("queued", "running"))
    rec = ctx.recommendation
    grad = rec.graduation_term if rec is not None else None
    decisions = [e for e in access.entries(rid) if e["action"] in ("approve", "deny")]
    return page(
        request,
        "request.html.j2",
        ctx=ctx,
        rec=rec,
        graduation=(term_label(grad) or grad) if grad else "",
        risks=_risks(ctx),
        waits_for=_waits_for(ctx),
        pending=pending(ctx) if ctx.state is State.awaiting_approval else [],
        decided=[a for a in ctx.approvals if a.decision != "pending"],
        decisions=decisions,
        job=job,
        lease=lease,
        busy=busy,
        report=(request.app.state.out_dir / f"{rid}.html").is_file(),
    )


async def report(request: Request) -> Response:
    user = need(request, "viewer")
    rid = request_id(request)
    path = request.app.state.out_dir / f"{rid}.html"
    try:
        body = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        raise HTTPException(404, "no report for this request yet") from None
    request.app.state.access.record(user.name, user.role, "view", request_id=rid, detail="report")
    headers = {"Content-Security-Policy": REPORT_CSP, "X-Frame-Options": "SAMEORIGIN"}
    return Response(body, media_type="text/html; charset=utf-8", headers=headers)


def _start(request: Request, rid: str, kind: JobKind, who: str, role: str, student: str) -> None:
    lease = _live_lease(request.app.state.store, rid)
    if lease is not None:
        flash(request, f"{rid} is running elsewhere ({lease}); wait for it to finish", "error")
        return
    job = request.app.state.jobs.submit(rid, kind, who)
    if job is None:
        flash(request, f"{rid}: a run from the console is already queued or running", "error")
        return
    request.app.state.access.record(who, role, kind, request_id=rid, student_id=student)
    flash(request, f"{rid}: {kind} started")


async def decide_route(request: Request) -> Response:
    user = need(request, "advisor")
    rid = request_id(request)
    form = await checked_form(request)
    verdict = {"approve": "approved", "deny": "denied"}.get(str(form.get("verdict")))
    rule, reason = str(form.get("rule", "")).strip(), str(form.get("reason", "")).strip()
    back = RedirectResponse(f"/requests/{rid}", status_code=303)
    if verdict is None or not rule:
        raise HTTPException(400, "a decision needs a rule and a verdict (approve or deny)")
    if not reason:
        flash(request, "a decision needs a reason: say why, in a sentence", "error")
        return back
    store: CheckpointStore = request.app.state.store
    try:
        ctx = decide(
            store, rid, rule, cast(Verdict, verdict), by=user.name, reason=reason, on=date.today()
        )
    except (ApprovalError, LockHeldError) as exc:
        flash(request, str(exc), "error")
        return back
    except CheckpointError as exc:
        raise HTTPException(409, str(exc)) from None
    action = "approve" if verdict == "approved" else "deny"
    student = ctx.request.student.id
    request.app.state.access.record(
        user.name, user.role, action, request_id=rid, student_id=student, detail=f"{rule}: {reason}"
    )
    flash(request, f"{rule} {verdict} by {user.name}")
    if form.get("resume") and not pending(ctx):
        _start(request, rid, "resume", user.name, user.role, student)
    return back


async def run_route(request: Request) -> Response:
    user = need(request, "advisor")
    rid = request_id(request)
    form = await checked_form(request)
    kind = str(form.get("kind"))
    if kind not in ("resume", "rerun", "rerender"):
        raise HTTPException(400, f"unknown run {kind!r}; choose resume, rerun or rerender")
    ctx = load_context(request, rid)
    _start(request, rid, cast(JobKind, kind), user.name, user.role, ctx.request.student.id)
    return RedirectResponse(f"/requests/{rid}", status_code=303)


ROUTES = [
    Route("/requests/{rid}", show, methods=["GET"]),
    Route("/requests/{rid}/report", report, methods=["GET"]),
    Route("/requests/{rid}/decide", decide_route, methods=["POST"]),
    Route("/requests/{rid}/run", run_route, methods=["POST"]),
]
