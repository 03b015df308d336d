"""The mutants of the property template."""
