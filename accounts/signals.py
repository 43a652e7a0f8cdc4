"""What happens to accounts, for whoever listens (reviews records where accounts play from).

accounts imports no listener; a listener connects in its AppConfig.ready().
"""

from django.dispatch import Signal

# A sign-up, log-in or API token issued, by this request: sent with ``request`` (Django's
# HttpRequest), ``user`` and ``browser`` (True for the session's sign-up and log-in, False
# for a token client's).
account_signed_in = Signal()
