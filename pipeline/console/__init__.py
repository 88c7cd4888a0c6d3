"""The advising office's web console (``advise serve``): the batch dashboard, a request's
report and decisions, runs on a worker pool under the CLI's leases, accounts with roles, and
the access log - all over the workspace's files.

Modules: ``app`` (the application), ``routes_*`` (pages by area), ``auth`` (session, roles,
CSRF), ``users`` (accounts, the session secret), ``oidc`` (sign-in with the identity
provider), ``access`` (the access log), ``index`` (the dashboard's rows), ``jobs`` (runs),
``rerender`` (outputs again from a checkpoint), ``pages`` (templates).

The web packages are the ``console`` extra: this package imports them only when the
application is asked for, so ``advise serve`` can say how to install them when missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipeline.console.app import ConsoleConfig, create_app

__all__ = ["ConsoleConfig", "create_app"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from pipeline.console import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
