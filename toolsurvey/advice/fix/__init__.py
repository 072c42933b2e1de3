"""From plan to change: contract-preserving schema rewrites for the servers the user owns, the review
file for descriptions a person rewrites, and the client settings that realise the plan's delete and
defer stages for the servers they don't own."""
