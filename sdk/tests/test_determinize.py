"""``determinize``: sampled states must agree with the view and with the rules.

The main property is checked on random games (seeded deals, random legal decisions,
some forfeits) at every step and for every seat: the sampled state shows the seat
exactly its view. The strongest check is a replay: the sampled ``deck`` is dealt again
and the hand's whole history (public actions plus the sampled hidden look choices) is
re-applied with legality checks; it must rebuild the sampled state slot for slot, so
every hidden choice the sampler made is one the engine allows. Random deals seldom give
a seat more than six trumps, so ``heavy_walk`` deals such hands on purpose to reach the
discard and pick-up phases.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from itertools import chain

from hypothesis import given, settings
from hypothesis import strategies as st

from pitch_sdk.actions import Bid, Discard, NameTrump, PickUp, Play, StockMove
from pitch_sdk.cards import (
    DECK_SIZE,
    HEARTS,
    JOKER,
    SUITS,
    TOTAL_POINTS,
    TRUMPS,
    Card,
    canonical_jokers,
    cards_in,
    mask_of,
)
from pitch_sdk.deck import deck_for
from pitch_sdk.determinize import _assemble, _facts_of, _sample_world, determinize, sample_state
from pitch_sdk.options import RuleOptions
from pitch_sdk.progress import (
    BIDDING,
    DEAL,
    DISCARDING,
    LOOKING,
    OVER,
    PICKING_UP,
    PLAYING,
    TRUMP_NAMING,
    Termination,
)
from pitch_sdk.rules import CHANCE, TERMINAL, GameState
from pitch_sdk.views import PlayerView
from pitch_testkit.hands import act, dealt_positions, new_hand, random_walk

ALL = (1 << DECK_SIZE) - 1
SHORT = RuleOptions(target=25, hand_cap=3)


# --- games to sample from -----------------------------------------------------------------


def walk(seed: int, rules: RuleOptions = SHORT, forfeit_every: int = 0) -> Iterator[GameState]:
    """Every state of a random game, the first one included; with ``forfeit_every``, a
    seeded random step is a forfeit by the seat to move (the game then ends)."""
    state = GameState(rules, first_dealer=seed % 4)
    rng = random.Random(seed)
    yield state
    for step in random_walk(state, rng, seed):
        yield step
        if forfeit_every and not step.is_over() and rng.randrange(forfeit_every) == 0:
            step.forfeit(max(step.to_move, 0))
            yield step
            return


def heavy_deck(rng: random.Random, trump: int, dealer: int) -> list[Card]:
    """A deck giving two seats more than six trumps of ``trump`` (and the others few)."""
    trumps = list(cards_in(TRUMPS[trump]))
    others = list(cards_in(ALL & ~TRUMPS[trump]))
    rng.shuffle(trumps)
    rng.shuffle(others)
    first = rng.randint(7, 9)
    second = rng.randint(7, min(8, 17 - first))
    counts = [first, second, rng.randint(0, min(1, 17 - first - second)), 0]
    rng.shuffle(counts)
    order: list[Card] = [0] * DECK_SIZE
    for seat, count in zip(range(4), counts, strict=True):
        cards = trumps[:count] + others[: 9 - count]
        del trumps[:count], others[: 9 - count]
        for position, card in zip(dealt_positions(seat, dealer), cards, strict=True):
            order[position] = card
    stock = trumps + others
    rng.shuffle(stock)
    order[36:] = stock
    return order


def heavy_walk(seed: int) -> Iterator[GameState]:
    """A random game whose first hand is a ``heavy_deck`` with its trump suit named."""
    rng = random.Random(f"heavy:{seed}")
    trump = rng.choice(SUITS)
    state = GameState(RuleOptions(target=25, hand_cap=2), first_dealer=seed % 4)
    state.deal(heavy_deck(rng, trump, state.dealer))
    yield state
    while not state.is_over():
        if state.current_seat() == CHANCE:
            state.deal(deck_for(seed, state.hand_number + 1))
        elif state.phase is TRUMP_NAMING and state.hand_number == 1:
            state.apply(NameTrump(trump))
        else:
            state.apply(rng.choice(state.legal_actions()))
        yield state


def games(seeds: range) -> Iterator[GameState]:
    for seed in seeds:
        yield from walk(seed)


def views(states: Iterator[GameState]) -> Iterator[tuple[GameState, PlayerView]]:
    for state in states:
        for seat in range(4):
            yield state, state.view(seat)


# --- checks -------------------------------------------------------------------------------


def places(state: GameState) -> list[int]:
    played = mask_of(card for trick in state.tricks for _, card in trick.plays)
    return [
        *state.hands,
        mask_of(state.stock),
        mask_of(state.look_cards),
        state.centre,
        state.gone,
        mask_of(card for _, card in state.trick),
        played,
    ]


def assert_conserved(state: GameState) -> None:
    """Every card is in exactly one place (nothing at all before the first deal)."""
    masks = places(state)
    union = 0
    for m in masks:
        union |= m
    total = sum(m.bit_count() for m in masks)
    if state.hand_number == 0:
        assert total == 0
    else:
        assert total == DECK_SIZE and union == ALL, state


def finished(view: PlayerView) -> bool:
    return view.last_hand is not None and view.last_hand.number == view.hand_number


def scores_before(truth: GameState, hand_number: int) -> tuple[int, int]:
    """The score when hand ``hand_number`` was dealt (a view keeps only the last hand)."""
    before = [result.scores for result in truth.hand_results if result.number == hand_number - 1]
    return before[0] if before else (0, 0)


def replay(state: GameState, view: PlayerView, scores: tuple[int, int]) -> GameState:
    """Deal ``state.deck`` again, from ``scores``, and re-apply the hand's history, checked.

    Public actions come from the view; the other seats' look choices from the sampled
    log. Any hidden inconsistency (a take of a non-point card, a give-up not held, a
    seat that would have been skipped, a joker code the engine would not give) makes
    an action illegal or the rebuilt state differ.
    """
    done = finished(view)
    last = view.last_hand
    game = GameState(view.options, last.dealer if last and done else view.dealer)
    game.hand_number = view.hand_number - 1
    game.hand_results = () if done or last is None else (last,)
    game.scores = scores
    game.deal(state.deck)
    plays = [play for trick in view.tricks for play in trick.plays] + list(view.trick)
    forfeit = view.outcome is not None and view.outcome.termination is Termination.FORFEIT
    while not _caught_up(game, view, state, forfeit):
        seat = game.to_move
        if game.phase is BIDDING:
            game.apply(Bid(view.bids[len(game.bids)][1]))
        elif game.phase is TRUMP_NAMING:
            game.apply(NameTrump(view.trump))
        elif game.phase is DISCARDING:
            game.apply(Discard(canonical_jokers(view.discarded_down[seat])))
        elif game.phase is PICKING_UP:
            game.apply(PickUp(canonical_jokers(view.picked[seat])))
        elif game.phase is LOOKING:
            who, card, choice = state.look_log[len(game.look_log)]
            assert (who, card) == (seat, game.look_cards[0])
            game.apply(choice)
        else:
            who, card = plays[sum(len(t.plays) for t in game.tricks) + len(game.trick)]
            assert who == seat
            game.apply(Play(JOKER if card >= JOKER else card))
    if forfeit and not game.is_over():
        game.forfeit(view.outcome.forfeited_by)  # type: ignore[union-attr]
    return game


def _caught_up(game: GameState, view: PlayerView, state: GameState, forfeit: bool) -> bool:
    if game.to_move < 0:
        return True
    same_history = (
        game.bids == view.bids
        and game.trump == view.trump
        and game.discarded_down == view.discarded_down
        and game.picked == view.picked
        and len(game.look_log) == len(state.look_log)
        and game.tricks == view.tricks
        and game.trick == view.trick
    )
    if forfeit:
        return same_history and game.to_move == view.outcome.forfeited_by  # type: ignore[union-attr]
    return same_history and (game.phase, game.to_move) == (view.phase, view.to_move)


def check_sample(state: GameState, view: PlayerView, strict: bool, truth: GameState) -> None:
    """``state`` was sampled from ``view``, which ``truth`` (the real game) showed."""
    assert state.view(view.seat) == view
    assert_conserved(state)
    if view.hand_number and strict:
        rebuilt = replay(state, view, scores_before(truth, view.hand_number))
        assert rebuilt.key() == state.key()


def check_all(pairs: Iterator[tuple[GameState, PlayerView]], rng: random.Random) -> Counter:
    """Determinize every view; return how many of each situation were seen."""
    seen: Counter = Counter()
    for truth, view in pairs:
        sample, strict = sample_state(view, rng)
        check_sample(sample, view, strict, truth)
        seen["strict" if strict else "fallback"] += 1
        seen[_situation(view)] += 1
    return seen


def _situation(view: PlayerView) -> str:
    if view.phase is LOOKING:
        looker = view.to_move
        if view.seat == looker:
            return "look:looker"
        return "look:partner" if view.seat % 2 == looker % 2 else "look:opponent"
    return view.phase.name


# --- the main property ------------------------------------------------------------------


def test_the_sample_shows_each_seat_exactly_its_view_in_every_phase() -> None:
    rng = random.Random(0)
    seen = Counter()
    for seed in range(8):
        seen += check_all(views(walk(seed)), rng)
    for seed in range(8, 13):
        seen += check_all(views(walk(seed, forfeit_every=40)), rng)
    for seed in range(5):
        seen += check_all(views(heavy_walk(seed)), rng)
    phases = ("DEAL", "BID", "TRUMP", "DISCARD", "PICKUP", "PLAY", "OVER")
    looks = ("look:looker", "look:partner", "look:opponent")
    assert all(seen[situation] for situation in phases + looks), seen
    assert seen["fallback"] * 500 <= seen["strict"], seen


@given(
    st.integers(min_value=0, max_value=2**32),
    st.builds(
        RuleOptions,
        scoring=st.sampled_from(["points", "bid"]),
        dealer_steal=st.booleans(),
        target=st.integers(min_value=5, max_value=30),
        hand_cap=st.integers(min_value=1, max_value=2),
    ),
)
@settings(max_examples=5, deadline=None)
def test_the_view_property_holds_for_any_seed_and_rules(seed: int, rules: RuleOptions) -> None:
    check_all(views(walk(seed, rules, forfeit_every=150)), random.Random(seed))


def test_the_best_effort_fallback_also_keeps_the_view_and_every_card() -> None:
    """The fallback runs only when strict sampling fails, so exercise it directly."""
    rng = random.Random(5)
    states = chain(walk(3), walk(9, forfeit_every=40), heavy_walk(1))
    for _, view in views(states):  # views are taken as the game goes: states change in place
        facts = _facts_of(view)
        sample = _assemble(facts, _sample_world(facts, rng, strict=False))  # type: ignore[arg-type]
        assert sample.view(view.seat) == view
        assert_conserved(sample)


def test_before_the_first_deal_the_sample_is_empty() -> None:
    for forfeit in (False, True):
        state = GameState(SHORT, first_dealer=2)
        if forfeit:
            state.forfeit(1)
        view = state.view(0)
        sample = determinize(view, random.Random(0))
        assert sample.view(0) == view
        assert sample.hands == [0, 0, 0, 0] and sample.deck == ()
        assert sample.current_seat() == (TERMINAL if forfeit else CHANCE)


# --- inference ----------------------------------------------------------------------------


def test_a_seat_skipped_in_a_trick_gets_no_trump_afterwards() -> None:
    rng = random.Random(1)
    checked = 0
    for _, view in views(games(range(20, 24))):
        if view.phase is not PLAYING:
            continue
        tricks = view.tricks
        skipped = {s for t in tricks for s in range(4) if all(p != s for p, _ in t.plays)}
        for seat in skipped - {view.seat}:
            assert not determinize(view, rng).hands[seat] & TRUMPS[view.trump]
            checked += 1
    assert checked > 20


def test_a_seat_that_folded_in_a_set_up_hand_never_gets_a_trump() -> None:
    # Hearts are trumps; all 17 are dealt. Seat 3 holds only a joker, plays it in the
    # first trick and is skipped in the second: it holds five non-trump fill cards.
    state = new_hand(
        {0: "AH KH QH JH TH 9H", 1: "8H 7H 6H 5H 4H", 2: "3H 2H JD 3D JK", 3: "JK"},
        dealer=3,
    )
    act(state, "bid 7", "pass", "pass", "pass", "trump H")
    while state.phase is LOOKING:
        state.apply(state.legal_actions()[-1])  # stop (or leave the last card)
    act(state, "play AH", "play 8H", "play 3H", "play JK", "play KH", "play 7H", "play 2H")
    view = state.view(0)
    assert view.to_move == 0 and len(view.tricks) == 2 and view.hand_sizes[3] == 5
    rng = random.Random(7)
    for _ in range(200):
        sample = determinize(view, rng)
        assert sample.view(0) == view
        assert not sample.hands[3] & TRUMPS[HEARTS]
        assert sample.hands[3] == sample.fill[3]


def test_hands_hold_only_trumps_between_naming_and_the_fill() -> None:
    rng = random.Random(2)
    checked = 0
    for seed in range(4):
        for _, view in views(heavy_walk(seed)):
            if view.phase in (DISCARDING, PICKING_UP):
                sample = determinize(view, rng)
                assert all(not hand & ~TRUMPS[view.trump] for hand in sample.hands)
                checked += 1
    assert checked >= 16


def test_non_trumps_in_a_hand_are_at_most_its_fill() -> None:
    rng = random.Random(3)
    checked = 0
    for _, view in views(games(range(40, 42))):
        if view.trump >= 0 and not view.stock_size and view.phase is not OVER:
            sample = determinize(view, rng)
            for seat in range(4):
                extra = sample.hands[seat] & ~TRUMPS[view.trump]
                assert extra.bit_count() <= view.fill_sizes[seat]
                assert not extra & ~sample.fill[seat]
            checked += 1
    assert checked > 100


def test_public_cards_never_go_to_hidden_places() -> None:
    rng = random.Random(4)
    for _, view in views(games(range(50, 52))):
        if not view.hand_number:
            continue
        sample = determinize(view, rng)
        hidden = mask_of(sample.stock) | mask_of(sample.look_cards) | sample.gone
        for seat in range(4):
            if seat != view.seat:
                hidden |= sample.hands[seat]
        played = mask_of(card for _, card in view.trick)
        played |= mask_of(card for trick in view.tricks for _, card in trick.plays)
        assert not (view.centre | played) & hidden
        assert sample.centre == view.centre
        for seat in range(4):  # a picked card stays with its picker (or left in its look)
            kept = view.picked[seat] & ~played & ~sample.hands[seat]
            assert not kept or (kept & sample.gone == kept and seat % 2 == view.bidder % 2)


def test_different_seeds_give_different_hidden_cards_and_a_seed_repeats() -> None:
    state = next(s for s in walk(7) if s.phase is PLAYING)
    view = state.view(state.to_move)
    samples = {tuple(determinize(view, random.Random(seed)).hands) for seed in range(20)}
    assert len(samples) > 10
    first, second = (determinize(view, random.Random(99)) for _ in range(2))
    assert first == second


def test_hidden_takes_are_point_cards_and_the_look_log_matches_the_view() -> None:
    rng = random.Random(11)
    takes = 0
    for _, view in views(games(range(60, 63))):
        if not view.look or view.trump < 0:
            continue
        sample = determinize(view, rng)
        for (seat, card, choice), event in zip(sample.look_log, view.look, strict=True):
            assert (seat, choice.move) == (event.seat, event.move)
            if choice.move is StockMove.TAKE:
                assert card in cards_in(TRUMPS[view.trump]) and choice.give_up is not None
                takes += seat != view.seat
    assert takes > 10


# --- set-up hands for the rare inferences ------------------------------------------------


def check_every_step(state: GameState, *texts: str, samples: int = 8) -> None:
    """Apply each action and, before and after each, sample every seat's view."""
    rng = random.Random(" ".join(texts))
    for text in ("", *texts):
        if text:
            act(state, text)
        for seat in range(4):
            view = state.view(seat)
            for _ in range(samples):
                sample, strict = sample_state(view, rng)
                assert strict, (text, seat)
                check_sample(sample, view, strict, state)


