"""The alternatives of the forbidden template."""
