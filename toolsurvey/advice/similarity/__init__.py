"""Near-duplicate tools: words and names folded to canonical forms, TF-IDF (or embedding) nearest
neighbours as candidates, a fitted score of the pair's features, and clusters of pairs."""
