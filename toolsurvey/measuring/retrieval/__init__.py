"""Retrieval: how well a search finds the tools a task needs in a registry (hit@k, recall@k, MRR, findability)."""
