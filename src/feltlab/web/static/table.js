// The player's table: the felt (felt.js) for the rule set, with the balance in the
// header, at a shared table the seats around it, its timers and live updates, and the
// strategy trainer beside it. The server decides everything: limits are refused by it,
// options come from the round, results from its settlement.
import { api, el, header, ruleCard, say, refreshBalance, serverClockOffset, store,
         keep } from "/static/common.js";
import { state, status, configure, drawFelt, wireControls, show, render, focusNext,
         lastRounds, stale, decisionButtons, optionFor, wagerByName } from "/static/felt.js";
import { seatRing, seatButtons, seatColour, timerText } from "/static/seats.js";

const tableId = Number(window.location.pathname.split("/").pop());
Object.assign(state, {
  lastWagers: store(`rebet:${tableId}`, null), seat: null, updates: Promise.resolve(),
  seatViews: {}, seatViewsFor: null,
  advice: null, adviceFor: null, judged: false,
  score: null,  // the strategy trainer's score at this rule set, kept by the server
});

configure({
  async showing(round) {
    if (round && round.phase === "decisions" && round.options.length && trainerOn()) await advise();
    if (state.table.shared) await revealSeats(round);
  },
  rendered() { renderAdvice(); renderSeats(); },
  deciding(body) { return trainerOn() ? judge(body) : null; },
  async answered() { await refreshBalance(); },
  remember(wagers) { keep(`rebet:${tableId}`, wagers); },
});

// --- seats and live updates --------------------------------------------------------------

/** The other seats' hands laid out by the server once the round is over (and revealed). */
async function revealSeats(round) {
  if (!round || round.phase !== "complete") { state.seatViews = {}; state.seatViewsFor = null; return; }
  if (state.seatViewsFor === round.id) return;
  const views = {};
  for (const other of round.others || []) {
    if (!other.player) continue;
    const cards = { player: other.player };
    if (round.cards.community) cards.community = round.cards.community;
    views[other.seat] = await api("POST", "/display", { rules: state.card.id, cards,
      colour: state.card.colours.length ? seatColour(round, other.seat) : null });
  }
  state.seatViews = views; state.seatViewsFor = round.id;
}

function renderSeats() {
  const shared = state.table.shared;
  for (const id of ["seat-ring", "timer"]) document.getElementById(id).hidden = !shared;
  if (!shared) return;
  document.getElementById("seat-ring").replaceChildren(
    ...seatRing(state.table, state.round, state.seat, state.seatViews));
  document.getElementById("seat-actions").replaceChildren(
    ...seatButtons(state.table, state.seat, sit, leave));
  tick();
}

function tick() {
  const node = document.getElementById("timer");
  node.textContent = timerText(state.table, state.round, state.seat, serverClockOffset());
  node.classList.toggle("urgent", /\b[0-5] s\b/.test(node.textContent) && !node.textContent.startsWith("Betting opens"));
}

async function sit(seat) {
  try {
    state.table = { ...state.table, ...(await api("POST", `/tables/${tableId}/seats`, { seat })) };
    findSeat();
    render();
    say(status, `You sit at seat ${seat}. Place your chips, then press Place bets.`);
  } catch (error) { say(status, error.message, true); }
}

async function leave() {
  try {
    state.table = { ...state.table, ...(await api("DELETE", `/tables/${tableId}/seats`)) };
    findSeat();
    render();
    say(status, "You left your seat. Take a seat to play again.");
  } catch (error) { say(status, error.message, true); }
}

function findSeat() {
  const mine = (state.table.seated || []).find((item) => item.player === state.username);
  state.seat = state.table.shared ? (mine ? mine.seat : null) : 1;
}

async function applySnapshot(snapshot) {
  state.table = snapshot;
  findSeat();
  if (stale(snapshot.round)) { render(); return; }
  const finished = snapshot.round && snapshot.round.phase === "complete" &&
    !(state.round && state.round.id === snapshot.round.id && state.round.phase === "complete");
  const idle = [document.body, status, null].includes(document.activeElement);
  await show(snapshot.round);
  if (finished) await Promise.all([lastRounds(), refreshBalance()]);
  const round = snapshot.round;
  if (idle && round && (round.phase === "complete" ? round.seat !== null
    : round.to_act === state.seat && round.options.length)) focusNext();
}

