"""Live discovery: ask running MCP servers (stdio or Streamable HTTP) for their tools, concurrently."""
