"""DAIDE: the token table, the three forms of a message, the binary client-server framing and the message syntax."""
