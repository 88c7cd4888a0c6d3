"""UNSW Sydney as a real sample institution, converted from public data.

``python -m eval.unsw.convert --source DIR --out DIR`` reads a local copy of the processed
data of devsoc-unsw/circles (the four ``*Processed.json`` files of
``backend/data/final_data``) and writes a catalog directory in the authoring layout
(``docs/catalog-guide.md``) with a conversion report, ``CONVERSION.md``. The shipped
``demos/unsw/`` is its output on commit ``SOURCE_COMMIT``::

    mkdir -p /tmp/circles
    c=a30c09d3bb3ee20d8eb1f2939ad3907248287242
    for f in coursesProcessed conditionsProcessed programsProcessed specialisationsProcessed; do
      git -C circles show $c:backend/data/final_data/$f.json > /tmp/circles/$f.json
    done
    python -m eval.unsw.convert --source /tmp/circles --out demos/unsw

Modules: ``source`` (reading the files), ``conditions`` (the condition grammar),
``lowering`` (conditions as catalog prerequisites), ``courses``, ``requirements`` and
``programs`` (the catalog files), ``institution`` (calendar, grades, rules, documents),
``tally`` and ``report`` (the conversion report), ``convert`` (the command).
"""

from __future__ import annotations

SOURCE_COMMIT = "a30c09d3bb3ee20d8eb1f2939ad3907248287242"
"""The circles commit ``demos/unsw`` was converted from (2022-06-22): the newest one whose
``final_data`` still holds ``coursesProcessed.json`` beside the other three files."""
SOURCE_DATE = "2022-06-22"
DEGREES = ("3778", "3707", "3502", "3970")
"""The degrees converted by default: Computer Science, Engineering (Honours), Commerce and
Science - single degrees whose specialisations the data holds."""

__all__ = ["DEGREES", "SOURCE_COMMIT", "SOURCE_DATE"]
