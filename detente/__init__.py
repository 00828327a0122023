"""The detente command line."""
