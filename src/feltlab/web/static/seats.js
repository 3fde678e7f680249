// Shared tables: the seats around the felt (who sits, who has bet, whose turn, each
// seat's decisions and result), the betting-window and decision timers, and the seat
// buttons. Everything shown comes from the table's live view (GET /api/v1/tables/{id} or
// its WebSocket): a seat's cards appear only once the server sends them, at the reveal.
import { el, signed, resultClass, cardsNode, splitCards } from "/static/common.js";

// The engine's own actions; every other entry of a round's log is a decision of its game.
const NOT_DECISIONS = new Set(["PlaceWager", "ChooseColour", "Deal", "Reveal", "Settle"]);

/** A decision in the log in words: "folded", "raise 10", "pull back". */
function decisionWords(action) {
  if (action.type === "Fold") return "folded";
  const kind = action.type.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  return action.amount ? `${kind} ${action.amount}` : kind;
}

function sum(wagers) {
  return Object.values(wagers || {}).reduce((total, amount) => total + amount, 0);
}

/** The seat's view in the round: the caller's own round fields, or an entry of `others`. */
function inRound(round, seat) {
  if (!round) return null;
  if (round.seat === seat) {
    return { seat, wagers: round.wagers, total: round.total,
             player: round.phase === "complete" ? round.cards.player : undefined };
  }
  return (round.others || []).find((other) => other.seat === seat) || null;
}

/** The seat's decisions so far, in words ("raise 10"; "bet 5, bet 10, folded"). */
function decisionsSoFar(round, seat) {
  return (round.log || []).filter((action) => action.seat === seat && !NOT_DECISIONS.has(action.type))
    .map(decisionWords).join(", ");
}

/** What a seat is doing now, in words. */
export function seatStatus(round, seat) {
  const hand = inRound(round, seat);
  if (!round || (round.phase === "complete" && !hand)) return "choosing bets";
  if (!hand) return round.phase === "wagers" ? "no bet yet" : "sits out this round";
  const staked = `wagers ${sum(hand.wagers)}`;
  if (round.phase === "wagers") return staked;
  if (round.phase === "complete") {
    const decided = decisionsSoFar(round, seat);
    return decided ? `${staked} · ${decided}` : staked;
  }
  if (round.to_act === seat) return `${staked} · to act`;
  return `${staked} · ${decisionsSoFar(round, seat) || "waits"}`;
}

function seatCards(item, hand, view) {
  const label = `Seat ${item.seat} cards`;
  if (view && view.player) {
    return [cardsNode(view.player.cards, label), el("span", { class: "seat-hand" }, view.player.describe)];
  }
  return [cardsNode(splitCards(hand.player).map((text) => ({ text })), label)];
}

function seatNode(item, round, mySeat, views) {
  const hand = inRound(round, item.seat);
  const complete = round && round.phase === "complete";
  const turn = round && round.phase === "decisions" && round.to_act === item.seat;
  const you = item.seat === mySeat;
  const name = you ? `${item.player} (you)` : item.player;
  const cards = complete && hand && hand.player && !you ? seatCards(item, hand, views[item.seat]) : "";
  const result = complete && hand && hand.total !== undefined && hand.total !== null
    ? el("span", { class: `seat-result ${resultClass(hand.total)}` }, signed(hand.total)) : "";
  return el("li", { class: `seat${turn ? " turn" : ""}${you ? " you" : ""}`,
                    id: `seat-${item.seat}`, "aria-current": turn ? "true" : false },
    el("span", { class: "seat-name" }, `Seat ${item.seat}: ${name}`),
    el("span", { class: "seat-status" }, seatStatus(round, item.seat), result ? " " : "", result),
    cards);
}

/** The seats around the felt (occupied ones, in seat order); `views` holds the other
 * seats' revealed hands as POST /api/v1/display lays them out, by seat. */
export function seatRing(table, round, mySeat, views = {}) {
  const seated = [...(table.seated || [])].sort((a, b) => a.seat - b.seat);
  if (!seated.length) return [el("li", { class: "seat empty" }, "No one sits here yet.")];
  return seated.map((item) => seatNode(item, round, mySeat, views));
}

/** The colour a seat chose (9 Card Flush), from the round's public log. */
export function seatColour(round, seat) {
  const chosen = (round.log || []).filter((action) => action.type === "ChooseColour" && action.seat === seat);
  return chosen.length ? chosen[chosen.length - 1].colour : null;
}

/** Seconds left before the round's deadline (never negative), or null without one. */
export function secondsLeft(round, clockOffset = 0) {
  if (!round || !round.deadline || !["wagers", "decisions"].includes(round.phase)) return null;
  const left = (Date.parse(round.deadline) - (Date.now() + clockOffset)) / 1000;
  return Math.max(0, Math.ceil(left));
}

/** The timer's words: the betting window, or whose turn and how long is left (never more
 * than the window itself: the clock offset is known to a second or two). */
export function timerText(table, round, mySeat, clockOffset = 0) {
  const span = round && round.phase === "wagers" ? table.betting_seconds : table.decision_seconds;
  const estimate = secondsLeft(round, clockOffset);
  const left = estimate === null ? null : Math.min(estimate, span);
  if (left === null) {
    if (table.status !== "open") return "This table is closed to new bets.";
    return `Betting opens with the first bet: ${table.betting_seconds} s to bet, ` +
      `${table.decision_seconds} s per decision.`;
  }
  // At 0 the deadline has passed and the server acts on it within a moment: say so, rather
  // than leave a count that no longer counts.
  if (round.phase === "wagers") {
    if (left === 0) return "Betting is closed: the deal is coming.";
    return round.seat !== null ? `Bets are in. The deal comes in ${left} s, or when every seat has bet.`
      : `Betting closes in ${left} s.`;
  }
  if (round.to_act === mySeat) {
    return left ? `Your turn: ${left} s left to decide (then you fold).` : "Your time is up: you fold.";
  }
  const who = (table.seated || []).find((item) => item.seat === round.to_act);
  const name = `Seat ${round.to_act}${who ? ` (${who.player})` : ""}`;
  return left ? `${name} to act: ${left} s.` : `${name}: time is up (a fold).`;
}

/** "Sit at seat N" buttons for the free seats, or "Leave seat" for a seated player. */
export function seatButtons(table, mySeat, sit, leave) {
  if (table.status !== "open" && mySeat === null) return [];
  if (mySeat !== null) {
    return [el("span", { class: "hint light" }, `You sit at seat ${mySeat}.`),
            el("button", { type: "button", class: "btn", onclick: leave }, "Leave seat")];
  }
  const taken = new Set((table.seated || []).map((item) => item.seat));
  const free = [];
  for (let seat = 1; seat <= table.seats; seat += 1) {
    if (!taken.has(seat)) {
      free.push(el("button", { type: "button", class: "btn go", onclick: () => sit(seat) },
        `Sit at seat ${seat}`));
    }
  }
  return free.length ? [el("span", { class: "hint light" }, "Take a seat to play:"), ...free]
    : [el("span", { class: "hint light" }, "Every seat is taken: watch, or come back later.")];
}
