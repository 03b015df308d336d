"""Submissions in, grades out: what an instructor's class hands in, and what goes back.

discover   student folders and archives to exercise files
cache      results reused when nothing that decides them changed
batch      ``grade batch``: the orchestration over the engine
gradebook  gradebook CSV/JSON, Gradescope results, class statistics
progress   the instructor's progress line
"""
