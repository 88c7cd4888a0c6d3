"""Declared concentrations (issue #28, item 4): a major that requires one of its
concentrations (``Program.concentration_required``; the concentrations are the programs of
kind ``concentration`` whose ``eligible_majors`` name it).

A student who declared one has it among their programs: the audit and the planner use it
like any program, and a request can switch it (``switch_program``: the new one replaces
the old, as for any program of the same kind). A student who has not declared one - and
does not add one in the request - is planned with the concentration whose requirements
leave the fewest units after the record (the degree audit, ties by catalog order), added as
a what-if and said as such: the intake notes it with the other options, the letter and
report carry the notes.
"""

from __future__ import annotations

from agents.audit import audit
from agents.catalog import Catalog, StudentRecord
from agents.catalog.crossref import concentrations_of


def assume_concentrations(
    catalog: Catalog, student: StudentRecord, target: list[str]
) -> tuple[list[str], list[str]]:
    """(concentrations to add, notes) for the target majors that require one and have none
    among ``target``."""
    added: list[str] = []
    notes: list[str] = []
    for code in target:
        program = catalog.program_by_code.get(code)
        if program is None or not program.concentration_required:
            continue
        options = concentrations_of(catalog, code)
        if not options or set(options) & set(target):
            continue
        left = {o: _units_left(catalog, student, target, o) for o in options}
        chosen = min(options, key=lambda o: (left[o], options.index(o)))
        added.append(chosen)
        others = [f"{o} ({left[o]:g} {catalog.institution.unit_name} left)" for o in options]
        notes.append(
            f"{code} requires a concentration and none is declared: the plan assumes "
            f"{chosen}, the one with the fewest {catalog.institution.unit_name} left; the "
            f"options are {', '.join(others)} - declare one with the registrar"
        )
    return added, notes


def _units_left(catalog: Catalog, student: StudentRecord, target: list[str], option: str) -> float:
    """Units the option's requirements leave after the record (what-if audit)."""
    report = audit(catalog, student, target, add_programs=[option])
    program = next(p for p in report.programs if p.code == option)
    return program.root.units_needed or 0.0
