"""The alternatives of the opcount template."""
