# Leaderboards read the games app's models; their own tables (streaks, …) come later.
