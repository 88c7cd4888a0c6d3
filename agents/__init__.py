"""Stage agents of the advising-plan pipeline (one module each) over the domain core in
sub-packages: ``catalog``, ``audit``, ``planner``, ``verifier``, ``policy``,
``retrieval`` and ``llm``."""
