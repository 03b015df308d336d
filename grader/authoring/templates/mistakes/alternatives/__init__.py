"""The alternatives of the mistakes template."""
