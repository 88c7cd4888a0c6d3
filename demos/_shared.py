"""What every demo script shares: the checkout on sys.path (so demos run without an
install), the bundled requests, and an offline toolbox. No key, no network."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # runnable from a checkout without installing
    sys.path.insert(0, str(ROOT))

from agents.artifacts import PlanRequest  # noqa: E402
from agents.catalog import load_catalog  # noqa: E402
from agents.toolbox import Toolbox  # noqa: E402
from pipeline.logs import configure_logging  # noqa: E402

REQUESTS = ROOT / "demos" / "requests.jsonl"


def run_demo(main: Callable[[], int]) -> int:
    """Run a demo's ``main``; output piped into a reader that stops early (``| head``) ends
    the demo quietly, with status 0, instead of a BrokenPipeError traceback."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Python's own advice: point stdout at devnull so the exit's flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return code


def load_request(request_id: str) -> PlanRequest:
    """The request with ``request_id`` from demos/requests.jsonl."""
    with REQUESTS.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip() and json.loads(line).get("request_id") == request_id:
                return PlanRequest.model_validate_json(line)
    raise SystemExit(f"no request {request_id!r} in {REQUESTS}; pass an id from that file")


def offline_toolbox() -> Toolbox:
    """The bundled catalog and the offline backend, with quiet logs on stderr."""
    configure_logging("warning", stream=sys.stderr)
    return Toolbox(catalog=load_catalog())
