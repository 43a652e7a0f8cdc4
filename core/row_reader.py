"""Model rows read by a hand-written statement, converted exactly as the ORM converts them.

For the two statements on the hot path of the play API (the token's user, the attempt
under lock): building an ORM query costs more CPU than running it (docs/api.md). A
``RowReader`` names the columns a statement selects, as (model, field) pairs in order;
it works out once per process and database the converters Django would apply to each
(JSON, dates, decimals: ``get_db_converters``) and turns a fetched row into the values
``Model.from_db`` takes. Imports only Django.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from django.db import connections, models

Converter = Callable[[Any, Any, Any], Any]

# The largest id a row can have (a signed 64-bit integer: PostgreSQL's bigint, SQLite's
# integer). The ORM answers "no row" past it; a hand-written statement must ask first, as
# SQLite's driver raises OverflowError for a larger parameter.
MAX_ROW_ID = 2**63 - 1


def is_row_id(value: int) -> bool:
    """Could ``value`` be a row's id (a positive signed 64-bit integer)?"""
    return 0 < value <= MAX_ROW_ID


def model_field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    return cast("models.Field[Any, Any]", model._meta.get_field(name))


class RowReader:
    def __init__(self, columns: Sequence[tuple[type[models.Model], str]]) -> None:
        self.columns = list(columns)
        self._converters: dict[str, list[tuple[Any, list[Converter]]]] = {}

    def sql_columns(self, aliases: dict[type[models.Model], str]) -> str:
        """``alias.column, …`` for the SELECT list, quoted for the default database."""
        quote = connections["default"].ops.quote_name
        return ", ".join(
            f"{aliases[model]}.{quote(model_field(model, name).column)}"
            for model, name in self.columns
        )

    def _for(self, alias: str) -> list[tuple[Any, list[Converter]]]:
        found = self._converters.get(alias)
        if found is None:
            connection = connections[alias]
            found = []
            for model, name in self.columns:
                column = model_field(model, name).get_col(model._meta.db_table)
                functions = connection.ops.get_db_converters(column)
                found.append((column, functions + column.get_db_converters(connection)))
            self._converters[alias] = found
        return found

    def convert(self, row: Sequence[Any], alias: str = "default") -> list[Any]:
        connection = connections[alias]
        values = list(row)
        for i, (column, functions) in enumerate(self._for(alias)):
            for function in functions:
                values[i] = function(values[i], column, connection)
        return values
