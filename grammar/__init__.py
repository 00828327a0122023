"""The Lark grammars of the protocols, shipped as package data (issue 3)."""
