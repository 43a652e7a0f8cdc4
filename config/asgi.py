"""ASGI entry point: HTTP through Django's WSGI handler on a thread pool, WebSockets through
Channels.

Serve with `uvicorn config.asgi:application` (see scripts/dev.py and the README).

Why HTTP goes through the WSGI handler: every view of this project is synchronous (DRF,
the ORM, the admin). Django's own ASGI handler runs such a request by hopping between the
event loop and a thread of its own for every middleware hook, the view and each signal,
and it makes the database connection and the cache client anew per request; on the play
API that cost as much CPU as the request itself (docs/api.md). Here each HTTP request
makes one hop each way (`core/wsgi_in_threads.py`): the whole request runs in a thread
of a fixed pool (`WEB_THREADS` per process), as under a threaded WSGI server, while
uvicorn keeps serving the WebSockets on the event loop. Every HTTP request goes through
Django; API clients who need an action to cost less CPU play over the play socket
(docs/api.md).
"""

import gc
import json
import os
from typing import Any, cast

from django.conf import settings
from django.core.wsgi import get_wsgi_application

from core.wsgi_in_threads import ThreadedWSGIApp

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django must be set up before anything imports models (consumers, auth middleware).
django_wsgi_app = get_wsgi_application()
from core.api_errors import error_body  # noqa: E402

# Bodies are read whole before Django sees them; no view of this project takes uploads.
# Past Django's own limit it would answer an HTML 400: the bridge answers 413 JSON first.
# (Each API view takes far less: core/request_guard.py.)
MAX_BODY_BYTES = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 2_621_440
TOO_LARGE = error_body(
    "too_large",
    f"The request body is over {MAX_BODY_BYTES} bytes.",
    {"limit_bytes": MAX_BODY_BYTES},
)
django_http_app = ThreadedWSGIApp(
    # (django-stubs types the handler's answer as a response, an iterable of bytes)
    cast(Any, django_wsgi_app),
    workers=settings.WEB_THREADS,
    max_body_bytes=MAX_BODY_BYTES,
    too_large=("application/json", json.dumps(TOO_LARGE).encode()),
)

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from accounts.websocket_auth import websocket_stack  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402
from games.embedded_lifespan import lifespan  # noqa: E402

# Everything loaded so far (Django, the apps, the URL and model machinery) lives as long as
# the process: out of the garbage collector's sight, its full collections stay short.
gc.freeze()

application = ProtocolTypeRouter(
    {
        "http": django_http_app,
        # The session or an API token; the origin checked (accounts/websocket_auth.py).
        "websocket": websocket_stack(URLRouter(websocket_urlpatterns)),
        # Only with `uvicorn --lifespan on` (the embedded run): celery beat's jobs in this
        # process when there is no REDIS_URL (games/embedded_lifespan.py).
        "lifespan": lifespan,
    }
)
