// The strategy: one function per kind of decision, each choosing among the legal actions.
//
// This is the file to change to make the bot play better. Every function gets the seat's
// view (view.hand, view.trump, view.trick, ...: the PlayerView of pitch.proto, decoded
// with the zeros filled in) and the request's legal actions, and returns ONE OF THOSE
// ACTIONS, unchanged. Choosing rather than building an answer is what keeps the bot legal:
// the referee lists every option (a lone joker is always written 52, a discard is the
// whole set at once), so nothing here has to re-derive the rules.
//
// The play follows the ideas of the Python greedy bot (sdk/pitch_sdk/bots/greedy.py):
// bid what the hand can expect to take, keep point cards, capture points with cards that
// surely win, dump point cards on the partner's sure tricks, and otherwise throw the
// cheapest card (the deuce first: its point belongs to whoever plays it).

"use strict";

const { JOKER, SUITS, TABLES, cardsIn, partner, teamOf, seatsFrom } = require("./cards");

// DECISION_* and STOCK_MOVE_* of pitch.proto (the protocol is loaded with enums: Number).
const Decision = { BID: 1, TRUMP: 2, DISCARD: 3, PICKUP: 4, STOCK: 5, PLAY: 6 };
const StockMove = { TAKE: 1, LEAVE: 2, STOP: 3 };

// What each trump is for, by role: "A", "K", "Q", "J" (jack of trumps), "jick", "JK"
// (a joker), "T" (ten), "3", "o3" (off three), "2" (deuce), "low" (nine to four), and
// "dead" for a card that is not a trump.
function role(card, trump) {
  const table = TABLES[trump];
  if (card >= JOKER) return "JK";
  if (table.strength[card] < 0) return "dead";
  if (card === table.jick) return "jick";
  if (card === table.offThree) return "o3";
  return RANK_ROLE[card % 13] ?? "low";
}
const RANK_ROLE = { 12: "A", 11: "K", 10: "Q", 9: "J", 8: "T", 1: "3", 0: "2" };

// Points a bidding team gains from each trump in the bidder's nine cards: the weights the
// Python greedy bot fitted on self-play. High cards count most because what wins tricks
// decides where the points go; the deuce is a sure point for whoever holds it.
const BID_WEIGHT = {
  A: 2.0, K: 1.65, Q: 1.4, J: 1.2, jick: 0.7, JK: 0.45, T: 0.3,
  3: 0.3, o3: 0.3, 2: 0.85, low: 0.5, dead: 0.0,
};
// The partner and the stock are worth this much on their own; each trump beyond three
// adds length (the longer side keeps its point cards), and each beyond six is discarded.
const BID_BASE = 4.8;
const BID_LENGTH = 0.2;
const BID_OVERLONG = -0.35;
const BID_CAP = 10; // the estimate is too rough to stake more
const PARTNER_GAP = 2; // overbidding the partner only raises the team's stake
const BID_SHADE = 1; // bid a little under the estimate: shutting others out is worth some risk

// How much holding a card is worth when choosing what to keep (discard, pick-up, stock):
// sure or likely points first, then capturing power; a low trump is only length.
const KEEP_VALUE = {
  A: 1.6, K: 1.0, Q: 0.8, J: 1.3, jick: 1.2, JK: 1.1, T: 0.9,
  3: 1.8, o3: 1.6, 2: 1.0, low: 0.3, dead: 0.0,
};

/** Worth of holding `card` with `trump` named; ties among low trumps go to the stronger. */
function keepValue(card, trump) {
  return KEEP_VALUE[role(card, trump)] + 0.01 * TABLES[trump].strength[card];
}

/** Points the team can expect if this seat bids and names `trump` with this hand. */
function handValue(hand, trump) {
  const trumps = cardsIn(hand).filter((card) => TABLES[trump].strength[card] >= 0);
  const weights = trumps.reduce((sum, card) => sum + BID_WEIGHT[role(card, trump)], 0);
  const length = trumps.length;
  return BID_BASE + weights + BID_LENGTH * Math.max(0, length - 3)
    + BID_OVERLONG * Math.max(0, length - 6);
}

/** The suit to name with this hand, and what it is expected to take. A tie goes to the
 * higher suit number, as in the greedy bot, so that the two name the same suit. */
function bestSuit(hand) {
  let best = { suit: 0, value: -Infinity };
  for (const suit of SUITS) {
    const value = handValue(hand, suit);
    if (value >= best.value) best = { suit, value };
  }
  return best;
}

