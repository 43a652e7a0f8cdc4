"""Operators' view of the pipeline: deals, their proofs, and the daily schedule.

Every action is recorded in Django's admin log (LogEntry) and in the application log.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html

from games.errors import GamesError
from games.models import Attempt, AttemptAnalysis, DailyChallenge, Deal
from games.selectors import schedule_for_days, solution_steps
from games.services.attempts import attempt_void
from games.services.deals import deal_requeue, deal_retire, deal_schedule, deal_verdict
from games.solver.complete import PROOF_RULES
from games.tasks import enqueue_verification


class ScheduleForm(forms.Form):
    date = forms.DateField(help_text="UTC date (YYYY-MM-DD) on which the deal is the daily")


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "variant",
        "pool",
        "status",
        "verdict",
        "par",
        "difficulty_label",
        "difficulty_display",
        "effort",
        "scheduled_for",
        "retired",
        "verified_at",
    )
    # A page an operator can read at 1280 px: 25 deals a page (paginated), no creation time
    # (the deal page has it).
    list_per_page = 25
    list_filter = ("variant", "pool", "status", "difficulty_label", "retired")
    search_fields = ("=id", "=commitment")
    search_help_text = "Search by deal id or by public commitment."
    ordering = ("-id",)
    actions = ("verify_now", "reverify", "mark_for_date", "retire")
    exclude = ("seed", "nonce", "solution", "solver_seconds", "solver_peak_mb")
    readonly_fields = (
        "variant",
        "pool",
        "status",
        "verdict",
        "proof",
        "retired",
        "commitment",
        "rules_version",
        "solver_version",
        "par",
        "difficulty",
        "difficulty_label",
        "solver_nodes",
        "solver_seconds_display",
        "solver_peak_mb_display",
        "solver_improve_nodes",
        "verify_runs",
        "last_error",
        "created_at",
        "updated_at",
        "verify_started_at",
        "lease_until",
        "verified_at",
        "solution_link",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # deals are drawn by the pipeline from a cryptographic generator

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # retire instead: a deal may be referenced by a past daily

    def get_queryset(self, request: HttpRequest) -> QuerySet[Deal]:
        return super().get_queryset(request).prefetch_related("dailies")

    @admin.display(description="difficulty", ordering="difficulty")
    def difficulty_display(self, deal: Deal) -> str:
        return "" if deal.difficulty is None else f"{deal.difficulty:.2f}"

    @admin.display(description="verdict")
    def verdict(self, deal: Deal) -> str:
        """What the verification found, in words: a proof of loss is not a budget run out."""
        return deal_verdict(deal)

    @admin.display(description="proof of loss")
    def proof(self, deal: Deal) -> str:
        if deal.status != Deal.Status.UNSOLVABLE:
            return "none: no proof of loss was found for this deal"
        return (
            f"The complete search (games.solver.decide) visited every one of the "
            f"{deal.solver_nodes or 0:,} classes of positions reachable from the deal and found "
            f"no win. It cut only by these rules: {'; '.join(PROOF_RULES)} "
            '(docs/solver.md, "Proofs of loss").'
        )

    @admin.display(description="solver effort")
    def effort(self, deal: Deal) -> str:
        if deal.solver_nodes is None:
            return ""
        seconds, peak = deal.solver_seconds or 0, deal.solver_peak_mb or 0
        return f"{deal.solver_nodes:,} nodes, {seconds:.1f} s, {peak:.0f} MB"

    @admin.display(description="solver seconds")
    def solver_seconds_display(self, deal: Deal) -> str:
        return "" if deal.solver_seconds is None else f"{deal.solver_seconds:.1f} s"

    @admin.display(description="solver peak memory")
    def solver_peak_mb_display(self, deal: Deal) -> str:
        return "" if deal.solver_peak_mb is None else f"{deal.solver_peak_mb:.0f} MB"

    @admin.display(description="daily on")
    def scheduled_for(self, deal: Deal) -> str:
        return ", ".join(str(daily.date) for daily in deal.dailies.all())

    @admin.display(description="solution")
    def solution_link(self, deal: Deal) -> str:
        if not deal.solution:
            return "no solution stored"
        url = reverse("admin:games_deal_solution", args=[deal.pk])
        return format_html('<a href="{}">step through the solution ({} actions)</a>', url, deal.par)

    # -- actions ---------------------------------------------------------------------------

    def _record(self, request: HttpRequest, deal: Deal, message: str) -> None:
        self.log_change(request, deal, message)

    @admin.action(description="Verify now (pending, unknown or failed deals)")
    def verify_now(self, request: HttpRequest, queryset: QuerySet[Deal]) -> None:
        queued = 0
        for deal in queryset:
            if deal.status == Deal.Status.VERIFIED or deal.retired:
                continue
            deal_requeue(deal_id=deal.pk)
            enqueue_verification(deal.pk)
            self._record(request, deal, "Verification queued")
            queued += 1
        self.message_user(request, f"{queued} verification(s) queued.")

    @admin.action(description="Re-verify (after an engine or solver change)")
    def reverify(self, request: HttpRequest, queryset: QuerySet[Deal]) -> None:
        count = 0
        for deal in queryset.filter(retired=False):
            enqueue_verification(deal.pk, force=True)
            self._record(request, deal, "Re-verification queued")
            count += 1
        self.message_user(request, f"{count} re-verification(s) queued.")

    @admin.action(description="Mark for a date (verified daily-pool deals only)")
    def mark_for_date(self, request: HttpRequest, queryset: QuerySet[Deal]) -> HttpResponse | None:
        if queryset.count() != 1:
            self.message_user(
                request, "Choose exactly one deal to mark for a date.", messages.ERROR
            )
            return None
        deal = queryset.get()
        form = ScheduleForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            try:
                daily = deal_schedule(deal=deal, date=form.cleaned_data["date"])
            except GamesError as exc:
                self.message_user(request, str(exc), messages.ERROR)
                return None
            self._record(request, deal, f"Scheduled as the {daily.variant} daily of {daily.date}")
            self.message_user(
                request, f"Deal {deal.pk} is the {daily.variant} daily of {daily.date}."
            )
            return None
        return TemplateResponse(
            request,
            "admin/games/deal/mark_for_date.html",
            {
                **self.admin_site.each_context(request),
                "deal": deal,
                "form": form,
                "opts": self.model._meta,
                "title": f"Mark deal {deal.pk} for a date",
            },
        )

    @admin.action(description="Retire")
    def retire(self, request: HttpRequest, queryset: QuerySet[Deal]) -> None:
        for deal in queryset.filter(retired=False):
            try:
                deal_retire(deal=deal)
            except GamesError as exc:
                self.message_user(request, str(exc), messages.ERROR)
                continue
            self._record(request, deal, "Retired")
            self.message_user(request, f"Deal {deal.pk} retired.")

    # -- the solution viewer ---------------------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view(self.solution_view)
        return [
            path("<int:deal_id>/solution/", view, name="games_deal_solution"),
            *super().get_urls(),
        ]

    def solution_view(self, request: HttpRequest, deal_id: int) -> HttpResponse:
        deal = Deal.objects.filter(pk=deal_id).first()
        if deal is None or not self.has_view_permission(request, deal):
            return HttpResponseRedirect(reverse("admin:games_deal_changelist"))
        steps = solution_steps(deal)
        try:
            step = min(max(int(request.GET.get("step", "0")), 0), len(steps) - 1)
        except ValueError:
            step = 0
        current = steps[step]
        return TemplateResponse(
            request,
            "admin/games/deal/solution.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": f"Deal {deal.pk}: the solver's solution",
                "deal": deal,
                "steps": steps,
                "step": step,
                "current": current,
                "previous_step": step - 1 if step > 0 else None,
                "next_step": step + 1 if step + 1 < len(steps) else None,
            },
        )


@admin.register(DailyChallenge)
class DailyChallengeAdmin(admin.ModelAdmin):
    list_display = ("date", "variant", "deal_link", "par", "difficulty")
    list_filter = ("variant",)
    date_hierarchy = "date"
    ordering = ("-date", "variant")
    readonly_fields = ("date", "variant", "deal", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # schedule from the deals list ("Mark for a date") or let the beat fill it

    def get_queryset(self, request: HttpRequest) -> QuerySet[DailyChallenge]:
        return super().get_queryset(request).select_related("deal")

    @admin.display(description="deal")
    def deal_link(self, daily: DailyChallenge) -> str:
        url = reverse("admin:games_deal_change", args=[daily.deal_id])
        return format_html('<a href="{}">#{}</a>', url, daily.deal_id)

    @admin.display(description="par")
    def par(self, daily: DailyChallenge) -> int | None:
        return daily.deal.par

    @admin.display(description="difficulty")
    def difficulty(self, daily: DailyChallenge) -> str:
        return daily.deal.difficulty_label

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        today = timezone.now().date()
        # The pipeline keeps today and DAILY_DAYS_AHEAD days after it: only those slots can
        # be missing; the rest of the fortnight is shown as not yet due.
        kept = int(settings.DAILY_DAYS_AHEAD) + 1
        extra = {
            "schedule": schedule_for_days(today, 14, kept=kept),
            "schedule_from": today,
            "schedule_to": today + dt.timedelta(days=13),
            "days_kept": kept,
        }
        return super().changelist_view(request, {**(extra_context or {}), **extra})


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    """Attempts, with the plausibility flags; voiding takes one off the boards."""

    list_display = (
        "id",
        "player",
        "kind",
        "challenge",
        "action_count",
        "score",
        "elapsed_seconds",
        "won",
        "end_reason",
        "flagged",
        "flag_reason",
        "voided",
    )
    list_filter = ("flagged", "voided", "kind", "end_reason", "won")
    list_select_related = ("player", "challenge")
    search_fields = ("=id", "player__username")
    search_help_text = "Search by attempt id or username."
    ordering = ("-id",)
    actions = ("void",)
    readonly_fields = [field.name for field in Attempt._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # attempts are played, not typed in

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # void instead: the record stays, off the boards

    @admin.action(description="Void (take off the leaderboards; watchers are told)")
    def void(self, request: HttpRequest, queryset: QuerySet[Attempt]) -> None:
        admin_name = getattr(request.user, "get_username", lambda: "an admin")()
        count = 0
        for attempt in queryset.filter(voided=False):
            reason = f"voided by {admin_name}"
            if attempt.flag_reason:
                reason += f" (flagged: {attempt.flag_reason})"
            attempt_void(attempt_id=attempt.pk, reason=reason)
            self.log_change(request, attempt, f"Voided: {reason}")
            count += 1
        self.message_user(request, f"{count} attempt(s) voided.")


@admin.register(AttemptAnalysis)
class AttemptAnalysisAdmin(admin.ModelAdmin):
    """Game analyses, read-only: made by the job (games/services/analysis.py)."""

    list_display = ("attempt", "status", "planned", "worker_seconds", "created_at", "finished_at")
    list_filter = ("status",)
    readonly_fields = [field.name for field in AttemptAnalysis._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
