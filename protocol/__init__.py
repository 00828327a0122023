"""DAIDE messages and the L language as pure state machines, without I/O (issue 3)."""
