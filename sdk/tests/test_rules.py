"""One focused test per rule and per **Resolution** of docs/rules.md, on hand-built deals.

Most tests build an exact deal with ``pitch_testkit.new_hand`` (hands per seat, stock
order) and then drive the hand with actions in their text form. Hearts are trumps
unless a test says otherwise, so the Jick is ``JD`` and the off three ``3D``; cards a
test does not name are dead non-trumps (see ``build_deck``).
"""

from __future__ import annotations

import ast
import random
import subprocess
import sys
from pathlib import Path

import pytest

from pitch_sdk import rules, views
from pitch_sdk.actions import (
    PASS,
    Bid,
    Decision,
    Discard,
    IllegalActionError,
    InvalidActionError,
    NameTrump,
    PickUp,
    Play,
    StockChoice,
    StockMove,
    parse_action,
)
from pitch_sdk.cards import (
    HEARTS,
    JOKER,
    SECOND_JOKER,
    SUIT_LETTERS,
    TRUMPS,
    mask_of,
    parse_card,
    team_of,
)
from pitch_sdk.deck import deck_for
from pitch_sdk.options import RuleOptions
from pitch_sdk.progress import Phase, Termination
from pitch_sdk.rules import CHANCE, TERMINAL, GameState
from pitch_sdk.views import LookEvent
from pitch_testkit.hands import (
    act,
    build_deck,
    dealt_positions,
    legal,
    mask,
    names,
    new_hand,
    play_out_hand,
    skip_look,
)

# --- scenarios ------------------------------------------------------------------------
#
# Each scenario is a complete, hand-checked deal. The comments give the outcome that the
# tests below pin; the numbers come from docs/rules.md, not from running the engine.


def trump_chain(suit: str) -> list[str]:
    """The 17 trumps of ``suit``, highest first, as docs/rules.md lists them."""
    off = {"H": "D", "D": "H", "S": "C", "C": "S"}[suit]
    high = [f"{rank}{suit}" for rank in "AKQJ"] + [f"J{off}", "JK", "JK"]
    return high + [f"{rank}{suit}" for rank in "T9876543"] + [f"3{off}", f"2{suit}"]


def duel(first: str, second: str, suit: str = "H") -> GameState:
    """Only seats 1 and 2 hold trumps (six each, the named cards among them); seats 3
    and 0 hold none and fold. Seat 1 bids 4, names ``suit`` and leads the first trick.

    The trumps nobody is given go to the bottom of the stock and leave play unseen.
    """
    pool = trump_chain(suit)[::-1]  # lowest first
    wanted = {1: first.split(), 2: second.split()}
    for words in wanted.values():
        for word in words:
            pool.remove("JK" if word.upper() in ("JK", "JK2") else word)
    for seat in (1, 2):
        while len(wanted[seat]) < 6:
            wanted[seat].append(pool.pop(0))
    trump = SUIT_LETTERS.index(suit)
    state = new_hand({seat: " ".join(cards) for seat, cards in wanted.items()}, trump=trump)
    act(state, "bid 4", "pass", "pass", "pass", f"trump {suit}")
    skip_look(state)
    assert state.trumps_held(3) == state.trumps_held(0) == 0
    return state


def team_one_runs_out() -> dict:
    """Seat 1 bids 4 holding only AH and its partner seat 3 only 3D; team 0 holds the
    other 15 trumps. Seat 2 then seat 0 discard down (no point cards), seat 1 leads.

    Trick 1 (``first_trick_then_team_one_out``): AH 4H 3D 9H, won by seat 1: team 1
    takes A + off three = 4. Team 1 is then out of trumps, and team 0 scores the point
    cards it holds: J, Jick, both jokers, ten, three and deuce = 9. Nothing is dead.
    """
    return {1: "AH", 3: "3D", 0: "JH JD JK JK KH QH 9H", 2: "TH 3H 2H 8H 7H 6H 5H 4H"}


def team_one_about_to_run_out(**options) -> GameState:
    scores = options.pop("scores", (0, 0))
    state = new_hand(team_one_runs_out(), options=RuleOptions(**options), scores=scores)
    act(state, "bid 4", "pass", "pass", "pass", "trump H", "discard 8H 7H", "discard KH")
    skip_look(state)
    return state


def first_trick_then_team_one_out(**options) -> GameState:
    state = team_one_about_to_run_out(**options)
    act(state, "play AH", "play 4H", "play 3D", "play 9H")
    return state


def team_zero_holds_every_trump(dealer_bid: str, **options) -> GameState:
    """Seats 0 and 2 hold all 17 trumps; the dealer (seat 0) bids after three passes.

    They discard down only cards without points, seats 1 and 3 are filled with dead
    cards, and play never starts: team 1 is out of trumps, team 0 scores all 13.
    """
    scores = options.pop("scores", (0, 0))
    state = new_hand(
        {0: "AH KH QH JH JD JK JK TH 9H", 2: "8H 7H 6H 5H 4H 3H 3D 2H"},
        options=RuleOptions(**options),
        scores=scores,
    )
    act(state, "pass", "pass", "pass", dealer_bid, "trump H")
    act(state, "discard 8H 7H", "discard KH QH 9H")
    skip_look(state)
    return state


def team_one_holds_every_trump(dealer_bid: str = "bid 5", **options) -> GameState:
    """The mirror image: the dealer must bid with no trump at all; team 0 is out of
    trumps when play starts, so team 1 scores 13 and the dealer's team loses its bid."""
    state = new_hand(
        {1: "AH KH QH JH JD JK JK TH 9H", 3: "8H 7H 6H 5H 4H 3H 3D 2H"},
        options=RuleOptions(**options),
    )
    act(state, "pass", "pass", "pass", dealer_bid, "trump H")
    act(state, "discard KH QH 9H", "discard 8H 7H")
    skip_look(state)
    return state


def lead_passing_hand() -> GameState:
    """Seat 1 bids 4 with AH 9H 8H 7H; seat 2 holds 2H 5H, seat 3 only KH, seat 0
    JH TH 4H QH 6H. JD, both jokers, 3H and 3D sink to the stock and leave play (9 dead).

    Trick 1: 7H 2H KH 4H, won by seat 3 with its last trump: the deuce point goes to
    team 0 (seat 2 played it) and the lead passes to seat 1, seat 3's partner.
    Trick 2: AH 5H (seat 3 folded) 6H: seat 1 wins the ace.
    Trick 3: 9H (seats 2 and 3 folded) QH: seat 0 wins.  Trick 4: JH 8H: seat 0 wins the
    jack; team 1 is out, team 0 scores the TH it holds. Points 3 to 1, 9 dead: team 1
    (bid 4) loses 4, team 0 adds 3.
    """
    state = new_hand({1: "AH 9H 8H 7H", 2: "2H 5H", 3: "KH", 0: "JH TH 4H QH 6H"})
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    skip_look(state)
    return state


