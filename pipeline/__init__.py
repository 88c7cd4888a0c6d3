"""The advising pipeline engine: state machine, workflow context, checkpoints, runner,
batch driver and the ``advise`` command line."""
