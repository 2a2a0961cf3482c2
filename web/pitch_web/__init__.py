"""Pitch Arena in the browser: the game viewer, live games, and the ladder's pages and API.

``create_app`` builds the FastAPI application over a ``Source`` (a ladder, or a folder of
matches and records); ``pitch serve`` runs it with uvicorn, ``pitch view`` opens it on
one game or match, and ``pitch replay --html`` writes the viewer into one file.
"""

from .app import create_app

__all__ = ["create_app"]
