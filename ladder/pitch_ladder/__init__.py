"""Pitch Arena ladder: bots, versions, round robins and ratings in a database."""
