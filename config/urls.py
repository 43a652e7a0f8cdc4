from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from accounts.admin_login import rate_limited_admin_login
from core import api_root, service_views
from core.metrics_view import metrics

api_v1: list[URLPattern | URLResolver] = [
    path("", api_root.ApiRootApi.as_view(), name="api-root"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include("accounts.urls")),
    path("", include("games.api.urls")),
    path("leaderboards/", include("leaderboards.urls")),
    path("leagues/", include("leaderboards.leagues.urls")),
    path("rooms/", include("rooms.urls")),
    path("reminders/", include("notifications.urls")),
    path("admin/", include("reviews.urls")),
    # Any path at all, a newline in it included (`.` would not match one), even with DEBUG on.
    re_path(r"^(?P<path>[\s\S]*)$", service_views.api_not_found),
]

urlpatterns = [
    path("health/", service_views.health, name="health"),
    # Prometheus; a 404 unless METRICS_ENABLED (docs/metrics.md).
    path("metrics/", metrics, name="metrics"),
    path("api/v1/", include(api_v1)),
    # Before the admin's own: the same page, with a rate limit per address and username.
    path("admin/login/", rate_limited_admin_login, name="admin-login"),
    path("admin/", admin.site.urls),
    path("", include("frontend.urls")),
]

# Under /api/ Django's own error answers (400, 403, 404, 500) are in the API's error shape.
handler400 = "core.http_errors.bad_request"
handler403 = "core.http_errors.permission_denied"
handler404 = "core.http_errors.page_not_found"
handler500 = "core.http_errors.server_error"
