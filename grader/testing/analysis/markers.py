"""The two values the analysis gives what it cannot name (shared by the model and the dynamic
access rules, which otherwise would import each other)."""

UNKNOWN = "?"
COMPUTED = "<computed>"  # a name or module computed at run time
