"""Tool selection measured: which tool a model calls for each query (`outcomes`), the rates and
tables counted from those verdicts (`metrics`), and the run that asks the model (`run`)."""
