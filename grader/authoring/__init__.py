"""For exercise authors and CI: proving a catalogue (``validate``) and starting an exercise
(``scaffold``)."""
