"""The alternatives of the basic template."""
