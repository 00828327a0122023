"""The asyncio game and negotiation servers (issues 4 and 5)."""
