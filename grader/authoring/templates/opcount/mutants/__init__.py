"""The mutants of the opcount template."""
