"""``python -m agents.artifacts``: regenerate the published artifact schemas."""

from agents.artifacts import write_schemas

for path in write_schemas():
    print(path)
