"""Pitch Arena ladder and the `pitch` command."""
