"""Running learner code across the trust boundary.

``forkserver`` forks learner children; ``isolation`` limits them; ``child`` is the learner's side;
``codec`` and ``protocol`` carry data (never code from the learner) between the sides; ``pool``,
``proxy`` and ``faults`` are the trusted side's view of the children.
"""
