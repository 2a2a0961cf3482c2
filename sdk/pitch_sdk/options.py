"""The rule options a match may choose (docs/rules.md, "Rule options"), validated by name."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """The house rules in force. The defaults are the standard rule set."""

    scoring: str = "points"
    """What a made bid adds: ``points`` (the points taken) or ``bid`` (only the bid)."""
    dealer_steal: bool = False
    """Whether the dealer, at its own turn, may bid exactly the current highest bid."""
    target: int = 55
    """The score that wins the game (55: more than 54)."""
    hand_cap: int = 200
    """The game ends after this many hands; the higher score wins."""

    def __post_init__(self) -> None:
        if self.scoring not in ("points", "bid"):
            raise ValueError(f"rule scoring={self.scoring!r}: expected 'points' or 'bid'")
        if not isinstance(self.dealer_steal, bool):
            raise ValueError("rule dealer_steal: expected true or false")
        if not isinstance(self.target, int) or not 1 <= self.target <= 10_000:
            raise ValueError(f"rule target={self.target!r}: expected a whole number 1-10000")
        if not isinstance(self.hand_cap, int) or not 1 <= self.hand_cap <= 100_000:
            raise ValueError(f"rule hand_cap={self.hand_cap!r}: expected a whole number 1-100000")

    def to_dict(self) -> dict[str, Any]:
        """The options as a record's ``rules`` object."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleOptions:
        """Build options from a record's ``rules`` object.

        Raises:
            ValueError: an unknown option or a bad value.
        """
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown rule option {unknown[0]!r}: known are {sorted(known)}")
        return cls(**data)

    def with_text(self, assignments: list[str]) -> RuleOptions:
        """Apply ``NAME=VALUE`` assignments, as given on the command line.

        Examples:
            >>> RuleOptions().with_text(["dealer_steal=true", "target=21"]).target
            21

        Raises:
            ValueError: a malformed assignment, an unknown option or a bad value.
        """
        changes: dict[str, Any] = {}
        types = {field.name: field.type for field in fields(self)}
        for assignment in assignments:
            name, sep, value = assignment.partition("=")
            name, value = name.strip(), value.strip()
            if not sep or name not in types:
                raise ValueError(
                    f"bad rule {assignment!r}: expected NAME=VALUE with NAME one of {sorted(types)}"
                )
            if types[name] == "bool":
                if value.lower() not in ("true", "false", "on", "off", "yes", "no", "1", "0"):
                    raise ValueError(f"rule {name}={value!r}: expected true or false")
                changes[name] = value.lower() in ("true", "on", "yes", "1")
            elif types[name] == "int":
                try:
                    changes[name] = int(value)
                except ValueError:
                    raise ValueError(f"rule {name}={value!r}: expected a whole number") from None
            else:
                changes[name] = value
        return replace(self, **changes)
