"""Tools the stage agents share: catalog, student records, audit, planner, verifier,
policy rules, retrieval and LLM backends. No tool imports ``pipeline``."""
