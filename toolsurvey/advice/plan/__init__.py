"""Plan a consolidation: delete unused tools, merge near-duplicates, trim responses, gate by phase.

The plan applies the actions in that order to a copy of the registry and runs the *same*
simulation (toolsurvey.model.simulate.simulate) before, after each stage, and after; its before/after
table is those runs' figures, never a separate estimate.
"""
