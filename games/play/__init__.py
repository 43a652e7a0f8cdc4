"""The one door of a played batch of actions, whatever the transport.

``POST /api/v1/attempts/<id>/actions/`` (``games.api.attempts.AttemptActionsApi``) and the
play socket's ``actions`` message (``games.api.play_socket``) both hand the batch to
``play_actions`` and send back the ``PlayAnswer`` it gives; neither decides anything about
the batch itself. In order:

1. the throttle: the ``actions`` rate limit, one counter per player shared by both
   transports (``core.throttles``), checked before the input is read;
2. the input: ``offset`` and ``actions`` (``batch_input``): plainly valid input is taken
   as it is, anything else goes through the request serializer, which says what is wrong;
3. the service: ``games.services.attempts.attempt_push_actions`` decides, stores and
   announces the batch; its refusals (``DomainError``) become the answer;
4. the answer: the HTTP status and the JSON body the API documents (``answers``).

A transport adds only what is its own: the HTTP view keeps the play cursors of its
process's attempts between posts (``games.api.held_cursors``), the socket keeps one for
its attempt and holds a database connection on its thread between batches, which is why
it asks the door to retry once on a fresh connection when that one has died.
"""

from games.play.answers import PlayAnswer
from games.play.door import play_actions

__all__ = ["PlayAnswer", "play_actions"]
