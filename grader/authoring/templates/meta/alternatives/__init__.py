"""The alternatives of the meta template."""
