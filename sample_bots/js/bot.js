// The connection to the referee: load the contract, connect, say hello, answer requests.
//
// The referee starts this program with two environment variables: PITCH_ADDRESS (where
// to connect: "unix:/run/pitch/referee.sock" in the sandbox, "unix:///tmp/.../referee.sock"
// or "127.0.0.1:50051" elsewhere; gRPC takes every form as it is) and PITCH_TOKEN (which
// seat this process is). A bot started by hand gets them from `--address` and `--token`.
// The strategy lives in strategy.js; nothing here needs changing to play differently.

"use strict";

const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");
const { decide } = require("./strategy");
const { cardName, cardsIn } = require("./cards");

const NAME = "jsbot";
const VERSION = "1.0";
const PROTOCOL_VERSION = 1;
const CONNECT_TIMEOUT_MS = 30_000;

// The bot folder carries its own copy of the contract (pitch.proto, next to this file)
// because a submitted bot folder is copied alone: the repository's proto/ is not there.
// Resolved from this file, not from the working folder, so it loads from anywhere.
const PROTO = path.join(__dirname, "pitch.proto");

// These options are the protocol's traps, handled once, here:
// - defaults: proto3 does not send a field holding 0, so without this seat 0, dealer 0,
//   clubs (trump 0), the two of clubs (card 0), a pass (bid 0) and every empty list would
//   be missing. With it they read as 0 (or []), which is what they mean.
// - longs: String: masks and request ids are 64-bit. As Numbers they would lose cards
//   (a joker's bit is above 2^53); as strings they are exact. cards.js reads masks with
//   BigInt, and the request id is echoed as the very string that arrived.
// - enums: Number: decision 1..6 and stock moves 1..3 as the numbers pitch.proto gives.
// - oneofs: a field naming the member that is set (message.message === "request").
// - keepCase: the field names of pitch.proto (request_id, legal_actions).
const LOADER_OPTIONS = { keepCase: true, longs: String, enums: Number, defaults: true, oneofs: true };

const definition = protoLoader.loadSync(PROTO, LOADER_OPTIONS);
const pitch = grpc.loadPackageDefinition(definition).pitch.v1;

// Retry quickly if the referee is not listening yet: gRPC's first backoff is a second.
const CHANNEL_OPTIONS = {
  "grpc.initial_reconnect_backoff_ms": 20,
  "grpc.max_reconnect_backoff_ms": 500,
};

const debug = (process.env.PITCH_LOG_LEVEL ?? "").toUpperCase() === "DEBUG";

/** Log a line to stderr, which the referee keeps in the seat's log file. */
function log(text) {
  console.error(`${new Date().toISOString()} ${text}`);
}

/**
 * The bot's reply to one message from the referee, or null when none is due.
 * Only a DecisionRequest is answered; everything else is logged (briefly: the log is for
 * people, and work between decisions costs CPU time that the sandbox watches).
 */
function reply(message) {
  switch (message.message) {
    case "welcome":
      log(`connected to ${message.welcome.referee}`);
      return null;
    case "game_start": {
      const start = message.game_start;
      log(`game ${start.game_id}: playing seat ${start.seat}`);
      return null;
    }
    case "request":
      return { answer: answer(message.request) };
    case "game_end": {
      const { outcome, scores, game_id: gameId } = message.game_end;
      // winner is `optional`: undefined means a draw, and 0 is a win for team 0.
      const winner = outcome.winner === undefined ? "a draw" : `team ${outcome.winner} won`;
      log(`game ${gameId} over (${outcome.termination}): ${winner}, ${scores.join(" to ")}`);
      return null;
    }
    default:
      return null;
  }
}

/** The Answer to a DecisionRequest: its own request id and the strategy's action. */
function answer(request) {
  const action = decide(request);
  if (debug) {
    const hand = cardsIn(request.view.hand).map(cardName).join(" ");
    log(`request ${request.request_id} (decision ${request.view.decision}) hand ${hand}: ${JSON.stringify(action)}`);
  }
  // request_id is a decimal string (longs: String): send it back untouched. Number(...)
  // would round ids above 2^53, and the referee matches answers by id.
  return { request_id: request.request_id, action };
}

/** The address and token from the environment, or from --address/--token when started by hand. */
function settings(argv) {
  const option = (name) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  return {
    address: option("address") ?? process.env.PITCH_ADDRESS,
    token: option("token") ?? process.env.PITCH_TOKEN,
  };
}

/** Connect, send the hello, and play until the referee says stop. */
function main() {
  const { address, token } = settings(process.argv.slice(2));
  if (!address || !token) {
    log("no referee to connect to: set PITCH_ADDRESS and PITCH_TOKEN or pass --address and --token");
    process.exit(2);
  }
  const client = new pitch.Referee(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  client.waitForReady(Date.now() + CONNECT_TIMEOUT_MS, (error) => {
    if (error) {
      log(`no referee answered at ${address}: ${error.message}`);
      process.exit(2);
    }
    play(client, token);
  });
}

function play(client, token) {
  const stream = client.Play();
  let stopping = false;
  stream.write({ hello: { token, name: NAME, version: VERSION, protocol_version: PROTOCOL_VERSION } });

  stream.on("data", (message) => {
    if (message.message === "shutdown") {
      log(`referee says stop: ${message.shutdown.reason}`);
      stopping = true;
      stream.end();
      return;
    }
    let response;
    try {
      response = reply(message);
    } catch (error) {
      // A bug in the strategy: say where, and let the referee record the fault (the
      // process exits, so a fresh one plays the next game) rather than guess an answer.
      log(`cannot answer: ${error.stack}`);
      process.exit(1);
    }
    if (response) stream.write(response);
  });
  // The call ends after the shutdown with status OK; any other end is the referee's refusal
  // (a wrong token: UNAUTHENTICATED) or a lost connection.
  stream.on("status", (status) => {
    if (status.code !== grpc.status.OK && !stopping) {
      log(`the referee ended the stream: ${status.details}`);
      process.exit(1);
    }
    process.exit(0);
  });
  stream.on("error", (error) => {
    if (stopping) process.exit(0);
    log(`the referee ended the stream: ${error.message}`);
    process.exit(1);
  });
}

// Run as a program; tests load the module and call reply() without a referee.
if (require.main === module) main();

module.exports = { reply, answer, definition, LOADER_OPTIONS, PROTO };
