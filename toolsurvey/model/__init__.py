"""The cost model of an agent task: scenarios, accuracy, visible-set strategies, the simulation,
sweeps and the fit to traces. Imports `measuring` and the layers below it."""
