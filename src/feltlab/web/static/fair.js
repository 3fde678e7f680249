// The fairness proof, checked in the page with WebCrypto: the server's exact seed -> deck
// mapping (feltlab.server.fairness): HMAC-SHA256 keyed by the 32-byte server seed over
// "<client seed>:<counter>", read as 32-bit big-endian words; randbelow(n) rejects words
// at or above the largest multiple of n below 2^32; Fisher-Yates from the top over the
// deck in card order (suit * 13 + rank; suits s h d c; ranks 2..A). At a shared table the
// round's client seed is the SHA-256 (hex) of the lines "SEAT:SEED\n" of the seats that
// gave a seed, in seat order ("" when none did): feltlab.server.fairness.combine_client_seeds.
"use strict";

const RANKS = "23456789TJQKA";
const SUITS = "shdc";
const WORD_RANGE = 2 ** 32;

function hexBytes(hex) {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error("a server seed is 64 lowercase hex digits");
  return Uint8Array.from(hex.match(/../g), (pair) => parseInt(pair, 16));
}

function toHex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function commitmentOf(seedHex) {
  return toHex(await crypto.subtle.digest("SHA-256", hexBytes(seedHex)));
}

/** A shared round's client seed from its seats' seeds ({"1": "alice", "2": "", ...}). */
export async function mixedClientSeed(seeds) {
  const text = Object.entries(seeds).filter(([, seed]) => seed)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([seat, seed]) => `${seat}:${seed}\n`).join("");
  return text ? toHex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))) : "";
}

class WordStream {
  constructor(key, clientSeed) {
    this.key = key; this.prefix = clientSeed + ":"; this.counter = 0; this.words = [];
  }

  async next() {
    if (!this.words.length) {
      const message = new TextEncoder().encode(this.prefix + String(this.counter));
      this.counter += 1;
      const view = new DataView(await crypto.subtle.sign("HMAC", this.key, message));
      for (let start = 0; start < 32; start += 4) this.words.push(view.getUint32(start, false));
    }
    return this.words.shift();
  }
}

async function randbelow(stream, n) {
  const limit = WORD_RANGE - (WORD_RANGE % n);
  for (;;) {
    const word = await stream.next();
    if (word < limit) return word % n;
  }
}

export function cardText(index) {
  return RANKS[index % 13] + SUITS[Math.floor(index / 13)];
}

/** The round's deck, top card first, from the revealed seeds. */
export async function deckFromSeed(seedHex, clientSeed) {
  const key = await crypto.subtle.importKey("raw", hexBytes(seedHex),
    { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const stream = new WordStream(key, clientSeed || "");
  const order = Array.from({ length: 52 }, (_, index) => index);
  for (let top = order.length - 1; top > 0; top -= 1) {
    const pick = await randbelow(stream, top + 1);
    [order[top], order[pick]] = [order[pick], order[top]];
  }
  return order.map(cardText);
}

/** Where the deal layout (from the rule card) puts each hand's cards in the deck. */
export function expectedHands(deck, layout, seats) {
  const hands = { community: [], dealer: [], seats: {} };
  let next = 0;
  for (const part of layout) {
    const owners = part.per_seat ? seats : [null];
    for (const seat of owners) {
      const cards = deck.slice(next, next + part.count);
      next += part.count;
      if (part.to === "player") hands.seats[seat] = cards;
      else hands[part.to] = cards;
    }
  }
  return hands;
}

function sameCards(shown, expected) {
  return shown.length === expected.length && shown.every((card, i) => card === expected[i]);
}

/** Check a complete round: the seed against the commitment, then every card shown. */
export async function verifyRound(round, layout) {
  if (!round.seed) return { ok: false, text: "The seed is revealed once the round is complete." };
  const commitment = await commitmentOf(round.seed);
  if (commitment !== round.commitment) {
    return { ok: false, text: `The seed does not match the commitment (its SHA-256 is ${commitment}).` };
  }
  if (round.client_seeds) {
    const mixed = await mixedClientSeed(round.client_seeds);
    if (mixed !== (round.client_seed || "")) {
      return { ok: false, text: `The round's client seed is not the mix of the seats' seeds (${mixed || "none"}).` };
    }
  }
  const deck = await deckFromSeed(round.seed, round.client_seed);
  const seats = [round.seat, ...(round.others || []).map((other) => other.seat)]
    .filter((seat) => seat !== null && seat !== undefined).sort((a, b) => a - b);
  const expected = expectedHands(deck, layout, seats);
  const split = (text) => (text || "").split(/\s+/).filter(Boolean);
  const checks = [["your cards", split(round.cards.player), expected.seats[round.seat] || []]];
  if (round.cards.dealer) checks.push(["the dealer's cards", split(round.cards.dealer), expected.dealer]);
  if (round.cards.community) checks.push(["the community cards", split(round.cards.community), expected.community]);
  for (const other of round.others || []) {
    if (other.player) checks.push([`seat ${other.seat}'s cards`, split(other.player), expected.seats[other.seat] || []]);
  }
  let count = 0;
  for (const [what, shown, wanted] of checks) {
    if (!sameCards(shown, wanted.slice(0, shown.length))) {
      return { ok: false, text: `Mismatch: ${what} were ${shown.join(" ")}, the seed deals ${wanted.join(" ")}.`, deck };
    }
    count += shown.length;
  }
  const mixed = round.client_seeds ? "the seats' seeds mix into the round's client seed, " : "";
  return { ok: true, deck, text: `Verified in this page: SHA-256 of the seed is the commitment shown ` +
    `before the deal, ${mixed}and all ${count} cards dealt are where the seed's deck puts them.` };
}
