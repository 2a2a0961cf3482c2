// Cards, card sets and the trump tables of 13-point pitch: plain numbers and BigInt masks.
//
// A card is a number 0-53: suit * 13 + rank (suits clubs 0, diamonds 1, hearts 2,
// spades 3; ranks two 0, three 1, ..., ten 8, jack 9, queen 10, king 11, ace 12), and
// the two identical jokers are 52 and 53.
//
// A set of cards travels as a 64-bit mask (bit c set when card c is in the set). The
// protocol is loaded with `longs: String`, so a mask arrives as a decimal string such as
// "9015997763814407". Every function here turns it into a BigInt before touching bits:
// JavaScript's `1 << c` and `&` on Numbers are 32-bit operations (cards 32-53 would
// vanish), and a Number holds integers exactly only up to 2^53 (a mask holding a joker
// is bigger than that, so the two of clubs in bit 0 would be rounded away).

"use strict";

const CLUBS = 0;
const DIAMONDS = 1;
const HEARTS = 2;
const SPADES = 3;
const SUITS = [CLUBS, DIAMONDS, HEARTS, SPADES];

const TWO = 0;
const THREE = 1;
const TEN = 8;
const JACK = 9;
const QUEEN = 10;
const KING = 11;
const ACE = 12;

const JOKER = 52;
const SECOND_JOKER = 53;
const DECK_SIZE = 54;

const RANK_LETTERS = "23456789TJQKA";
const SUIT_LETTERS = "CDHS";

/** The card of this rank and suit. */
function makeCard(rank, suit) {
  return suit * 13 + rank;
}

/** The other suit of the same colour (clubs and spades, diamonds and hearts). */
function offSuit(suit) {
  return 3 - suit;
}

/** The two-character name of a card, as records and the CLI write it ("AS", "TH", "JK"). */
function cardName(card) {
  if (card >= JOKER) return "JK";
  return RANK_LETTERS[card % 13] + SUIT_LETTERS[Math.floor(card / 13)];
}

/** Whether the set holds the card. `mask` may be a decimal string or a BigInt. */
function has(mask, card) {
  return ((BigInt(mask) >> BigInt(card)) & 1n) === 1n;
}

/** The cards of a set, lowest code first. */
function cardsIn(mask) {
  const bits = BigInt(mask);
  const cards = [];
  for (let card = 0; card < DECK_SIZE; card++) {
    if ((bits >> BigInt(card)) & 1n) cards.push(card);
  }
  return cards;
}

/** The set holding these cards, as a BigInt (send it back with `.toString()`). */
function maskOf(cards) {
  let mask = 0n;
  for (const card of cards) mask |= 1n << BigInt(card);
  return mask;
}

// Trump strength, higher wins (the engine's own scale, pitch_sdk.cards.STRENGTH): ace 16,
// king 15, queen 14, jack 13, Jick 12, the first joker played 11 and the second 10, ten 9,
// nine down to four 8 to 3, three 2, off three 1, deuce 0. A non-trump is -1.
const HIGH_JOKER_STRENGTH = 11;
const SUIT_STRENGTH = { [ACE]: 16, [KING]: 15, [QUEEN]: 14, [JACK]: 13, [TEN]: 9 };
const JICK_STRENGTH = 12;
const OFF_THREE_STRENGTH = 1;

/** The tables for one trump suit: which cards are trumps, their strength and points. */
function trumpTable(trump) {
  const strength = new Array(DECK_SIZE).fill(-1);
  const points = new Array(DECK_SIZE).fill(0);
  for (let rank = TWO; rank <= ACE; rank++) {
    // Ten down to three take 9 down to 2; the deuce is 0, below the off three.
    strength[makeCard(rank, trump)] = SUIT_STRENGTH[rank] ?? (rank >= THREE ? rank + 1 : 0);
  }
  const jick = makeCard(JACK, offSuit(trump));
  const offThree = makeCard(THREE, offSuit(trump));
  strength[jick] = JICK_STRENGTH;
  strength[offThree] = OFF_THREE_STRENGTH;
  strength[JOKER] = strength[SECOND_JOKER] = HIGH_JOKER_STRENGTH;
  const onePoint = [makeCard(ACE, trump), makeCard(JACK, trump), jick, JOKER, SECOND_JOKER];
  for (const card of [...onePoint, makeCard(TEN, trump), makeCard(TWO, trump)]) points[card] = 1;
  points[makeCard(THREE, trump)] = points[offThree] = 3;
  const trumps = maskOf(strength.flatMap((value, card) => (value >= 0 ? [card] : [])));
  return {
    trump,
    strength,
    points,
    trumps,
    jick,
    offThree,
    deuce: makeCard(TWO, trump),
    three: makeCard(THREE, trump),
  };
}

/** `TABLES[suit]`: the trump table for each suit, built once. */
const TABLES = SUITS.map(trumpTable);

/** Whether the card is a trump when `trump` is named. */
function isTrump(card, trump) {
  return TABLES[trump].strength[card] >= 0;
}

// Seats 0-3 play in order; partners sit opposite (team 0: seats 0 and 2).
const partner = (seat) => (seat + 2) % 4;
const teamOf = (seat) => seat % 2;
/** The four seats in playing order, starting with `first`. */
const seatsFrom = (first) => [0, 1, 2, 3].map((step) => (first + step) % 4);

module.exports = {
  CLUBS,
  DIAMONDS,
  HEARTS,
  SPADES,
  SUITS,
  TWO,
  THREE,
  TEN,
  JACK,
  QUEEN,
  KING,
  ACE,
  JOKER,
  SECOND_JOKER,
  DECK_SIZE,
  TABLES,
  makeCard,
  offSuit,
  cardName,
  has,
  cardsIn,
  maskOf,
  isTrump,
  partner,
  teamOf,
  seatsFrom,
};
