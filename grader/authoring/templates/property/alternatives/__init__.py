"""The alternatives of the property template."""
