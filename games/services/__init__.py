"""Writes: every change to games' rows goes through a function here."""
