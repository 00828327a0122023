"""The negotiation server (issue 5): private L negotiation between bots and humans, with a notary."""
