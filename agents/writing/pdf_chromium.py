"""The request's HTML report printed to PDF by headless Chromium (``advise export --format
pdf --pdf-engine chromium``; the default PDF is laid out without a browser by
``agents.writing.export_pdf``).

The HTML report (``<out>/<id>.html``) is self-contained (styles inline, no scripts, no
network), so printing it is faithful to what an advisor sees on screen; the report's
stylesheet has an ``@media print`` block for page breaks. Chromium is the one external
program here: the caller finds it (``find_chromium``) or names it, and the printer runs it
with its own throw-away profile, no network services and a time limit. What comes back is
checked to be a whole PDF before anyone writes it.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import structlog

from agents.errors import ExportError

log = structlog.get_logger(__name__)

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTALL_HINT = (
    "install Chromium (Debian/Ubuntu: apt-get install chromium; macOS: brew install "
    "--cask chromium) or pass --chromium PATH"
)
FLAGS = (
    "--headless",
    "--no-sandbox",  # root in containers and CI; the page is our own local file
    "--disable-gpu",
    "--no-first-run",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-pdf-header-footer",  # no date, file URL or page numbers stamped on the letter
)
MIN_PDF_BYTES = 2048  # a report prints to tens of kilobytes; an error page to very little


@dataclass(frozen=True)
class ChromiumPrinter:
    """Prints HTML files to PDF with a Chromium (or Chrome) binary."""

    binary: str
    timeout_s: float = 120.0

    def print_pdf(self, html: Path, target: Path) -> None:
        """Print ``html`` into ``target``; raises ``ExportError`` when Chromium fails."""
        with tempfile.TemporaryDirectory(prefix="advise-chromium-") as profile:
            command = [
                self.binary,
                *FLAGS,
                f"--user-data-dir={profile}",
                f"--print-to-pdf={target}",
                html.resolve().as_uri(),
            ]
            try:
                done = subprocess.run(
                    command, capture_output=True, text=True, timeout=self.timeout_s, check=False
                )
            except subprocess.TimeoutExpired:
                raise ExportError(
                    f"{self.binary!r} did not finish printing {str(html)!r} within "
                    f"{self.timeout_s:.0f} s; try again, or open the HTML report and print it"
                ) from None
            except OSError as exc:
                raise ExportError(
                    f"cannot run {self.binary!r} ({exc.strerror or exc}); {INSTALL_HINT}"
                ) from None
        if done.returncode != 0:
            tail = " | ".join(done.stderr.strip().splitlines()[-3:])
            raise ExportError(
                f"{self.binary!r} failed printing {str(html)!r} (exit {done.returncode}): "
                f"{tail or 'no message'}"
            )
        log.debug("export.pdf.printed", html=str(html), target=str(target))


def find_chromium(explicit: str | None = None) -> ChromiumPrinter:
    """A printer for ``explicit`` (a path or a command name), or for the first Chromium or
    Chrome on PATH; ``ExportError`` saying how to install one when there is none."""
    if explicit:
        found = shutil.which(explicit)
        if found is None:
            raise ExportError(
                f"--chromium {explicit!r} is not an executable file or a command on PATH; "
                f"{INSTALL_HINT}"
            )
        return ChromiumPrinter(found)
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return ChromiumPrinter(found)
    raise ExportError(
        "--pdf-engine chromium prints the HTML report with headless Chromium, and none was "
        f"found on PATH (looked for {', '.join(CANDIDATES)}); {INSTALL_HINT}, or leave out "
        "--pdf-engine chromium for the PDF laid out without a browser"
    )


def html_pdf(html: Path, printer: ChromiumPrinter) -> bytes:
    """The PDF of the report ``html``, checked to be a whole PDF document."""
    if not html.is_file():
        raise ExportError(f"no HTML report {str(html)!r} to print")
    with tempfile.TemporaryDirectory(prefix="advise-pdf-") as tmp:
        target = Path(tmp) / "report.pdf"
        printer.print_pdf(html, target)
        data = target.read_bytes() if target.is_file() else b""
    problem = pdf_problem(data)
    if problem:
        raise ExportError(f"printing {str(html)!r} with {printer.binary!r} gave {problem}")
    return data


def pdf_problem(data: bytes) -> str | None:
    """Why ``data`` is not a whole, non-trivial PDF (None when it is)."""
    if not data:
        return "no file"
    if not data.startswith(b"%PDF-"):
        return f"a file that is not a PDF (it starts with {data[:8]!r})"
    if b"%%EOF" not in data[-1024:]:
        return "a PDF cut short (no end-of-file marker)"
    if len(data) < MIN_PDF_BYTES:
        return f"a PDF of only {len(data)} bytes (an empty page?)"
    return None
