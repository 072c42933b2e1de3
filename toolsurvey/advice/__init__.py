"""What to change: the audit, near-duplicates, poisoning, the consolidation plan, diffs and budgets.
Imports `model` and the layers below it."""
