"""The advising office's web console (``advise serve``): the batch dashboard, a request's
report and decisions, runs on a worker pool under the CLI's leases, accounts with roles, and
the access log - all over the workspace's files.

Modules: ``app`` (the application), ``routes_*`` (pages by area), ``auth`` (session, roles,
CSRF), ``users`` (accounts, the session secret), ``access`` (the access log), ``index``
(the dashboard's rows), ``jobs`` (runs), ``pages`` (templates).
"""

from pipeline.console.app import ConsoleConfig, create_app

__all__ = ["ConsoleConfig", "create_app"]
