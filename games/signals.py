"""What happens to attempts, for whoever listens (leaderboards broadcast it live).

games never imports leaderboards; leaderboards connects to these in its AppConfig.ready().
Services send them only after the transaction has committed (transaction.on_commit).
Every signal is sent with ``attempt_id`` (and ``challenge_id`` when ranked), and with
``attempt``: the instance as it was committed, which a listener may read instead of
loading the row again (its ``player`` is loaded when the service had it at hand).
"""

from django.dispatch import Signal

attempt_progressed = Signal()  # a ranked start or an accepted batch of actions: live progress
attempt_finished = Signal()  # won, resigned, or closed with the day: new ranks
attempt_voided = Signal()  # an admin voided it: it leaves the boards
attempt_played = Signal()  # a race's attempt accepted a batch of actions (rooms push progress)
# The day's close ended the open ranked attempts of these challenges (``challenge_ids``): their
# pages are told the day is over (the attempts themselves went with attempt_finished).
day_closed = Signal()
