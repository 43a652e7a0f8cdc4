"""`manage.py push_keys`: write a new VAPID private key into the git-ignored key file
(settings.VAPID_KEY_FILE) when no key is configured; `scripts/dev.py run` calls it.
``--rotate`` writes a new one even when one is there (docs/operations.md: rotation)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from notifications.vapid import new_private_key


class Command(BaseCommand):
    help = "Write a VAPID key for Web Push reminders into the local key file when none is set."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rotate", action="store_true", help="replace the file's key")

    def handle(self, *args: Any, **options: Any) -> None:
        path = settings.VAPID_KEY_FILE
        if settings.VAPID_PRIVATE_KEY and not options["rotate"]:
            self.stdout.write("a VAPID key is configured: nothing to do")
            return
        path.write_text(new_private_key() + "\n")
        path.chmod(0o600)
        self.stdout.write(f"wrote a new VAPID key to {path}")
