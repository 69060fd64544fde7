"""Playing against an agent: the generic session (:mod:`.session`), the terminal
(``python -m agents.play``, :mod:`.cli`) and the clickable Jupyter board (:mod:`.widget`,
``agents.play_widget``)."""
