"""The agent: one conversation loop (ConversationRunner) and the events it reports progress with."""
