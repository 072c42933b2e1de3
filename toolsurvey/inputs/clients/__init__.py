"""MCP clients' config files, read the way each client reads them: where they are, their scopes,
the servers the client leaves out, and what the model is told about the servers it keeps."""