def look_hand() -> GameState:
    """Seat 1 bids 4; every seat holds three trumps, so the fill takes 12 dead cards
    and the bidder looks through the last six stock cards: 3H 5C JK 3D JD JK."""
    state = new_hand(
        {1: "AH KH QH", 2: "9H 8H 7H", 3: "6H 5H 4H", 0: "JH 2H TH"},
        stock_tail="3H 5C JK 3D JD JK",
    )
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    return state


def pickup_hand() -> GameState:
    """Seat 1 (bidder) holds nine trumps and must discard three: it discards TH, 3H (point
    cards) and 9H. Seat 2 holds two trumps, seat 3 five, seat 0 one."""
    state = new_hand({1: "AH KH QH JH TH 3H 9H 8H 7H", 2: "2H 6H", 3: "JD 5H 4H 3D JK", 0: "JK"})
    act(state, "bid 4", "pass", "pass", "pass", "trump H", "discard TH 3H 9H")
    return state


# --- the deal -------------------------------------------------------------------------


def test_deal_gives_three_cards_at_a_time_three_times_round_from_dealers_left() -> None:
    state = GameState()
    state.deal(range(54))
    assert state.hands[1] == mask_of([0, 1, 2, 12, 13, 14, 24, 25, 26])
    assert state.hands[2] == mask_of([3, 4, 5, 15, 16, 17, 27, 28, 29])
    assert state.hands[3] == mask_of([6, 7, 8, 18, 19, 20, 30, 31, 32])
    assert state.hands[0] == mask_of([9, 10, 11, 21, 22, 23, 33, 34, 35])


def test_deal_starts_with_the_player_left_of_a_dealer_other_than_seat_zero() -> None:
    state = GameState(first_dealer=2)
    state.deal(range(54))
    assert state.hands[3] == mask_of([0, 1, 2, 12, 13, 14, 24, 25, 26])
    assert state.hands[2] == mask_of([9, 10, 11, 21, 22, 23, 33, 34, 35])
    assert state.current_seat() == 3


def test_the_stock_is_the_other_eighteen_cards_in_their_shuffled_order() -> None:
    state = GameState()
    deck = deck_for("stock", 1)
    state.deal(deck)
    assert state.stock == tuple(deck[36:])
    assert all(hand.bit_count() == 9 for hand in state.hands)


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_build_deck_helper_deals_each_seat_the_hand_it_names(dealer: int) -> None:
    hands = {0: "AS KS", 1: "JK 2C", 2: "TH", 3: "JK 3D 4D 5D 6D 7D 8D 9D TD"}
    deck = build_deck(hands, stock="QC", stock_tail="AH", dealer=dealer)
    state = GameState(first_dealer=dealer)
    state.deal(deck)
    assert state.hands[0] & mask("AS KS") == mask("AS KS")
    assert state.hands[1] & mask("JK 2C") == mask("JK 2C")  # the first JK named is code 52
    assert state.hands[2] & mask("TH") == mask("TH")
    assert state.hands[3] == mask("JK2 3D 4D 5D 6D 7D 8D 9D TD")
    assert [deck[p] for p in dealt_positions(1, dealer)][:2] == [JOKER, parse_card("2C")]
    assert state.stock[0] == parse_card("QC") and state.stock[-1] == parse_card("AH")


def test_deal_passes_to_the_left_after_every_hand() -> None:
    state = GameState(RuleOptions(target=10_000))
    dealers = []
    for number in range(1, 6):
        state.deal(deck_for("rotation", number))
        dealers.append(state.dealer)
        play_out_hand(state)
    assert dealers == [0, 1, 2, 3, 0]


# --- bidding --------------------------------------------------------------------------


def dealt(options: RuleOptions | None = None, dealer: int = 0) -> GameState:
    state = GameState(options, first_dealer=dealer)
    state.deal(range(54))
    return state


def test_bidding_goes_round_once_from_dealers_left_and_ends_with_the_dealer() -> None:
    state = dealt(dealer=1)
    seats = []
    while state.decision() is Decision.BID:
        seats.append(state.current_seat())
        act(state, "bid 4" if not seats[1:] else "pass")
    assert seats == [2, 3, 0, 1]
    assert state.decision() is Decision.TRUMP


def test_a_bid_is_at_least_four_points() -> None:
    state = dealt()
    assert legal(state) == ["pass"] + [f"bid {n}" for n in range(4, 14)]
    with pytest.raises(IllegalActionError, match="bid 3 is not legal for seat 1"):
        act(state, "bid 3")


def test_a_bid_must_be_higher_than_every_earlier_bid() -> None:
    state = dealt()
    act(state, "bid 6", "pass")
    assert legal(state) == ["pass"] + [f"bid {n}" for n in range(7, 14)]
    for amount in (4, 6):
        with pytest.raises(IllegalActionError):
            act(state, f"bid {amount}")


def test_the_highest_possible_bid_is_thirteen() -> None:
    state = dealt()
    with pytest.raises(IllegalActionError, match="bid 14 is not legal"):
        act(state, "bid 14")


def test_after_a_thirteen_bid_only_pass_is_left_even_for_the_dealer() -> None:
    state = dealt()
    act(state, "bid 13")
    for seat in (2, 3, 0):
        assert state.current_seat() == seat
        assert state.legal_actions() == (PASS,)
        act(state, "pass")
    assert (state.bidder, state.bid) == (1, 13)


def test_dealer_must_bid_at_least_five_when_the_three_others_passed() -> None:
    state = dealt()
    act(state, "pass", "pass", "pass")
    assert state.current_seat() == 0
    assert legal(state) == [f"bid {n}" for n in range(5, 14)]
    for text in ("pass", "bid 4"):
        with pytest.raises(IllegalActionError):
            act(state, text)
    act(state, "bid 5")
    assert (state.bidder, state.bid) == (0, 5)


def test_dealer_may_pass_when_another_player_bid() -> None:
    state = dealt()
    act(state, "pass", "bid 4", "pass", "pass")
    assert (state.bidder, state.bid) == (2, 4)


def test_highest_bid_wins_and_its_bidder_names_any_of_the_four_suits() -> None:
    state = dealt()
    act(state, "bid 4", "bid 7", "pass", "pass")
    assert (state.bidder, state.bid) == (2, 7)
    assert state.current_seat() == 2
    assert state.decision() is Decision.TRUMP
    assert legal(state) == ["trump C", "trump D", "trump H", "trump S"]


def test_there_is_no_second_round_of_bidding() -> None:
    state = dealt()
    act(state, "bid 4", "bid 5", "pass", "pass")
    assert state.decision() is Decision.TRUMP
    assert [seat for seat, _ in state.bids] == [1, 2, 3, 0]


def test_dealer_cannot_equal_the_highest_bid_by_default() -> None:
    state = dealt()
    act(state, "bid 6", "pass", "pass")
    assert "bid 6" not in legal(state)
    with pytest.raises(IllegalActionError):
        act(state, "bid 6")