def test_a_bidder_whose_partner_led_first_holds_no_trump() -> None:
    # Seat 0 bids with no heart at all; every trump is dealt, so its fill and the stock
    # are non-trumps and its partner (seat 2) leads the first trick.
    state = new_hand(
        {1: "AH KH QH JH TH 9H", 2: "8H 7H 6H 5H 4H 3H", 3: "2H JD 3D JK JK"}, dealer=3
    )
    check_every_step(state, "bid 4", "pass", "pass", "pass", "trump H", "stop", "stop")
    assert state.to_move == 2
    check_every_step(state, "play 8H", "play 2H")
    rng = random.Random(1)
    for seat in (1, 2, 3):
        assert not determinize(state.view(seat), rng).hands[0] & TRUMPS[HEARTS]


def test_a_looker_left_without_trumps_gave_up_its_picked_card() -> None:
    # Seat 0 picks up the JH seat 1 discarded, gives it up to take the TH from the stock,
    # then plays out its trumps: once it is skipped, the JH can only be face down.
    state = new_hand(
        {0: "2H", 1: "AH KH QH JH 9H 8H 7H 6H", 2: "5H 4H JD 3D", 3: "JK JK"},
        stock="2C 3C 4C 5C 6C 7C 8C 9C TC JC TH 3H",
        dealer=3,
    )
    check_every_step(state, "bid 5", "pass", "pass", "pass", "trump H", "discard JH 9H")
    check_every_step(state, "pickup JH", "take JH", "stop", "stop")
    check_every_step(state, "play TH", "play AH", "play 5H", "play JK")
    check_every_step(state, "play KH", "play 4H", "play JK", "play 2H", "play QH", "play JD")
    view = state.view(1)
    assert view.picked[0] and not view.trick and view.tricks[-1].plays[-1][0] == 2
    for _ in range(20):
        sample = determinize(view, random.Random(_))
        assert sample.gone & view.picked[0] and not sample.hands[0] & TRUMPS[HEARTS]
    check_every_step(state, "play 8H", "play 3D")
    assert state.phase is DEAL


