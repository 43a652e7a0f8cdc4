"""Password rules beyond Django's validators (AUTH_PASSWORD_VALIDATORS)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError


class NotBlankValidator:
    """Refuses a password that is nothing but spaces (ten spaces passed every other rule)."""

    def validate(self, password: str, user: Any = None) -> None:
        if not password.strip():
            raise ValidationError(
                "The password cannot be blank or only spaces.", code="password_blank"
            )

    def get_help_text(self) -> str:
        return "Your password cannot be blank or only spaces."
