"""The bot kit (issue 6)."""