def test_dealer_steal_lets_the_dealer_take_the_highest_bid_at_equal_value() -> None:
    state = dealt(RuleOptions(dealer_steal=True))
    act(state, "bid 6", "pass", "pass")
    assert legal(state) == ["pass"] + [f"bid {n}" for n in range(6, 14)]
    act(state, "bid 6")
    assert (state.bidder, state.bid) == (0, 6)


def test_dealer_steal_is_offered_only_at_the_dealers_own_turn() -> None:
    state = dealt(RuleOptions(dealer_steal=True))
    act(state, "bid 6")
    assert "bid 6" not in legal(state)
    with pytest.raises(IllegalActionError):
        act(state, "bid 6")


def test_dealer_steal_can_take_a_thirteen_bid() -> None:
    state = dealt(RuleOptions(dealer_steal=True))
    act(state, "bid 13", "pass", "pass")
    assert legal(state) == ["pass", "bid 13"]
    act(state, "bid 13")
    assert state.bidder == 0


def test_dealer_steal_still_makes_the_dealer_bid_five_after_three_passes() -> None:
    state = dealt(RuleOptions(dealer_steal=True))
    act(state, "pass", "pass", "pass")
    assert legal(state) == [f"bid {n}" for n in range(5, 14)]


# --- trumps and their ranks -----------------------------------------------------------


def test_the_seventeen_trumps_are_the_suit_the_jick_the_off_three_and_both_jokers() -> None:
    for suit in "CDHS":
        assert TRUMPS[SUIT_LETTERS.index(suit)] == mask(" ".join(trump_chain(suit)))


def test_naming_trumps_discards_every_non_trump_face_up_without_a_decision() -> None:
    state = dealt()
    dealt_hands = list(state.hands)
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    trumps = TRUMPS[HEARTS]
    for seat in range(4):
        assert state.discarded[seat] == dealt_hands[seat] & ~trumps
        assert state.hands[seat] == dealt_hands[seat] & trumps | state.fill[seat]
    discarded = state.discarded
    assert state.centre == discarded[0] | discarded[1] | discarded[2] | discarded[3]
    assert state.decision() is Decision.STOCK  # no one was asked about the non-trumps


def test_jack_and_three_of_the_other_colour_are_not_trumps() -> None:
    state = new_hand({1: "AH JC JS 3C 3S"})
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    assert state.discarded[1] & mask("JC JS 3C 3S") == mask("JC JS 3C 3S")
    assert state.hands[1] & mask("AH") == mask("AH")


@pytest.mark.parametrize("suit", "CDHS")
@pytest.mark.parametrize("step", range(15))
def test_each_trump_beats_the_next_lower_one_whoever_leads(suit: str, step: int) -> None:
    chain = trump_chain(suit)
    del chain[6]  # one joker: the first played; the joker pair has its own tests
    higher, lower = chain[step], chain[step + 1]
    for first, second, winner in ((higher, lower, 1), (lower, higher, 2)):
        state = duel(first, second, suit)
        act(state, f"play {first}", f"play {second}")
        assert state.tricks[0].winner == winner, f"{first} then {second}"


def test_jick_beats_the_high_joker() -> None:
    state = duel("JK", "JD")
    act(state, "play JK", "play JD")
    assert state.tricks[0].winner == 2


def test_off_three_beats_the_deuce() -> None:
    state = duel("2H", "3D")
    act(state, "play 2H", "play 3D")
    assert state.tricks[0].winner == 2


@pytest.mark.parametrize("other", [card for card in trump_chain("H") if card != "2H"][:-1])
def test_the_deuce_is_the_lowest_trump(other: str) -> None:
    state = duel("2H", other)
    act(state, "play 2H", f"play {other}")
    assert state.tricks[0].winner == 2


@pytest.mark.parametrize("suit", "CDHS")
def test_jick_and_off_three_are_the_jack_and_three_of_the_same_colour(suit: str) -> None:
    off = {"H": "D", "D": "H", "S": "C", "C": "S"}[suit]
    state = duel(f"J{off}", "JK", suit)
    act(state, f"play J{off}", "play JK")
    assert state.tricks[0].winner == 1
    state = duel(f"3{off}", f"2{suit}", suit)
    act(state, f"play 3{off}", f"play 2{suit}")
    assert state.tricks[0].winner == 1


def test_first_joker_played_beats_the_second_in_the_same_trick() -> None:
    state = duel("JK", "JK")
    act(state, "play JK", "play JK")
    assert state.tricks[0].winner == 1


def test_first_joker_played_is_high_whichever_of_the_two_codes_it_is() -> None:
    state = duel("JK2", "JK")
    assert state.hands[1] >> SECOND_JOKER & 1 and state.hands[2] >> JOKER & 1
    act(state, "play JK", "play JK")
    assert state.tricks[0].plays == ((1, SECOND_JOKER), (2, JOKER))
    assert state.tricks[0].winner == 1


def test_second_joker_played_in_a_later_trick_still_beats_the_ten() -> None:
    state = duel("5H JK", "JK TH")
    act(state, "play 5H", "play JK")  # the High Joker
    assert state.tricks[0].winner == 2
    act(state, "play TH", "play JK")  # the Low Joker, a trick later
    assert state.tricks[1].winner == 1
    assert state.jokers_played == 2


def test_second_joker_played_in_a_later_trick_still_loses_to_the_jick() -> None:
    state = duel("5H JK", "JK JD")
    act(state, "play 5H", "play JK", "play JD", "play JK")
    assert state.tricks[1].winner == 2


def test_the_two_jokers_are_one_option_when_playing() -> None:
    state = duel("JK JK", "AH")
    assert legal(state).count("play JK") == 1
    assert len(state.legal_actions()) == 5  # six trumps, the jokers counted once


# --- points ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "points"),
    [("AH", 1), ("JH", 1), ("JD", 1), ("JK", 1), ("TH", 1), ("3H", 3), ("3D", 3)],
)
def test_point_cards_in_a_trick_go_to_the_team_that_wins_it(card: str, points: int) -> None:
    state = duel(card, "4H")
    act(state, f"play {card}", "play 4H")
    winner = state.tricks[0].winner
    assert state.taken[team_of(winner)] == points
    assert state.taken[1 - team_of(winner)] == 0


def test_cards_without_points_score_nothing() -> None:
    state = duel("KH", "QH")
    act(state, "play KH", "play QH")
    assert state.taken == (0, 0)


def test_both_jokers_score_one_point_each_for_the_trick_winner() -> None:
    state = duel("JK", "JK")
    act(state, "play JK", "play JK")
    assert state.taken == (0, 2)


def test_deuce_point_goes_to_the_team_that_played_it_not_to_the_trick_winner() -> None:
    state = duel("2H", "KH")
    act(state, "play 2H", "play KH")
    assert state.tricks[0].winner == 2
    assert state.taken == (0, 1)  # seat 1 (team 1) played the deuce


def test_deuce_played_by_the_losing_side_still_scores_for_that_side() -> None:
    state = duel("3H", "2H")
    act(state, "play 3H", "play 2H")
    assert state.tricks[0].winner == 1
    assert state.taken == (1, 3)  # the three to the winner, the deuce to seat 2's team


