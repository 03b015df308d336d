"""The mutants of the basic template."""
