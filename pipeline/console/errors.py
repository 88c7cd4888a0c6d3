"""The console's errors.

::

    PipelineError (pipeline.errors)
     └── ConsoleError          a console setting, account or file that cannot be used
          ├── UserError        an account name, role or password that is refused
          └── ConsoleDepsError the console's packages are not installed (says how)
"""

from __future__ import annotations

from pipeline.errors import PipelineError


class ConsoleError(PipelineError):
    """A console setting, account or file that cannot be used."""


class UserError(ConsoleError):
    """An account name, role or password that is refused; the message says why."""


class ConsoleDepsError(ConsoleError):
    """``advise serve`` without the console's packages."""

    def __init__(self, missing: str) -> None:
        self.missing = missing
        super().__init__(
            f"the web console needs the {missing!r} package, which is not installed; "
            "install the console extra: pip install -e '.[console]'"
        )