# --- discarding down to six -----------------------------------------------------------


def test_player_with_more_than_six_trumps_discards_the_extra_as_one_decision() -> None:
    state = new_hand({1: "AH KH QH JH TH 3H 9H 8H 7H"})
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    assert (state.current_seat(), state.decision()) == (1, Decision.DISCARD)
    options = state.legal_actions()
    assert len(options) == 84  # every 3 of the 9 trumps
    assert all(isinstance(a, Discard) and a.cards.bit_count() == 3 for a in options)
    act(state, "discard 9H 8H 7H")
    assert state.hands[1] & TRUMPS[HEARTS] == mask("AH KH QH JH TH 3H")
    assert state.discarded_down[1] == mask("9H 8H 7H")
    assert state.centre & mask("9H 8H 7H") == mask("9H 8H 7H")
    assert state.decision() is not Decision.DISCARD


def test_discarding_the_wrong_number_of_trumps_is_illegal() -> None:
    state = new_hand({1: "AH KH QH JH TH 3H 9H 8H"})
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    for text in ("discard 9H", "discard 9H 8H 3H", "discard -", "discard 9H 2C"):
        with pytest.raises(IllegalActionError):
            act(state, text)


def test_players_discard_down_in_seat_order_from_the_dealers_left() -> None:
    state = new_hand({0: "AH KH QH JH JD JK JK TH 9H", 2: "8H 7H 6H 5H 4H 3H 3D 2H"})
    act(state, "pass", "pass", "pass", "bid 5", "trump H")
    assert state.current_seat() == 2  # seat 2 comes before the dealer, seat 0
    act(state, "discard 8H 7H")
    assert state.current_seat() == 0
    assert state.decision() is Decision.DISCARD


def test_both_jokers_count_as_one_option_when_discarding() -> None:
    state = new_hand({1: "AH KH QH JH JK JK TH 9H"})
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    options = legal(state)
    # two of six distinct cards (15), one joker and one card (6), both jokers (1)
    assert len(options) == len(set(options)) == 22
    assert options.count("discard 9H JK") == 1
    act(state, "discard JK JK")
    assert state.discarded_down[1] == mask("JK JK")


def test_a_lone_joker_is_discarded_as_jk_whichever_code_is_held() -> None:
    state = new_hand({1: "AH KH QH JH JK2 TH 9H", 2: "JK"})
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    assert Discard(1 << JOKER) in state.legal_actions()
    assert Discard(1 << SECOND_JOKER) not in state.legal_actions()
    act(state, "discard JK")
    assert state.discarded_down[1] == 1 << SECOND_JOKER
    assert state.hands[2] >> JOKER & 1


# --- picking up discarded point cards ---------------------------------------------------


def test_pickup_offers_only_the_point_cards_another_player_discarded() -> None:
    state = pickup_hand()  # seat 1 discarded TH, 3H (points) and 9H (no points)
    assert state.current_seat() == 2
    assert state.decision() is Decision.PICKUP
    assert legal(state) == ["pickup -", "pickup 3H", "pickup TH", "pickup 3H TH"]
    for text in ("pickup 9H", "pickup 2C"):  # a discarded trump without points, a non-trump
        with pytest.raises(IllegalActionError):
            act(state, text)


def test_pickup_asks_in_seat_order_from_the_dealers_left() -> None:
    state = pickup_hand()
    asked = []
    while state.decision() is Decision.PICKUP:
        asked.append(state.current_seat())
        act(state, "pickup -")
    assert asked == [2, 3, 0]  # seat 1 discarded: it holds six and has nothing to take


def test_pickup_does_not_ask_a_player_who_already_holds_six() -> None:
    state = new_hand({1: "AH KH QH JH TH 3H 9H 8H", 2: "2H", 3: "JD 5H 4H 3D JK 6H", 0: "JK 7H"})
    act(state, "bid 4", "pass", "pass", "pass", "trump H", "discard TH 3H")
    asked = []
    while state.decision() is Decision.PICKUP:
        asked.append(state.current_seat())
        act(state, "pickup -")
    assert asked == [2, 0]  # seat 3 holds six trumps of its own


def test_pickup_fills_a_hand_only_up_to_six_cards() -> None:
    state = pickup_hand()
    act(state, "pickup -")
    assert state.current_seat() == 3  # five cards: room for one
    assert legal(state) == ["pickup -", "pickup 3H", "pickup TH"]


def test_picked_up_cards_move_from_the_centre_to_the_hand() -> None:
    state = pickup_hand()
    act(state, "pickup TH")
    assert state.hands[2] == mask("2H 6H TH")
    assert not state.centre & mask("TH")
    assert state.picked[2] == mask("TH")
    assert legal(state) == ["pickup -", "pickup 3H"]  # seat 3 sees what is left


def test_pickup_is_one_round_and_the_centre_then_scores_for_nobody() -> None:
    state = pickup_hand()
    act(state, "pickup TH", "pickup -", "pickup -")
    assert state.decision() is not Decision.PICKUP
    assert state.centre & mask("3H")
    skip_look(state)
    play_out_hand(state)
    result = state.hand_results[-1]
    assert result.dead == 3  # the 3H left in the centre
    assert sum(result.points) == 10


def test_players_are_not_asked_once_no_discarded_point_card_is_left() -> None:
    state = pickup_hand()
    act(state, "pickup 3H TH")
    assert state.decision() is not Decision.PICKUP


def test_both_jokers_in_the_centre_are_picked_up_as_identical_cards() -> None:
    state = new_hand({1: "AH KH QH JH JK JK TH 9H 8H", 2: "2H"})
    act(state, "bid 4", "pass", "pass", "pass", "trump H", "discard JK JK 8H")
    assert legal(state) == ["pickup -", "pickup JK", "pickup JK JK"]
    act(state, "pickup JK")
    assert (state.hands[2] & mask("JK JK")).bit_count() == 1
    assert (state.centre & mask("JK JK")).bit_count() == 1


def test_nobody_is_asked_to_pick_up_when_no_one_discarded_down() -> None:
    state = look_hand()
    assert state.decision() is Decision.STOCK


# --- the fill from the stock ----------------------------------------------------------


def test_fill_deals_from_the_stock_in_order_starting_left_of_the_dealer() -> None:
    hands = {3: "AH KH QH", 0: "9H 8H 7H", 1: "6H 5H 4H", 2: "JH 2H TH"}
    state = new_hand(hands, dealer=2)
    stock = state.stock
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    for seat, start in ((3, 0), (0, 3), (1, 6), (2, 9)):
        assert state.fill[seat] == mask_of(stock[start : start + 3])
        assert state.hands[seat].bit_count() == 6
    assert state.look_cards == stock[12:]


def test_filled_non_trumps_stay_in_the_hand_as_dead_cards_never_playable() -> None:
    state = lead_passing_hand()
    dead = state.fill[1] & ~TRUMPS[HEARTS]
    assert dead.bit_count() == 2
    assert state.hands[1] & dead == dead
    assert legal(state) == ["play 7H", "play 8H", "play 9H", "play AH"]
    for card in names(dead).split():
        with pytest.raises(IllegalActionError):
            act(state, f"play {card}")


