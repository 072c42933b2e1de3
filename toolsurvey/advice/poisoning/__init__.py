"""Tool poisoning: text in a tool definition that gives the model orders, hides them, or asks for secrets."""
