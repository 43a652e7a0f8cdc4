"""The leaderboards app keeps no table of its own: the board counts are games'
(``games.models.BoardScoreCount``), written by the games services."""