def test_when_the_stock_runs_out_later_players_get_fewer_cards() -> None:
    state = new_hand(
        {1: "AH", 2: "KH", 3: "QH", 0: "JH"},
        stock="2C 3C 4C 5C 6C 3D JD 2H 3H 4H 5H 6H 7H 8H 9H TH JK JK",
    )
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    assert [hand.bit_count() for hand in state.hands] == [4, 6, 6, 6]
    assert state.fill[0] == mask("TH JK JK")


def test_when_the_stock_runs_out_the_last_players_may_get_no_card_at_all() -> None:
    state = new_hand({})  # no trumps dealt: every seat needs six
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    assert [hand.bit_count() for hand in state.hands] == [0, 6, 6, 6]
    assert state.fill[0] == 0


def test_there_is_nothing_to_look_through_when_the_fill_empties_the_stock() -> None:
    state = new_hand({})
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    assert state.decision() is Decision.PLAY
    assert state.look_cards == () and state.stock == ()
    assert state.look_log == ()


# --- the bidder's look through the stock ---------------------------------------------


def test_bidder_looks_through_what_is_left_of_the_stock_one_card_at_a_time() -> None:
    state = look_hand()
    assert (state.current_seat(), state.decision()) == (1, Decision.STOCK)
    view = state.view(1)
    assert view.look_card == parse_card("3H")
    assert view.look_remaining == 6


def test_a_turned_point_card_may_be_taken_in_exchange_for_any_card_in_hand() -> None:
    state = look_hand()
    hand = state.hands[1]
    takes = [f"take {card}" for card in names(hand).split()]
    assert legal(state) == [*takes, "leave", "stop"]


def test_taking_keeps_the_hand_size_and_the_card_given_up_leaves_play() -> None:
    state = look_hand()
    act(state, "take QH")
    assert state.hands[1] & mask("3H QH") == mask("3H")
    assert state.hands[1].bit_count() == 6
    assert state.gone == mask("QH")
    assert not state.centre & mask("QH")
    assert state.view(1).look_card == parse_card("5C")


def test_holding_both_jokers_gives_one_take_option_for_them() -> None:
    state = new_hand(
        {1: "AH KH JK JK", 2: "9H 8H 7H", 3: "6H 5H 4H", 0: "JH 2H TH"},
        stock_tail="3H QH 5C 3D JD",
    )
    act(state, "bid 4", "pass", "pass", "pass", "trump H", "leave", "leave")
    assert state.view(1).look_card == parse_card("3H")
    assert legal(state).count("take JK") == 1
    act(state, "take JK")
    assert (state.hands[1] & mask("JK JK")).bit_count() == 1
    assert (state.gone & mask("JK JK")).bit_count() == 1


def test_a_dead_card_from_the_fill_may_be_given_up() -> None:
    state = look_hand()
    dead = names(state.fill[1]).split()[0]
    act(state, f"take {dead}")
    assert state.gone == mask(dead)


def test_only_point_cards_may_be_taken() -> None:
    state = look_hand()
    act(state, "leave")  # 3H leaves play; 5C is turned next
    assert legal(state) == ["leave", "stop"]
    with pytest.raises(IllegalActionError):
        act(state, "take AH")


def test_a_card_not_held_cannot_be_given_up() -> None:
    state = look_hand()
    with pytest.raises(IllegalActionError):
        act(state, "take 9H")


def test_leaving_a_card_puts_it_out_of_play_and_turns_the_next() -> None:
    state = look_hand()
    act(state, "leave")
    assert state.gone == mask("3H")
    assert state.view(1).look_card == parse_card("5C")
    assert state.view(1).look_remaining == 5


def test_bidders_stop_passes_the_current_and_remaining_cards_to_the_partner() -> None:
    state = look_hand()
    act(state, "leave", "leave", "stop")  # stop on the first JK
    assert state.current_seat() == 3
    assert state.looker == 3
    view = state.view(3)
    assert view.look_card == JOKER
    assert view.look_remaining == 4
    assert state.look_cards == (JOKER, *map(parse_card, ["3D", "JD"]), SECOND_JOKER)


def test_partner_looks_the_same_way_and_may_take_point_cards() -> None:
    state = look_hand()
    act(state, "stop", "take 4H")
    assert state.hands[3] & mask("3H 4H") == mask("3H")
    assert state.gone == mask("4H")


def test_partners_stop_ends_the_look_and_the_remaining_cards_leave_play() -> None:
    state = look_hand()
    act(state, "leave", "stop", "stop")
    assert state.decision() is Decision.PLAY
    assert state.look_cards == ()
    assert state.gone == mask("3H 5C JK 3D JD JK")
    assert state.current_seat() == 1  # the bidder leads


def test_partner_is_not_offered_stop_on_the_last_card() -> None:
    state = look_hand()
    act(state, "stop", "leave", "leave", "leave", "leave")
    assert state.look_cards == (parse_card("JD"), SECOND_JOKER)
    assert "stop" in legal(state)
    act(state, "leave")
    assert state.look_cards == (SECOND_JOKER,)
    assert "stop" not in legal(state)
    assert "leave" in legal(state)


def test_bidder_may_stop_on_the_last_card_and_pass_it_to_the_partner() -> None:
    state = look_hand()
    act(state, "leave", "leave", "leave", "leave", "leave")
    assert "stop" in legal(state)
    act(state, "stop")
    assert state.current_seat() == 3
    assert state.view(3).look_card == SECOND_JOKER


def test_look_through_is_private_to_the_looker() -> None:
    state = look_hand()
    for seat in (0, 2, 3):
        assert state.view(seat).look_card is None
    act(state, "take QH")
    assert state.view(1).look == (LookEvent(1, StockMove.TAKE, parse_card("3H"), parse_card("QH")),)
    for seat in (0, 2, 3):
        assert state.view(seat).look == (LookEvent(1, StockMove.TAKE, None, None),)
        assert state.view(seat).hand_sizes[1] == 6
    act(state, "leave", "stop", "take 4H")  # the partner takes the JK, giving up 4H
    assert state.view(3).look[-1] == LookEvent(3, StockMove.TAKE, JOKER, parse_card("4H"))
    for seat in (0, 1, 2):
        assert state.view(seat).look[-1] == LookEvent(3, StockMove.TAKE, None, None)
        assert state.view(seat).look_card is None


def test_cards_given_up_in_the_look_are_dead_points() -> None:
    state = look_hand()
    act(state, "take AH", "stop", "stop")  # the ace of trumps leaves play; the rest too
    play_out_hand(state)
    # dead: AH (1), and JK, 3D, JD, JK that the partner stopped on (1 + 3 + 1 + 1)
    assert state.hand_results[-1].dead == 7


# --- play -----------------------------------------------------------------------------


def test_the_bidder_leads_the_first_trick() -> None:
    state = lead_passing_hand()
    assert (state.current_seat(), state.leader) == (1, 1)


