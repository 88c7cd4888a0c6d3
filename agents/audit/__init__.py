from __future__ import annotations

from agents.audit.core import (
    SCHEMA_FILE,
    AuditReport,
    ProgramAudit,
    RequirementAudit,
    audit,
    audit_schema,
    sharing_limit,
    unmet,
)
from agents.audit.render import render_audit, render_program

__all__ = [
    "SCHEMA_FILE",
    "AuditReport",
    "ProgramAudit",
    "RequirementAudit",
    "audit",
    "audit_schema",
    "render_audit",
    "render_program",
    "sharing_limit",
    "unmet",
]
