"""The lowest layer: the Registry, tokenizers, safe file reading and writing, HTTP, JSON streaming.

Imports nothing of toolsurvey but `toolsurvey.errors`."""
