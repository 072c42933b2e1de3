"""Agent traces: Claude Code JSONL, OTLP JSON (GenAI spans) and provider request logs."""
