"""What every report shares: the Jinja2 templates an office may override (``templating``)
and the sentences a student or advisor reads instead of field diffs and rule ids
(``text``)."""

from __future__ import annotations

from agents.reports.templating import (
    TEMPLATE_NAMES,
    active_templates,
    check_templates,
    render,
    shipped_template,
    use_templates,
)
from agents.reports.text import because, change_sentence, change_text, round_sentences

__all__ = [
    "TEMPLATE_NAMES",
    "active_templates",
    "because",
    "change_sentence",
    "change_text",
    "check_templates",
    "render",
    "round_sentences",
    "shipped_template",
    "use_templates",
]
