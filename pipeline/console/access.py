"""The access log: ``<state_dir>/.console/access.jsonl``, one JSON line per view of a
student's request, decision and run started from the console - who, when, which student,
which request, what. Lines are appended whole (``agents.files.append_line``); an admin reads
them in the console and exports them as CSV."""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from agents.files import append_line, ensure_dir, open_append
from pipeline.console.users import console_dir

ACCESS_NAME = "access.jsonl"
Action = Literal[
    "view",
    "approve",
    "deny",
    "resume",
    "rerun",
    "rerender",
    "run",
    "login",
    "login_failed",
    "logout",
    "login_locked",
    "dashboard",
    "catalog_upload",
    "catalog_refused",
    "catalog_choose",
]
FIELDS = ("at", "user", "role", "action", "request_id", "student_id", "detail")


class AccessLog:
    def __init__(self, state_dir: Path) -> None:
        self.path = console_dir(state_dir) / ACCESS_NAME

    def record(
        self,
        user: str,
        role: str,
        action: Action,
        *,
        request_id: str | None = None,
        student_id: str | None = None,
        detail: str = "",
    ) -> dict[str, Any]:
        entry = {
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
            "user": user,
            "role": role,
            "action": action,
            "request_id": request_id,
            "student_id": student_id,
            "detail": detail,
        }
        ensure_dir(self.path.parent)
        fd = open_append(self.path)
        try:
            append_line(fd, self.path, (json.dumps(entry) + "\n").encode("utf-8"))
        finally:
            os.close(fd)
        return entry

    def entries(self, request_id: str | None = None) -> Iterator[dict[str, Any]]:
        """Every whole line, oldest first (a torn or foreign line is skipped)."""
        if not self.path.is_file():
            return
        with open(self.path, encoding="utf-8") as f:
            for line in f:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(row, dict):
                    continue
                if request_id is None or row.get("request_id") == request_id:
                    yield {k: row.get(k) for k in FIELDS}

    def csv(self) -> str:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        for row in self.entries():
            # A cell a spreadsheet would run as a formula is written as text.
            writer.writerow({k: _cell(v) for k, v in row.items()})
        return out.getvalue()


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return f"'{text}" if text[:1] in ("=", "+", "-", "@") else text