def test_the_bidders_partner_leads_when_the_bidder_holds_no_trump() -> None:
    state = new_hand({2: "KH QH JH TH 9H 8H", 3: "AH 7H 6H", 0: "5H 4H 3H"})
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    skip_look(state)
    assert state.trumps_held(1) == 0
    assert (state.current_seat(), state.leader) == (3, 3)


def test_every_player_holding_a_trump_follows_in_turn_to_the_left() -> None:
    state = lead_passing_hand()
    seats = []
    for card in ("7H", "2H", "KH", "4H"):
        seats.append(state.current_seat())
        act(state, f"play {card}")
    assert seats == [1, 2, 3, 0]


def test_any_trump_may_be_played_there_is_no_duty_to_beat() -> None:
    state = lead_passing_hand()
    act(state, "play 7H", "play 2H", "play KH")
    assert legal(state) == ["play 4H", "play 6H", "play TH", "play JH", "play QH"]
    act(state, "play 4H")  # lower than the king that is winning
    assert state.tricks[0].winner == 3


def test_lead_passes_to_the_winners_partner_when_the_winner_holds_no_trump() -> None:
    state = lead_passing_hand()
    act(state, "play 7H", "play 2H", "play KH", "play 4H")
    assert state.tricks[0].winner == 3 and state.trumps_held(3) == 0
    assert (state.current_seat(), state.leader) == (1, 1)


def test_the_winner_of_a_trick_leads_the_next() -> None:
    state = lead_passing_hand()
    act(state, "play 7H", "play 2H", "play KH", "play 4H", "play AH", "play 5H", "play 6H")
    act(state, "play 9H", "play QH")
    assert state.tricks[-1].winner == 0
    assert (state.current_seat(), state.leader) == (0, 0)


def test_a_player_without_trumps_has_folded_and_is_skipped() -> None:
    state = lead_passing_hand()
    act(state, "play 7H", "play 2H", "play KH", "play 4H")  # seat 3 played its only trump
    seats = []
    for card in ("AH", "5H", "6H"):
        seats.append(state.current_seat())
        act(state, f"play {card}")
    assert seats == [1, 2, 0]
    assert [seat for seat, _ in state.tricks[1].plays] == [1, 2, 0]


def test_team_out_of_trumps_ends_the_hand_and_the_other_team_scores_held_points() -> None:
    state = first_trick_then_team_one_out()
    assert len(state.tricks) == 1
    assert state.hands[0] & mask("JH JD JK JK") and state.hands[2] & mask("TH 3H 2H")
    result = state.hand_results[-1]
    assert result.points == (9, 4)  # team 0: J, Jick, jokers, ten, three, deuce held
    assert state.current_seat() == CHANCE


def test_team_out_of_trumps_is_checked_when_play_starts() -> None:
    state = team_zero_holds_every_trump("bid 5")
    assert state.tricks == ()
    assert state.hand_results[-1].points == (13, 0)
    assert state.current_seat() == CHANCE


def test_team_out_gives_the_held_deuce_to_the_other_team() -> None:
    state = team_one_holds_every_trump()
    assert state.hands[3] & mask("2H")
    assert state.hand_results[-1].points == (0, 13)


def test_the_hand_ends_when_no_player_holds_a_trump() -> None:
    state = new_hand({1: "AH KH QH", 2: "JH TH 9H", 3: "8H 7H 6H", 0: "5H 4H 3H"})
    act(state, "bid 4", "pass", "pass", "pass", "trump H")
    skip_look(state)
    play_out_hand(state)
    assert len(state.tricks) == 3
    assert all(state.trumps_held(seat) == 0 for seat in range(4))
    assert len(state.hand_results) == 1


def test_a_trick_once_led_is_finished_before_the_team_out_check() -> None:
    state = team_one_about_to_run_out()
    act(state, "play AH", "play 4H", "play 3D")  # team 1 has just played its last trump
    assert state.current_seat() == 0 and not state.hand_results
    act(state, "play 9H")
    assert len(state.tricks) == 1 and len(state.hand_results) == 1


# --- scoring a hand -------------------------------------------------------------------


def test_points_taken_and_dead_points_make_thirteen() -> None:
    state = lead_passing_hand()
    play_out_hand(state)
    result = state.hand_results[-1]
    assert sum(result.points) + result.dead == 13


def test_a_whole_hand_with_folds_and_a_passed_lead_scores_as_worked_out_by_hand() -> None:
    state = lead_passing_hand()
    act(state, "play 7H", "play 2H", "play KH", "play 4H", "play AH", "play 5H", "play 6H")
    act(state, "play 9H", "play QH", "play JH", "play 8H")
    result = state.hand_results[-1]
    assert (result.points, result.dead) == ((3, 1), 9)
    assert [trick.winner for trick in state.tricks] == [3, 1, 0, 0]
    assert not result.made


def test_a_made_bid_adds_all_the_points_taken_not_only_the_bid() -> None:
    state = team_zero_holds_every_trump("bid 5")
    assert state.hand_results[-1].made
    assert state.scores == (13, 0)


def test_a_failed_bid_subtracts_the_bid_and_the_other_team_adds_its_points() -> None:
    state = lead_passing_hand()
    play_out_hand(state)
    result = state.hand_results[-1]
    assert result.bidder == 1 and result.points[1] < 4
    assert state.scores == (result.points[0], -4)


def test_the_other_team_adds_its_points_when_the_bid_is_made() -> None:
    state = first_trick_then_team_one_out()
    assert state.hand_results[-1].made
    assert state.scores == (9, 4)


def test_scores_can_be_negative() -> None:
    state = team_one_holds_every_trump()
    assert state.scores == (-5, 13)


def test_a_bid_made_exactly_counts_as_made() -> None:
    state = first_trick_then_team_one_out()  # team 1 bid 4 and took exactly 4
    assert state.hand_results[-1].points[1] == 4
    assert state.hand_results[-1].made


def test_scoring_bid_option_adds_only_the_bid_when_it_is_made() -> None:
    state = team_zero_holds_every_trump("bid 5", scoring="bid")
    assert state.scores == (5, 0)


def test_scoring_bid_option_still_subtracts_a_failed_bid_and_pays_the_other_team() -> None:
    state = team_one_holds_every_trump(scoring="bid")
    assert state.scores == (-5, 13)


# --- the end of the game --------------------------------------------------------------


def test_shooting_the_moon_wins_at_once_whatever_the_scores() -> None:
    state = team_zero_holds_every_trump("bid 13", scores=(0, 50))
    assert state.outcome is not None
    assert (state.outcome.termination, state.outcome.winner) == (Termination.MOON, 0)
    assert state.scores == (13, 50)  # scored as usual, and still far behind
    assert state.current_seat() == TERMINAL


def test_all_thirteen_points_without_a_thirteen_bid_is_no_moon() -> None:
    state = team_zero_holds_every_trump("bid 12")
    assert state.outcome is None
    assert state.scores == (13, 0)


