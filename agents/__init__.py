"""Stage agents of the advising-plan pipeline and the tools they share (``agents.tools``)."""
