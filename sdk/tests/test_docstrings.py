"""Every public name of ``pitch_sdk`` has a docstring, as the API reference renders it.

The source is read by griffe, the reader mkdocstrings builds the reference with, so a
name counts as documented exactly when the site shows a description for it. Public
means: a module whose name has no leading underscore (``_proto`` is generated code), and
in it the names of its ``__all__``, or every name without a leading underscore where it
has none; in a public class, its methods, properties and fields the same way. A field
may be documented by its own docstring or in its class's ``Attributes:`` section.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import griffe

SDK = Path(__file__).resolve().parents[1]


def _documented_in_class(cls: griffe.Class) -> set[str]:
    """The names that ``cls``'s docstring describes in an ``Attributes:`` section."""
    if cls.docstring is None:
        return set()
    return {
        attribute.name
        for section in cls.docstring.parse("google")
        if section.kind is griffe.DocstringSectionKind.attributes
        for attribute in section.value
    }


def _exported(module: griffe.Module) -> list[griffe.Object]:
    """The public members of a module but its submodules: its ``__all__`` (followed to
    where each name is defined, unless that is a private module: ``protocol`` exports the
    generated ``_proto`` modules), or, without one, its own names that have no leading
    underscore."""
    if module.exports is not None:
        members = [module[name] for name in module.exports]
        targets = [member.final_target if member.is_alias else member for member in members]
        return [target for target in targets if "._" not in target.path]
    return [
        member
        for name, member in module.members.items()
        if not member.is_alias and not member.is_module and not name.startswith("_")
    ]


def _undocumented(obj: griffe.Object, described: Collection[str] = ()) -> list[str]:
    """The paths of ``obj`` and its public members that have no docstring."""
    missing = [] if obj.docstring or obj.name in described else [obj.path]
    if obj.is_module:
        for member in _exported(obj):  # type: ignore[arg-type]
            missing += _undocumented(member)
        for name, submodule in obj.modules.items():
            if not name.startswith("_"):
                missing += _undocumented(submodule)
    elif obj.is_class:
        in_docstring = _documented_in_class(obj)  # type: ignore[arg-type]
        for name, member in obj.members.items():
            if not name.startswith("_") and not member.is_alias:
                missing += _undocumented(member, in_docstring)
    return missing


def test_every_public_name_of_the_sdk_has_a_docstring() -> None:
    package = griffe.load("pitch_sdk", search_paths=[SDK], docstring_parser="google")
    missing = sorted(set(_undocumented(package)))
    assert not missing, f"{len(missing)} public names without a docstring:\n" + "\n".join(missing)


def test_a_name_without_a_docstring_is_found(tmp_path: Path) -> None:
    package = tmp_path / "sample"
    package.mkdir()
    (package / "__init__.py").write_text('"""A package."""\n')
    (package / "things.py").write_text(
        '"""Things."""\n'
        "from dataclasses import dataclass\n"
        "LIMIT = 3\n"
        "_HIDDEN = 4\n"
        "@dataclass\n"
        "class Thing:\n"
        '    """A thing.\n\n    Attributes:\n        size: how big.\n    """\n'
        "    size: int\n"
        "    colour: str\n"
        "    def grow(self) -> None:\n"
        '        """Bigger."""\n'
        "    def shrink(self) -> None:\n"
        "        pass\n"
    )
    (package / "listed.py").write_text(
        '"""Listed."""\n__all__ = ["shown"]\ndef shown():\n    """Here."""\ndef unlisted(): pass\n'
    )
    (package / "_private.py").write_text("def helper(): pass\n")
    loaded = griffe.load("sample", search_paths=[tmp_path], docstring_parser="google")
    assert sorted(_undocumented(loaded)) == [
        "sample.things.LIMIT",
        "sample.things.Thing.colour",
        "sample.things.Thing.shrink",
    ]
