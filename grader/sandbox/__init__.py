"""Running learner code across the trust boundary.

forkserver  forks learner children from a warm, clean process
policy      what a child may see and use, as data
tiers       how much of the policy this machine enforces (process, namespaces)
procs       process-tree plumbing: nothing outlives its grading
child       the learner's side: imports the learner's file, answers requests
messages    what a child sends, as typed records with a strict from_wire
codec       values across the boundary as data (never code from the learner)
protocol    framing of the messages
pool        the trusted side's learner children, deadlines and limits
faults      learner faults as the trusted side sees them
"""
