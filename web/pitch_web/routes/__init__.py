"""The site's routers, one a concern, each ``router = APIRouter()`` in its own module:
``api`` (the data as JSON under ``/api``), ``pages`` (the HTML pages of a ladder or a
folder), ``viewer`` (a game's page, its timeline and analysis), ``live`` (games being
played now) and ``service`` (uploads and admin, added by ``enable_service``).

``app.create_app`` includes them; no router imports ``app`` or another router: what
they share is in ``templates``, ``dependencies``, ``models`` and ``viewer_data``.
"""