def test_a_seat_that_discarded_the_second_joker_alone_never_held_the_first() -> None:
    # Seat 1 holds only the second joker code and discards it: asked for JK, the engine
    # takes the first joker code from a seat that holds it, so seat 1 did not.
    state = new_hand(
        {0: "2H", 1: "JK2 AH KH QH JH TH 9H", 2: "5H 4H JD 3D", 3: "8H 7H 6H 3H"},
        dealer=3,
    )
    check_every_step(state, "bid 5", "pass", "pass", "pass", "trump H", "discard JK")
    assert state.discarded_down[1] == 1 << 53 and state.phase is PICKING_UP
    rng = random.Random(3)
    for seat in (0, 2, 3):
        for _ in range(30):
            assert not determinize(state.view(seat), rng).hands[1] >> JOKER & 1
    check_every_step(state, "pickup -", "pickup -", "pickup -", "stop", "stop", "play 2H")


# --- playing a sample out ------------------------------------------------------------------


def test_a_sample_plays_out_to_the_end_of_the_hand_with_all_points() -> None:
    rng = random.Random(8)
    count = 0
    for _, view in views(games(range(70, 73))):
        if view.phase in (DEAL, OVER):
            continue
        sample = determinize(view, rng).copy()
        while sample.current_seat() >= 0:
            sample.advance(rng.choice(sample.legal_actions()))
        assert_conserved(sample)
        result = sample.hand_results[-1]
        assert result.number == view.hand_number
        assert sum(result.points) + result.dead == TOTAL_POINTS
        count += 1
    assert count > 100


def test_the_deck_deals_the_sampled_hand() -> None:
    rng = random.Random(9)
    for _, view in views(walk(80)):
        if not view.hand_number:
            continue
        sample = determinize(view, rng)
        assert sorted(sample.deck) == list(range(DECK_SIZE))
        if view.trump < 0:
            dealt = GameState(view.options, first_dealer=view.dealer)
            dealt.deal(sample.deck)
            assert dealt.hands == sample.hands
            assert dealt.stock == sample.stock
