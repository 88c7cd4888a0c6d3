"""Demo of the whole pipeline: runs one bundled request through the state machine
(intake, requirements, scheduling, critique, refinement rounds, synthesis) with
checkpoints in a temporary directory, then prints the negotiation and the outcome and
writes the JSON, Markdown and HTML outputs.

    python demos/demo_pipeline.py                        # the 'overload-low-gpa' request
    python demos/demo_pipeline.py probation-next-term    # any id from demos/requests.jsonl
    python demos/demo_pipeline.py --out-dir out/demo     # keep the outputs there

Offline: no key, no network.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _shared import load_request, run_demo

from pipeline.cli import main as advise

DEFAULT_ID = "overload-low-gpa"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("request_id", nargs="?", default=DEFAULT_ID, help="request to run")
    parser.add_argument("--out-dir", help="where to write the outputs (default: a temp dir)")
    args = parser.parse_args(argv)
    request = load_request(args.request_id)
    with tempfile.TemporaryDirectory(prefix="advise-demo-") as tmp:
        work = Path(tmp)
        out = Path(args.out_dir) if args.out_dir else work / "out"
        path = work / f"{request.request_id}.json"
        path.write_text(request.model_dump_json(), encoding="utf-8")
        code = advise(
            [
                "run",
                str(path),
                "--state-dir",
                str(work / "state"),
                "--out-dir",
                str(out),
                "--log-dir",
                str(work / "logs"),
            ]
        )
        if code == 0:
            advise(["show", request.request_id, "--state-dir", str(work / "state")])
            print(
                f"\nOutputs: {out / request.request_id}.{{json,md,html}}"
                + ("" if args.out_dir else " (removed on exit; pass --out-dir to keep)")
            )
        return code


if __name__ == "__main__":
    raise SystemExit(run_demo(main))
