"""The advising pipeline engine: state machine, workflow context, checkpoints, runner,
batch driver and the ``advise`` command line.

Importing it first trims every process's fixed costs (``pipeline.startup``): structlog
without Rich, and OR-Tools' CP-SAT module without pandas whenever it loads."""

from pipeline.startup import import_structlog_plain, install_pandas_deferral

import_structlog_plain()
install_pandas_deferral()
