"""The degree audit: ``audit`` a student's record against programs, ``render_audit`` it as
text; the module map is in ``agents.audit.core``'s docstring."""

from __future__ import annotations

from agents.audit.alloc import sharing_limit
from agents.audit.core import SCHEMA_FILE, audit, audit_schema, unmet
from agents.audit.render import render_audit, render_program
from agents.audit.report import AuditReport, ProgramAudit, RequirementAudit, iter_nodes
from agents.audit.titles import (
    name_requirements,
    program_titles,
    readable_id,
    requirement_name,
    requirement_names,
    requirement_titles,
)

__all__ = [
    "SCHEMA_FILE",
    "AuditReport",
    "ProgramAudit",
    "RequirementAudit",
    "audit",
    "audit_schema",
    "iter_nodes",
    "name_requirements",
    "program_titles",
    "readable_id",
    "render_audit",
    "render_program",
    "requirement_name",
    "requirement_names",
    "requirement_titles",
    "sharing_limit",
    "unmet",
]
