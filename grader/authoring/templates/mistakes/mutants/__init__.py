"""The mutants of the mistakes template."""
