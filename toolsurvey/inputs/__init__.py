"""What comes from outside: tool formats, client configs, live discovery, usage logs, payloads, traces.

Each input is resolved once here and passed down as a value. Imports `core` and `providers`."""