/** Compare two score lists such as [points, -strength]: the first difference decides. */
function compareScores(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** The action with the highest score, a number or a list of numbers (the first on ties). */
function maxBy(actions, score) {
  const asList = (action) => [score(action)].flat();
  let best = actions[0];
  let bestScore = asList(best);
  for (const action of actions.slice(1)) {
    const value = asList(action);
    if (compareScores(value, bestScore) > 0) [best, bestScore] = [action, value];
  }
  return best;
}

// --- bidding and trumps ------------------------------------------------------------------

/** Bid when the hand's expected points clear the lowest legal bid. A made bid scores the
 * points taken whatever its size, so a higher bid only buys protection from later bidders. */
function bid(view, legal) {
  const amounts = legal.map((action) => action.bid).filter((amount) => amount > 0);
  const lowest = Math.min(...amounts);
  const pass = legal.find((action) => action.bid === 0); // a pass is {bid: 0}: 0 is a value
  const bidOf = (amount) => legal.find((action) => action.bid === amount);
  if (!pass) return bidOf(lowest); // the dealer after three passes must bid
  let target = Math.min(Math.floor(bestSuit(view.hand).value), BID_CAP);
  if (view.bidder >= 0 && view.bidder === partner(view.seat)) target -= PARTNER_GAP;
  if (amounts.length === 0 || target < lowest) return pass;
  // Scoring "bid": a made bid scores only the bid, so bid all the hand is worth.
  if (view.rules.scoring === "bid") return bidOf(target);
  // The dealer bids last: nobody can outbid it, so the lowest bid wins the contract.
  if (view.seat === view.dealer) return bidOf(lowest);
  return bidOf(Math.max(lowest, target - BID_SHADE));
}

/** Name the suit the bid was made on (all four are always legal). */
function nameTrump(view, legal) {
  const { suit } = bestSuit(view.hand);
  return legal.find((action) => action.trump === suit);
}

// --- discard, pick-up and the look through the stock -----------------------------------

/** What holding every card of a set is worth. */
function setValue(mask, trump) {
  return cardsIn(mask).reduce((sum, card) => sum + keepValue(card, trump), 0);
}

/** Throw out the trumps least worth keeping (point cards face up invite pick-ups). */
function discard(view, legal) {
  return maxBy(legal, (action) => -setValue(action.discard, view.trump));
}

/** Take every point card there is room for, the most valuable first. */
function pickUp(view, legal) {
  return maxBy(legal, (action) => setValue(action.pickup, view.trump));
}

/** Take point cards for dead or weak cards; a bidder with nothing dead to give up hands
 * the rest of the stock to the partner, who likely holds dead cards from the fill. */
function look(view, legal) {
  const trump = view.trump;
  const card = view.look_card; // set for this decision, and it may be 0 (the two of clubs)
  const moves = (move) => legal.filter((action) => action.stock.move === move);
  const takes = moves(StockMove.TAKE); // one per card that could be given up
  const [leave] = moves(StockMove.LEAVE);
  const [stop] = moves(StockMove.STOP);
  const weakestValue = Math.min(...cardsIn(view.hand).map((c) => keepValue(c, trump)));
  const deadInHand = cardsIn(view.hand).some((c) => TABLES[trump].strength[c] < 0);
  const handOn = !deadInHand && view.seat === view.bidder
    && view.fill_sizes[partner(view.seat)] > 0 && stop;
  if (handOn) return stop;
  if (takes.length && keepValue(card, trump) > weakestValue) {
    return maxBy(takes, (action) => -keepValue(action.stock.give_up, trump));
  }
  return leave ?? stop;
}

// --- play ----------------------------------------------------------------------------------

// A joker still to come is assumed below any joker already played (it will be played
// later, so it is the low one): above the ten, below the Jick.
const UNSEEN_JOKER = 9.5;

/** What this seat knows about the trick in progress and the trumps still out. */
function readTrick(view) {
  const table = TABLES[view.trump];
  const { seats, cards } = view.trick;
  // The first joker played in a hand is the high one: count the jokers before this trick.
  let jokers = view.jokers_played - cards.filter((card) => card >= JOKER).length;
  let best = -1;
  let bestSeat = -1;
  let stake = 0;
  cards.forEach((card, i) => {
    let value = table.strength[card];
    if (card >= JOKER) value = 11 - jokers++;
    if (value > best) [best, bestSeat] = [value, seats[i]];
    if (card !== table.deuce) stake += table.points[card]; // the deuce scores for its player
  });

  // Trumps that cannot beat us: played, face up in the centre, in our hand or known to be
  // in the partner's (picked up from the centre), or put out of play in our own look.
  let gone = BigInt(view.centre) | BigInt(view.hand) | BigInt(view.picked[partner(view.seat)]);
  for (const trick of [...view.tricks, view.trick]) {
    for (const card of trick.cards) gone |= 1n << BigInt(card);
  }
  for (const event of view.look) {
    if (event.seat !== view.seat || event.card === undefined) continue;
    const out = event.move === StockMove.TAKE ? event.give_up : event.card;
    gone |= 1n << BigInt(out);
  }
  const unseen = cardsIn(table.trumps & ~gone);
  const unseenTop = Math.max(-1, ...unseen.map((c) => (c >= JOKER ? UNSEEN_JOKER : table.strength[c])));

  // An opponent still to play in this trick may beat us, unless it held no trump in the
  // last completed trick (a seat out of trumps is skipped, and stays out).
  const last = view.tricks.length ? view.tricks[view.tricks.length - 1].seats : [0, 1, 2, 3];
  const leader = seats.length ? seats[0] : view.seat;
  const order = seatsFrom(leader);
  const after = order.slice(order.indexOf(view.seat) + 1);
  const opponentsAfter = after.some((s) => teamOf(s) !== teamOf(view.seat) && last.includes(s));

  const strength = (card) => (card >= JOKER ? 11 - view.jokers_played : table.strength[card]);
  return {
    leading: cards.length === 0,
    best,
    stake,
    partnerWinning: bestSeat === partner(view.seat),
    unseenTop,
    strength,
    /** Whether a card of this strength, now best in the trick, keeps it. */
    secure: (value) => !opponentsAfter || value > unseenTop,
    /** Points this card hands over if it falls in a lost trick (the deuce: none). */
    atRisk: (card) => (card === table.deuce ? 0 : table.points[card]),
  };
}

/** Lead top trumps; capture points; dump point cards on a partner's sure trick;
 * otherwise throw the cheapest card (no points at risk, then the weakest). */
function play(view, legal) {
  const trick = readTrick(view);
  const cardOf = (action) => action.play; // may be 0: the two of clubs
  const cheapest = () => maxBy(legal, (a) => [-trick.atRisk(cardOf(a)), -trick.strength(cardOf(a))]);
  // The highest card among `actions` that risks the most points: a sure winner should
  // carry points home, and the strongest can wait for a later trick.
  const carry = (actions) => maxBy(actions, (a) => [trick.atRisk(cardOf(a)), -trick.strength(cardOf(a))]);
  const tops = legal.filter((a) => trick.strength(cardOf(a)) > trick.unseenTop);

  if (trick.leading) return tops.length ? carry(tops) : cheapest();

  if (trick.partnerWinning && trick.secure(trick.best)) {
    const dumps = legal.filter((a) => trick.atRisk(cardOf(a)) > 0 && !tops.includes(a));
    return dumps.length ? carry(dumps) : cheapest();
  }
  const winners = legal.filter((a) => trick.strength(cardOf(a)) > trick.best);
  const sure = winners.filter((a) => trick.secure(trick.strength(cardOf(a))));
  if (sure.length && trick.stake) return carry(sure);
  if (winners.length && trick.stake && !trick.partnerWinning) {
    return maxBy(winners, (a) => trick.strength(cardOf(a)));
  }
  return cheapest();
}

const BY_DECISION = {
  [Decision.BID]: bid,
  [Decision.TRUMP]: nameTrump,
  [Decision.DISCARD]: discard,
  [Decision.PICKUP]: pickUp,
  [Decision.STOCK]: look,
  [Decision.PLAY]: play,
};

/**
 * The action to answer a DecisionRequest with: one of `request.legal_actions`, unchanged.
 * @throws {Error} for a decision kind this protocol version does not have.
 */
function decide(request) {
  const { view, legal_actions: legal } = request;
  const choose = BY_DECISION[view.decision];
  if (!choose) throw new Error(`unknown decision kind ${view.decision}`);
  return choose(view, legal);
}

module.exports = { decide, Decision, StockMove, handValue, bestSuit, keepValue, role };