def test_thirteen_points_taken_by_the_other_team_is_no_moon() -> None:
    state = team_one_holds_every_trump("bid 13")
    assert state.outcome is None
    assert state.scores == (-13, 13)


def test_game_goes_on_while_both_scores_are_below_fifty_five() -> None:
    state = first_trick_then_team_one_out(scores=(45, 0))
    assert state.scores == (54, 4)
    assert state.outcome is None
    assert (state.current_seat(), state.dealer) == (CHANCE, 1)


def test_a_team_reaching_fifty_five_wins_even_without_the_bid() -> None:
    state = first_trick_then_team_one_out(scores=(46, 0))
    assert state.scores == (55, 4)
    assert state.outcome is not None
    assert (state.outcome.termination, state.outcome.winner) == (Termination.TARGET, 0)


def test_when_both_teams_pass_fifty_four_in_one_hand_the_bidding_team_wins() -> None:
    state = first_trick_then_team_one_out(scores=(50, 51))
    assert state.scores == (59, 55)  # team 0 is ahead, but team 1 bid
    assert state.outcome is not None
    assert (state.outcome.termination, state.outcome.winner) == (Termination.TARGET, 1)


def test_target_option_sets_the_winning_score() -> None:
    state = first_trick_then_team_one_out(target=9)
    assert state.outcome is not None and state.outcome.winner == 0
    state = first_trick_then_team_one_out(target=10)
    assert state.outcome is None


def test_target_option_both_teams_over_it_goes_to_the_bidding_team() -> None:
    state = first_trick_then_team_one_out(target=4)
    assert state.outcome is not None and state.outcome.winner == 1


def test_hand_cap_ends_the_game_and_the_higher_score_wins() -> None:
    state = first_trick_then_team_one_out(hand_cap=1)
    assert state.outcome is not None
    assert (state.outcome.termination, state.outcome.winner) == (Termination.HAND_CAP, 0)


def test_hand_cap_with_equal_scores_is_a_draw() -> None:
    state = first_trick_then_team_one_out(hand_cap=1, scores=(0, 5))
    assert state.scores == (9, 9)
    assert state.outcome is not None
    assert (state.outcome.termination, state.outcome.winner) == (Termination.HAND_CAP, None)


def test_hand_cap_counts_hands_and_ends_after_the_last_one() -> None:
    state = GameState(RuleOptions(hand_cap=3, target=10_000))
    for number in (1, 2, 3):
        assert state.current_seat() == CHANCE
        state.deal(deck_for("cap", number))
        play_out_hand(state)
    assert state.outcome is not None
    assert state.outcome.termination is Termination.HAND_CAP
    assert state.hand_number == 3


def test_no_decision_is_left_once_the_game_is_over() -> None:
    state = team_zero_holds_every_trump("bid 13")
    assert state.legal_actions() == ()
    assert state.decision() is None
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.apply(PASS)
    with pytest.raises(IllegalActionError, match="no deal is due"):
        state.deal(range(54))


# --- rule options ---------------------------------------------------------------------


def test_rule_options_reject_unknown_values() -> None:
    with pytest.raises(ValueError, match="scoring"):
        RuleOptions(scoring="double")
    with pytest.raises(ValueError, match="target"):
        RuleOptions(target=0)
    with pytest.raises(ValueError, match="hand_cap"):
        RuleOptions(hand_cap=0)
    with pytest.raises(ValueError, match="dealer_steal"):
        RuleOptions(dealer_steal="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown rule option 'trumps'"):
        RuleOptions.from_dict({"trumps": 2})


def test_rule_options_read_from_text_and_round_trip_through_a_dict() -> None:
    options = RuleOptions().with_text(["scoring=bid", "dealer_steal=on", "target=21"])
    assert options == RuleOptions(scoring="bid", dealer_steal=True, target=21)
    assert RuleOptions.from_dict(options.to_dict()) == options
    with pytest.raises(ValueError, match="expected NAME=VALUE"):
        RuleOptions().with_text(["target"])
    with pytest.raises(ValueError, match="expected a whole number"):
        RuleOptions().with_text(["hand_cap=ten"])


# --- forfeit --------------------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_forfeit_ends_the_game_at_once_and_the_other_team_wins(seat: int) -> None:
    state = dealt()
    act(state, "bid 4")
    state.forfeit(seat)
    assert state.outcome is not None
    assert state.outcome.termination is Termination.FORFEIT
    assert state.outcome.winner == 1 - team_of(seat)
    assert state.outcome.forfeited_by == seat
    assert state.current_seat() == TERMINAL
    assert state.legal_actions() == ()


def test_pop_undoes_a_forfeit() -> None:
    state = dealt()
    before = state.key()
    state.forfeit(1)
    state.pop()
    assert state.key() == before
    assert state.outcome is None


def test_a_finished_game_cannot_be_forfeited() -> None:
    state = team_zero_holds_every_trump("bid 13")
    with pytest.raises(IllegalActionError, match="over"):
        state.forfeit(0)
    assert state.outcome is not None and state.outcome.termination is Termination.MOON


# --- forced decisions -----------------------------------------------------------------


def test_a_forced_decision_shows_as_a_single_legal_action() -> None:
    state = lead_passing_hand()
    act(state, "play 7H", "play 2H")
    assert state.legal_actions() == (Play(parse_card("KH")),)  # seat 3's only trump
    state = dealt()
    act(state, "bid 13")
    assert state.legal_actions() == (PASS,)


# --- errors ---------------------------------------------------------------------------


def test_an_action_of_the_wrong_kind_is_invalid_with_a_precise_message() -> None:
    state = dealt()
    with pytest.raises(InvalidActionError, match="seat 1 must make a bid decision, not play AS"):
        state.apply(Play(parse_card("AS")))
    with pytest.raises(InvalidActionError, match="must make a bid decision, not trump H"):
        state.apply(NameTrump(HEARTS))


def test_an_illegal_action_names_the_seat_and_the_legal_options() -> None:
    state = dealt()
    act(state, "bid 9")
    with pytest.raises(IllegalActionError, match=r"bid 8 is not legal for seat 2: legal are pass"):
        act(state, "bid 8")


def test_an_action_before_the_deal_is_illegal() -> None:
    with pytest.raises(IllegalActionError, match="deal first"):
        GameState().apply(PASS)


@pytest.mark.parametrize(
    "action",
    [
        pytest.param("pass", id="text-not-an-action"),
        pytest.param(Bid("7"), id="bid-amount-text"),  # type: ignore[arg-type]
        pytest.param(Bid(True), id="bid-amount-bool"),
        pytest.param(Play("AS"), id="play-card-text"),  # type: ignore[arg-type]
        pytest.param(Play(-1), id="play-card-negative"),
        pytest.param(Play(54), id="play-card-54"),
        pytest.param(NameTrump(4), id="trump-suit-4"),
        pytest.param(Discard(-1), id="discard-negative-mask"),
        pytest.param(PickUp("TH"), id="pickup-text"),  # type: ignore[arg-type]
        pytest.param(StockChoice(StockMove.TAKE), id="take-without-card"),
        pytest.param(StockChoice(StockMove.LEAVE, 3), id="leave-with-card"),
        pytest.param(StockChoice("stop"), id="stock-move-text"),  # type: ignore[arg-type]
    ],
)
def test_a_malformed_action_is_invalid_and_never_crashes(action: object) -> None:
    state = dealt()
    with pytest.raises(InvalidActionError, match=r"malformed|not an action"):
        state.apply(action)  # type: ignore[arg-type]


