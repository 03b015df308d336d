"""The mutants of the forbidden template."""
