"""Staff's review page: each review's evidence, and the void and clear actions."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html_join

from reviews.models import Review, Sighting
from reviews.services import review_clear, review_void


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):
    """Open reviews first by severity; void takes the attempt off the boards at once."""

    list_display = ("id", "attempt", "player", "challenge", "severity", "status", "summary")
    list_filter = ("status", "severity", "attempt__challenge__date")
    list_select_related = ("attempt__player", "attempt__challenge")
    search_fields = ("=attempt__id", "attempt__player__username")
    search_help_text = "Search by attempt id or username."
    actions = ("void", "clear")
    readonly_fields = [field.name for field in Review._meta.fields if field.name != "evidence"]
    exclude = ("evidence",)
    readonly_fields.append("evidence_list")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # reviews are filed when attempts end

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # clear instead: the record stays

    @admin.display(description="player")
    def player(self, review: Review) -> str:
        return str(review.attempt.player)

    @admin.display(description="challenge")
    def challenge(self, review: Review) -> str:
        return str(review.attempt.challenge)

    @admin.display(description="evidence")
    def summary(self, review: Review) -> str:
        return "; ".join(str(item["text"]) for item in review.evidence)[:300]

    @admin.display(description="evidence")
    def evidence_list(self, review: Review) -> str:
        return format_html_join(
            "", "<p><b>{}</b>: {}</p>", ((item["kind"], item["text"]) for item in review.evidence)
        )

    @admin.action(description="Void the attempt (off the boards at once; ratings recomputed)")
    def void(self, request: HttpRequest, queryset: QuerySet[Review]) -> None:
        count = 0
        for review in queryset.exclude(status=Review.Status.VOIDED):
            review_void(review_id=review.pk, by=request.user)
            self.log_change(request, review, "Voided the attempt")
            count += 1
        self.message_user(request, f"{count} attempt(s) voided.")

    @admin.action(description="Clear (nothing wrong; the attempt stays)")
    def clear(self, request: HttpRequest, queryset: QuerySet[Review]) -> None:
        count = 0
        for review in queryset.filter(status=Review.Status.OPEN):
            review_clear(review_id=review.pk, by=request.user)
            self.log_change(request, review, "Cleared")
            count += 1
        self.message_user(request, f"{count} review(s) cleared.")


@admin.register(Sighting)
class SightingAdmin(admin.ModelAdmin):
    """Where accounts were seen from (device cookie, address hash, client); read-only."""

    list_display = ("user", "device", "address", "client", "first_seen_at", "last_seen_at")
    search_fields = ("user__username", "=device", "=address")
    readonly_fields = [field.name for field in Sighting._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