def test_a_malformed_take_at_a_stock_decision_is_invalid() -> None:
    state = look_hand()
    with pytest.raises(InvalidActionError, match="give_up"):
        state.apply(StockChoice(StockMove.TAKE))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bid x", "cannot read action 'bid x'"),
        ("bid 0", "cannot read action 'bid 0'"),
        ("play ZZ", "not a card name: 'ZZ'"),
        ("trump X", "not a suit: 'X'"),
        ("discard AH AH", "named twice"),
        ("take", "cannot read action 'take'"),
        ("pass 4", "expected one of 'pass'"),
        ("jump", "expected one of 'pass'"),
    ],
)
def test_malformed_action_text_is_invalid_with_a_precise_message(text: str, message: str) -> None:
    with pytest.raises(InvalidActionError, match=message):
        parse_action(text)


@pytest.mark.parametrize(
    ("deck", "why"),
    [
        (list(range(53)), "short"),
        ([*range(54), 0], "long"),
        ([0, *range(1, 53), 0], "duplicate"),
        ([*range(53), 54], "no such card"),
        ([float(card) for card in range(54)], "not card codes"),
        ([*range(53), "JK"], "a name"),
        (None, "not a sequence"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_deal_refuses_a_deck_that_is_not_an_order_of_the_54_cards(deck: object, why: str) -> None:
    state = GameState()
    with pytest.raises(InvalidActionError, match="54 card codes"):
        state.deal(deck)
    assert state.current_seat() == CHANCE and state.hand_number == 0


def test_deal_is_refused_while_a_seat_must_decide() -> None:
    state = dealt()
    with pytest.raises(IllegalActionError, match="no deal is due"):
        state.deal(range(54))


def test_decision_kind_follows_the_phase_and_is_none_before_the_deal() -> None:
    state = lead_passing_hand()
    assert state.phase is Phase.PLAY and state.decision() is Decision.PLAY
    assert GameState().decision() is None


# --- the engine's bookkeeping ---------------------------------------------------------


def states_at_every_stage() -> list[GameState]:
    """A fresh game, then every decision kind, a scored hand, a finished and a forfeited
    game."""
    scored = lead_passing_hand()
    play_out_hand(scored)
    forfeited = dealt()
    forfeited.forfeit(2)
    return [
        GameState(),
        dealt(),
        pickup_hand(),
        look_hand(),
        lead_passing_hand(),
        scored,
        team_zero_holds_every_trump("bid 13"),
        forfeited,
    ]


def test_the_field_list_names_every_field_a_game_state_has() -> None:
    """``rules._FIELDS`` must name every field but ``options`` and ``_stack``: pop, copy
    and key are written out from it, so a field left out would be silently shared by
    clones and never undone."""
    slots = [name for cls in GameState.__mro__ for name in getattr(cls, "__slots__", ())]
    assert sorted(slots) == sorted(["options", "_stack", *rules._FIELDS])
    assert len(set(rules._FIELDS)) == len(rules._FIELDS)
    assert rules._LIST_FIELDS.issubset(rules._FIELDS)
    for state in states_at_every_stage():
        assert not hasattr(state, "__dict__")  # no field can be added without a slot
        assert [name for name in slots if not hasattr(state, name)] == []


def test_clear_hand_resets_exactly_the_hand_fields() -> None:
    state = lead_passing_hand()
    game = [getattr(state, name) for name in rules._GAME_FIELDS]
    state._clear_hand()
    fresh = GameState()
    assert [getattr(state, name) for name in rules._GAME_FIELDS] == game
    for name in rules._HAND_FIELDS:
        assert getattr(state, name) == getattr(fresh, name), name


@pytest.mark.parametrize("name", rules._FIELDS)
def test_copy_key_and_pop_each_cover_the_field(name: str) -> None:
    state = look_hand()
    changed = [9, 9, 9, 9] if name in rules._LIST_FIELDS else ("changed", name)
    clone = state.copy()
    assert clone == state and clone.key() == state.key()
    setattr(clone, name, changed)
    assert clone.key() != state.key()
    assert getattr(clone.copy(), name) == changed
    clone._push_snapshot()
    setattr(clone, name, ("changed again", name))
    clone.pop()
    assert getattr(clone, name) == changed
    assert getattr(state, name) != changed


def test_only_the_list_fields_hold_a_mutable_value() -> None:
    """Snapshots and clones share every other value with the state: each must be
    immutable (hashable here), and the lists must be their own."""
    for state in states_at_every_stage():
        clone, snapshot = state.copy(), state._snapshot()
        for index, name in enumerate(rules._FIELDS):
            value = getattr(state, name)
            if name in rules._LIST_FIELDS:
                assert type(value) is list
                assert getattr(clone, name) is not value and snapshot[index] is not value
            else:
                hash(value)  # raises for a list, a dict, a set or a mutable record


def test_a_move_does_not_change_a_copy_or_the_snapshot_it_leaves() -> None:
    state = look_hand()
    clone = state.copy()
    before = state.key()
    state.push(state.legal_actions()[0])  # takes 3H: changes hands[1] in place
    assert state.key() != before and clone.key() == before
    state.pop()
    assert state.key() == before and clone == state


# --- the engine's modules -------------------------------------------------------------


def test_views_do_not_import_the_engine() -> None:
    """The engine imports ``views``; ``views`` takes what it needs from ``progress`` and
    names ``rules`` only for a type checker, so the two modules do not import each other."""
    code = "import sys, pitch_sdk.views; print('pitch_sdk.rules' in sys.modules)"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert loaded.stdout.strip() == "False", loaded.stderr

    tree = ast.parse(Path(views.__file__).read_text())
    type_only = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    hidden = {id(inner) for block in type_only for inner in ast.walk(block)}
    imported = [
        "." * node.level + (node.module or "")
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and id(node) not in hidden
    ]
    imported += [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ]
    assert not [name for name in imported if name in (".rules", "pitch_sdk.rules")]


def test_an_apply_that_is_not_undoable_plays_the_same_and_keeps_no_step_to_undo():
    rng = random.Random(11)
    undoable, recorded = GameState(), GameState()
    before_deal = recorded.key()
    for state in (undoable, recorded):
        state.deal(deck_for(11, 1))
    for _ in range(12):
        action = rng.choice(undoable.legal_actions())
        undoable.apply(action)
        recorded.apply(action, undoable=False)
        assert recorded.key() == undoable.key()
    recorded.pop()  # the deal's step is the last one kept
    assert recorded.key() == before_deal