function live() {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${window.location.host}/api/v1/tables/${tableId}/live`);
  socket.addEventListener("message", (event) => {
    const snapshot = JSON.parse(event.data);  // one update at a time, in order
    state.updates = state.updates.then(() => applySnapshot(snapshot))
      .catch((error) => say(status, error.message, true));
  });
  socket.addEventListener("close", () => setTimeout(live, 3000));
}

// --- the strategy trainer ----------------------------------------------------------------

function trainerOn() { return store("trainer:on", false); }
function showEvsNow() {
  const mode = document.querySelector("input[name=ev-when]:checked").value;
  return mode === "before" || state.judged;
}

function adviceInput(round) {
  const ante = round.wagers[state.card.main_wager];
  const body = { rules: state.card.id, ante, player: round.cards.player || "",
                 community: round.cards.community || "" };
  if (state.card.colours.length) body.colour = round.colour;
  if (state.card.advice_takes_bets) body.bets = round.decisions.map((amount) => amount / ante);
  return body;
}

async function advise() {
  const round = state.round;
  const key = `${round.id}:${round.decisions.length}`;
  if (state.adviceFor === key) return;
  state.adviceFor = key; state.judged = false;
  try {
    state.advice = await api("POST", "/advice", adviceInput(round));
    document.getElementById("verdict").textContent = "";
    drawAdvice();
  } catch (error) { say(status, error.message, true); }
}

/** The trainer's EV under each open decision, the best one outlined. */
function renderAdvice() {
  const round = state.round;
  for (const button of decisionButtons()) {
    const option = round && !state.busy ? optionFor(button, round) : null;
    const advice = state.advice && trainerOn() && showEvsNow() ? adviceOption(button) : null;
    button.querySelector(".ev").textContent = advice && option
      ? `EV ${advice.ev >= 0 ? "+" : ""}${advice.ev.toFixed(3)}` : "";
    button.classList.toggle("advised", Boolean(advice && advice.best && option));
  }
}

function adviceOption(button) {
  return state.advice.options.find((option) => option.label === button.getAttribute("aria-label"));
}

function drawAdvice() {
  const box = document.getElementById("advice");
  if (!state.advice || !trainerOn() || !showEvsNow()) { box.replaceChildren(); return; }
  box.replaceChildren(el("table", { class: "pays", "aria-label": "Advisor's EVs" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Option"),
      el("th", { scope: "col", class: "num" }, "EV per unit"))),
    el("tbody", {}, state.advice.options.map((option) => el("tr", {},
      el("td", {}, option.label + (option.best ? " (best)" : "")),
      el("td", { class: "num" }, `${option.ev >= 0 ? "+" : ""}${option.ev.toFixed(4)}`))))));
}

async function judge(chosen) {
  if (!state.advice) return;
  const round = state.round;
  const input = adviceInput(round);
  try {
    const answer = await api("POST", "/advice", { ...input, chosen, record: true });
    const verdict = answer.verdict;
    state.judged = true;
    state.score = answer.score;
    const node = document.getElementById("verdict");
    node.className = `verdict ${verdict.right ? "right" : "wrong"}`;
    node.textContent = verdict.right ? `Right: ${verdict.chosen} is the best play.`
      : `Mistake: ${verdict.chosen} costs ${verdict.cost.toFixed(4)} units ` +
        `(${(verdict.cost * input.ante).toFixed(2)} chips); best was ${answer.best}.`;
    if (!verdict.right) {
      const mistakes = store("trainer:mistakes", []);
      mistakes.unshift({ rules: state.card.id, player: input.player, community: input.community,
        colour: input.colour ?? null, bets: input.bets || [], chosen: verdict.chosen,
        best: answer.best, cost: verdict.cost });
      keep("trainer:mistakes", mistakes.slice(0, 50));
    }
    drawScore();
    drawAdvice();
  } catch (error) { say(status, error.message, true); }
}

function drawScore() {
  const score = state.score;
  document.getElementById("trainer-score").textContent = score && score.total
    ? `Accuracy ${score.right} of ${score.total} (${(100 * score.right / score.total).toFixed(1)}%) · total cost ${score.cost.toFixed(3)} units`
    : "No decisions judged yet at this rule set.";
}

function drawTrainer() {
  const on = trainerOn();
  document.getElementById("trainer-switch").setAttribute("aria-checked", String(on));
  document.getElementById("trainer-body").hidden = !on;
  document.getElementById("drill-link").href = `/trainer?rules=${state.card.id}`;
  drawScore();
  drawAdvice();
}

document.getElementById("trainer-switch").addEventListener("click", async () => {
  keep("trainer:on", !trainerOn());
  drawTrainer();
  const round = state.round;
  if (trainerOn() && round && round.phase === "decisions" && round.options.length) await advise();
  render(); drawAdvice();
});
for (const radio of document.querySelectorAll("input[name=ev-when]")) {
  radio.addEventListener("change", () => { render(); drawAdvice(); });
}

// --- start -------------------------------------------------------------------------------

async function start() {
  wireControls();
  let table;
  try {
    table = await api("GET", `/tables/${tableId}`);
  } catch (error) {
    await header();
    say(status, `${error.message}. Sign in on the lobby page first.`, true);
    document.getElementById("deal").disabled = true;
    return;
  }
  const me = await header(table.currency);
  state.username = me ? me.username : "";
  state.table = table;
  // a published rule set is not among the cards inlined in the page: ask for its card
  state.card = ruleCard(table.rules) || await api("GET", `/rulecards/${encodeURIComponent(table.rules)}`);
  document.title = `feltlab: ${table.name}`;
  document.getElementById("game-title").textContent = table.name;
  document.getElementById("felt-note").textContent = state.card.max_aggregate_payout
    ? `Maximum payout per round ${state.card.max_aggregate_payout.toLocaleString("en-US")}`
    : (table.practice && !table.shared ? "Practice table against the house" : "");
  findSeat();
  state.score = me ? (await api("GET", "/me/trainer-scores")).strategy[state.card.id] ?? null : null;
  drawFelt(); drawTrainer();
  await show(table.round);
  if (!table.round && !table.shared) {
    say(status, `Pick a chip, press the ${wagerByName(state.card.main_wager).spot} spot (and any bonus), then Deal.`);
  }
  await lastRounds();
  if (table.shared) {
    document.getElementById("deal").textContent = "Place bets";
    live();
    setInterval(tick, 200);  // a count is never more than 0.2 s behind the clock
  }
}

start();
