"""The mutants of the meta template."""
