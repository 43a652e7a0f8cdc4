# Deal, DailyChallenge and Attempt come with the daily-challenge issue.
