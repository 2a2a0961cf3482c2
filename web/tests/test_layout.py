"""The web is laid out as FastAPI's "Bigger Applications" (docs/architecture.md): no
module of the package imports ``app`` (but its face, ``__init__``), so ``app`` can
include the routers with no import cycle, and no router imports another."""

from __future__ import annotations

import ast
from pathlib import Path

import pitch_web

PACKAGE = Path(pitch_web.__file__).parent
ROUTERS = {path.stem for path in (PACKAGE / "routes").glob("*.py")} - {"__init__"}


def _imported(path: Path) -> set[str]:
    """The package's modules that ``path`` imports, dotted under ``pitch_web``
    (``from ..templates import render`` in ``routes/api.py``: ``templates``)."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = parts[: len(parts) - node.level]
        elif (node.module or "").split(".")[0] == "pitch_web":
            base = []
        else:
            continue
        module = (node.module or "").removeprefix("pitch_web").strip(".")
        if module:
            found.add(".".join([*base, *module.split(".")]))
        else:
            found.update(".".join([*base, alias.name]) for alias in node.names)
    return found


def test_no_module_imports_the_app_but_the_package_face():
    importers = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "app" in _imported(path) and path != PACKAGE / "__init__.py"
    }
    assert importers == set()


def test_no_router_imports_another_router():
    for router in ROUTERS:
        imported = _imported(PACKAGE / "routes" / f"{router}.py")
        others = {f"routes.{other}" for other in ROUTERS - {router}}
        assert not imported & others, f"routes/{router}.py imports {imported & others}"
