"""Engine speed: random-play hands per second on one core, and the cost of a clone.

Run by hand: ``uv run python bench/engine.py [--seconds S]``. Results are recorded in
``bench/RESULTS.md``. A "hand" is one deal (shuffle included) played out with uniformly
random legal actions until it is scored; counting hands, not games, keeps the figure
independent of how long random bidding makes a game.
"""

from __future__ import annotations

import argparse
import random
import time

from pitch_sdk.deck import shuffled_deck
from pitch_sdk.rules import CHANCE, GameState


def random_hands(seconds: float, seed: int, keep_undo: bool) -> tuple[int, int, float]:
    """Play random hands for about ``seconds``; return (hands, decisions, elapsed)."""
    rng = random.Random(seed)
    hands = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = GameState()
        step = state.push if keep_undo else state.advance
        for _ in range(50):  # hands per game before checking the clock
            if state.is_over():
                break
            state.deal(shuffled_deck(rng))
            hands += 1
            while state.current_seat() >= 0:  # a seat decides (not CHANCE, not TERMINAL)
                actions = state.legal_actions()
                step(actions[int(rng.random() * len(actions))])
                decisions += 1
            if keep_undo:
                state._stack.clear()  # keep memory flat: games here are long
    return hands, decisions, time.perf_counter() - start


def clone_cost(seed: int, repeats: int = 200_000) -> tuple[float, float]:
    """Microseconds per ``copy()`` of a mid-play state, and per random decision, same run."""
    rng = random.Random(seed)
    state = GameState()
    state.deal(shuffled_deck(rng))
    while state.decision() is None or state.decision().name != "PLAY":
        if state.current_seat() == CHANCE:
            state.deal(shuffled_deck(rng))
            continue
        actions = state.legal_actions()
        state.advance(actions[int(rng.random() * len(actions))])
    start = time.perf_counter()
    for _ in range(repeats):
        state.copy()
    per_copy = (time.perf_counter() - start) / repeats * 1e6
    _hands, decisions, elapsed = random_hands(1.0, seed, keep_undo=False)
    return per_copy, elapsed / decisions * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="the median and best are shown")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for keep_undo in (False, True):
        rates = []
        for repeat in range(args.repeats):
            hands, decisions, elapsed = random_hands(args.seconds, args.seed + repeat, keep_undo)
            rates.append((hands / elapsed, decisions / elapsed, decisions / hands))
        rates.sort()
        median, best = rates[len(rates) // 2], rates[-1]
        door = "push (with undo)" if keep_undo else "advance (no undo)"
        print(
            f"{door:18}: median {median[0]:7.0f} hands/s (best {best[0]:7.0f}), "
            f"{median[1]:8.0f} decisions/s, {median[2]:.1f} decisions/hand"
        )
    per_copy, per_decision = clone_cost(args.seed)
    print(
        f"copy(): {per_copy:.2f} us; one random decision: {per_decision:.2f} us; "
        f"ratio {per_copy / per_decision:.2f}"
    )


if __name__ == "__main__":
    main()
