// The felt both table pages draw: bet spots named as the rules card names the wagers, a
// chip tray, Deal, the round's legal decisions, the hands and the settlement, the
// fairness proof and the last rounds at the table. The player's table page (table.js:
// shared seats, live updates, the strategy trainer) and the game page an operator frames
// (play.js) each add their own through `configure`. The server decides everything:
// limits are refused by it, options come from the round, results from its settlement.
import { api, el, rulesDetails, say, signed, resultClass, cardsNode } from "/static/common.js";
import { verifyRound } from "/static/fair.js";

export const CHIPS = [1, 5, 25, 100, 500];
export const status = document.getElementById("status");
/** The page's one table: the table and its round as last answered, the chips on the
 * spots (`bets`, `history` for Undo), the seat (1 at a private table). */
export const state = {
  table: null, card: null, chip: 5, bets: {}, history: [], colour: "red", round: null,
  view: null, viewKey: null, busy: false, lastWagers: null, seat: 1,
};

const hooks = {
  showing: async () => {},  // (round) a round about to be drawn: what the page adds to it
  rendered: () => {},  // after each drawing of the felt
  deciding: () => null,  // (body) a decision about to be sent: a promise awaited after it
  answered: async () => {},  // (round) a bet or a decision answered and shown
  refused: async () => {},  // (error) a refusal, already shown in the status line
  remember: () => {},  // (lastWagers) the wagers just dealt, for Rebet
};

/** Set the page's own steps (see `hooks` above). */
export function configure(page) { Object.assign(hooks, page); }

// --- drawing the felt --------------------------------------------------------------------

export function wagerByName(name) { return state.card.wagers.find((wager) => wager.name === name); }

function chipNode(value, extra = {}) {
  const denomination = CHIPS.filter((chip) => chip <= value).pop() || 1;
  return el("span", { class: `chip v${denomination}`, ...extra }, value.toLocaleString("en-US"));
}

function drawSpots() {
  const spots = document.getElementById("spots");
  spots.replaceChildren();
  for (const wager of state.card.wagers) {
    const describe = `spot-${wager.name}-limits`;
    // The button is named by its visible words alone; the chips on it lie over it, outside
    // it, so that its name is what it shows (the amount is in its description).
    const button = el("button", { type: "button", class: `spot${wager.required ? " required" : ""}`,
      id: `spot-${wager.name}-button`, "aria-describedby": describe,
      onclick: () => addChip(wager.name) },
      el("span", { class: "spot-name" }, wager.spot));
    spots.append(el("div", { class: "spot-wrap", id: `spot-${wager.name}` },
      el("div", { class: "spot-place" }, button, el("span", { class: "spot-stack", "aria-hidden": "true" })),
      el("span", { class: "spot-limits", id: describe },
        el("span", { class: "spot-bet" }),
        el("span", { class: "nowrap" }, `${wager.min}-${wager.max.toLocaleString("en-US")}`),
        wager.required ? " · required" : "")));
  }
  for (const wager of state.card.decision_wagers) {
    spots.append(el("div", { class: "spot-wrap" },
      el("div", { class: "spot decision", id: `spot-${wager.name}` },
        el("span", { class: "spot-name" }, wager.title), el("span", { class: "spot-stack" })),
      el("span", { class: "spot-limits" }, "by decision")));
  }
}

function drawTray() {
  const tray = document.getElementById("tray");
  tray.replaceChildren(el("span", { class: "hint", style: "color:#ddd" }, "Chip:"));
  for (const value of CHIPS) {
    tray.append(el("button", { type: "button", class: `chip v${value}`, "aria-label": `Chip ${value}`,
      "aria-pressed": String(value === state.chip), onclick: () => pickChip(value) }, value));
  }
}

function pickChip(value) {
  state.chip = value;
  for (const button of document.querySelectorAll("#tray button")) {
    button.setAttribute("aria-pressed", String(button.textContent === String(value)));
  }
}

function drawColours() {
  const box = document.getElementById("colour-choice");
  box.hidden = !state.card.colours.length;
  box.replaceChildren(...state.card.colours.map((colour) => el("button", {
    type: "button", class: colour, "aria-pressed": String(colour === state.colour),
    onclick: () => { state.colour = colour; drawColours(); render(); } },
  colour === "red" ? "Red" : "Black")));
}

function drawDecisions() {
  const box = document.getElementById("decisions");
  box.replaceChildren(...state.card.decisions.map((decision) => el("button", {
    type: "button", class: decision.action === "fold" ? "fold" : "", "aria-label": decision.label,
    "data-action": decision.action, "data-multiple": decision.multiple ?? "", disabled: true,
    onclick: () => decide(decision) }, decision.label, el("span", { class: "ev", "aria-hidden": "true" }))));
}

/** Draw the felt for `state.card` (once the table is known), the first chip the largest
 * one at or under the main wager's minimum (at least 5). */
export function drawFelt() {
  const main = wagerByName(state.card.main_wager);
  state.chip = CHIPS.filter((chip) => chip <= Math.max(main.min, 5) && chip <= main.max).pop() || 1;
  drawSpots(); drawTray(); drawColours(); drawDecisions();
  document.getElementById("pays").replaceChildren(...rulesDetails(state.card, 3));
}

// --- betting -----------------------------------------------------------------------------

/** A round waiting for its stake (its opening bet refused by an operator's wallet): no
 * round yet to the player, whose next bet goes into it. */
function waitingForStake(round) {
  return round.phase === "wagers" && (round.seat === null || round.seat === undefined);
}

/** No round yet at a private table (`round` is none, or one waiting for its stake). */
function noRoundYet(round) {
  return !round || (!state.table.shared && waitingForStake(round));
}

export function betting() {
  const round = state.round;
  if (state.table.shared) {
    return state.table.status === "open" && state.seat !== null &&
      (!round || round.phase === "complete" || waitingForStake(round));
  }
  return noRoundYet(round) || round.phase === "complete";
}

function addChip(name) {
  if (!betting()) return;
  const wager = wagerByName(name);
  const amount = (state.bets[name] || 0) + state.chip;
  if (amount > wager.max) {  // the rule card's posted limit; the server checks every bet
    say(status, `${wager.title}: ${amount} is over the table's limits ${wager.min}-${wager.max}. Pick a smaller chip.`, true);
    return;
  }
  state.bets[name] = amount;
  state.history.push([name, state.chip]);
  say(status, `${wager.title}: ${amount}.` +
    (amount < wager.min ? ` The minimum is ${wager.min}.` : ""));
  render();
}

function undo() {
  const last = state.history.pop();
  if (!last) return;
  const [name, amount] = last;
  state.bets[name] -= amount;
  if (state.bets[name] <= 0) delete state.bets[name];
  render();
}

function clearBets() { state.bets = {}; state.history = []; render(); }

function rebet() {
  if (!state.lastWagers) return;
  state.bets = { ...state.lastWagers.wagers };
  state.history = Object.entries(state.bets);
  if (state.lastWagers.colour) { state.colour = state.lastWagers.colour; drawColours(); }
  say(status, "Last round's wagers are back on the spots: press Deal.");
  render();
}

async function deal() {
  if (!betting() || state.busy) return;
  const missing = state.card.wagers.filter((wager) => wager.required && !state.bets[wager.name]);
  if (missing.length) {
    say(status, `Place the ${missing.map((w) => w.title).join(" and ")} first: pick a chip, then press its spot.`, true);
    return;
  }
  const body = { wagers: { ...state.bets } };
  if (state.card.colours.length) body.colour = state.colour;
  const seed = document.getElementById("client-seed").value.trim();
  if (seed) body.client_seed = seed;
  await send(async () => {
    const round = await api("POST", `/tables/${state.table.id}/rounds`, body, { idempotent: true });
    state.lastWagers = { wagers: { ...state.bets }, colour: body.colour || null };
    hooks.remember(state.lastWagers);
    state.bets = {}; state.history = [];
    return round;
  });
}

async function decide(decision) {
  const round = state.round;
  if (!round || state.busy) return;
  const ante = round.wagers[state.card.main_wager];
  const body = { action: decision.action };
  if (decision.multiple) body.amount = decision.multiple * ante;
  const after = hooks.deciding(body);
  await send(() => api("POST", `/rounds/${round.id}/actions`, body, { idempotent: true }));
  if (after) await after;
}

async function send(work) {
  state.busy = true; render();
  let answered = false;
  try {
    const round = await work();
    answered = true;
    if (!stale(round)) await show(round);
    await hooks.answered(round);
    if (round.phase === "complete") await lastRounds();
    if (!state.table.shared) await refreshNextCommitment();
  } catch (error) {
    say(status, error.message, true);
    await hooks.refused(error);
  } finally {
    state.busy = false; render();
    if (answered) focusNext();
  }
}

/** After Deal or a decision the button pressed is gone or disabled: put the focus on what
 * comes next, the first decision now open, else the round's result, else the status. */
export function focusNext() {
  const decision = decisionButtons().find((button) => !button.disabled && !button.closest("[hidden]"));
  const result = document.getElementById("round-result");
  (decision || result || status).focus();
}

/** Wire the felt's fixed buttons (Undo, Clear, Rebet, Deal, Verify). */
export function wireControls() {
  document.getElementById("undo").addEventListener("click", undo);
  document.getElementById("clear").addEventListener("click", clearBets);
  document.getElementById("rebet").addEventListener("click", rebet);
  document.getElementById("deal").addEventListener("click", deal);
  document.getElementById("verify").addEventListener("click", verify);
}

// --- showing a round -----------------------------------------------------------------------

function slots(count, label) {
  const list = el("ul", { class: "cards", "aria-label": label });
  for (let i = 0; i < count; i += 1) list.append(el("li", { class: "card slot", "aria-hidden": "true" }));
  return list;
}

function layoutCount(to) {
  return state.card.deal.filter((part) => part.to === to).reduce((sum, part) => sum + part.count, 0);
}

/** The round's cards as the server lays them out (asked again only when they change). */
async function layOut(round) {
  if (!round || !Object.keys(round.cards || {}).length) return null;
  const complete = round.phase === "complete";
  const key = JSON.stringify([round.id, round.cards, round.colour ?? null, complete]);
  if (state.viewKey === key) return state.view;
  const view = await api("POST", "/display", { rules: state.card.id, cards: round.cards,
    colour: round.colour ?? null, round: complete ? round : null });
  state.viewKey = key;
  return view;
}

/** Draw `round` (null: none yet) and say what the player can do now. */
export async function show(round) {
  state.round = round;
  state.view = await layOut(round);
  await hooks.showing(round);
  render();
  if (round || state.table.shared) narrate(round);
}

/** The status line: what the player can do now (``round`` is null before the first). */
function narrate(round) {
  if (state.table.shared && state.seat === null) {
    say(status, state.table.status === "open" ? "Take a seat to play: press a Sit at seat button."
      : "This table is closed to new bets.");
  } else if (noRoundYet(round)) {
    say(status, `No round yet: place your chips, then ${dealName()}.`);
  } else if (state.table.shared && round.seat === null && round.phase !== "complete") {
    say(status, round.phase === "wagers" ? "Betting is open: place your chips, then Place bets."
      : "A round is being played; you bet in the next betting window.");
  } else if (round.phase === "complete") {
    say(status, round.seat === null ? `Round over. Place your chips for the next round, then ${dealName()}.`
      : `Round over: ${signed(round.total)}. Place your chips for the next round (or Rebet), then ${dealName()}.`);
  } else if (round.options.length) {
    const labels = decisionButtons().filter((button) => optionFor(button, round))
      .map((button) => button.getAttribute("aria-label"));
    say(status, `Choose: ${either(labels)}.`);
  } else if (round.phase === "wagers") {
    say(status, "Bets are in; waiting for the other players.");
  } else {
    say(status, `Waiting for seat ${round.to_act ?? "…"}.`);
  }
}

/** "A", "A or B", "A, B or C": the options open, one to be chosen. */
function either(labels) {
  return labels.length > 1 ? `${labels.slice(0, -1).join(", ")} or ${labels[labels.length - 1]}`
    : labels.join("");
}

function dealName() { return state.table.shared ? "Place bets" : "Deal"; }

export function decisionButtons() { return [...document.querySelectorAll("#decisions button")]; }

export function optionFor(button, round) {
  const ante = round.wagers[state.card.main_wager];
  return round.options.find((option) => option.action === button.dataset.action &&
    (button.dataset.multiple === "" || option.amount === Number(button.dataset.multiple) * ante));
}

function renderHands() {
  const round = state.round;
  const view = state.view || {};
  const complete = round && round.phase === "complete";
  const hasDealer = layoutCount("dealer") > 0;
  const hasCommunity = layoutCount("community") > 0;
  document.getElementById("dealer-area").hidden = !hasDealer;
  document.getElementById("community-area").hidden = !hasCommunity;
  const dealt = round && round.phase !== "wagers";
  if (hasDealer) {
    document.getElementById("dealer-cards").replaceChildren(view.dealer
      ? cardsNode(view.dealer.cards, "Dealer's cards")
      : dealt ? cardsNode([], "Dealer's cards, face down", layoutCount("dealer"))
        : slots(layoutCount("dealer"), "Dealer's cards"));
    const settlement = round && round.settlement;
    document.getElementById("dealer-desc").textContent = view.dealer
      ? view.dealer.describe + (settlement && "dealer_qualifies" in settlement
        ? (settlement.dealer_qualifies ? " · qualifies" : " · does not qualify") : "")
      : "";
  }
  if (hasCommunity) {
    const turned = view.community ? view.community.cards : [];
    const hidden = dealt ? layoutCount("community") - turned.length : 0;
    const node = turned.length || hidden ? cardsNode(turned, "Community cards", hidden)
      : slots(layoutCount("community"), "Community cards");
    document.getElementById("community-cards").replaceChildren(node);
    document.getElementById("community-desc").textContent = view.community ? view.community.describe : "";
  }
  document.getElementById("player-cards").replaceChildren(view.player
    ? cardsNode(view.player.cards, "Your cards") : slots(layoutCount("player"), "Your cards"));
  // A game may name another hand than the player's own under the cards (its headline).
  document.getElementById("player-desc").textContent = view.headline
    || (view.player ? view.player.describe : "");
  // Only the bonuses the player bet: the others' hands would look like something at stake.
  const bet = new Set(Object.entries(round ? round.wagers || {} : {})
    .filter(([, amount]) => amount).map(([name]) => state.card.titles[name] || name));
  document.getElementById("bonus-hands").replaceChildren(...(view.bonus || [])
    .filter((bonus) => bet.has(bonus.wager)).map((bonus) => el("li", {}, `${bonus.wager}: ${bonus.text}`)));
  document.getElementById("settlement").hidden = !complete;
  if (complete) renderSettlement(round, view);
  else document.getElementById("settlement-body").replaceChildren();
}

function known(amount) { return typeof amount === "number"; }

function renderSettlement(round, view) {
  const rows = (view.settlement || []).map((row) => el("tr", {},
    el("th", { scope: "row" }, row.title), el("td", { class: "num" }, row.stake),
    el("td", { class: `num ${resultClass(row.net)}` }, signed(row.net)), el("td", {}, row.on)));
  document.getElementById("settlement-body").replaceChildren(
    el("table", { class: "pays" },
      el("thead", {}, el("tr", {}, ...["Wager", "Stake", "Result", "On"].map((head, i) =>
        el("th", { scope: "col", class: i && i < 3 ? "num" : "" }, head)))),
      el("tbody", {}, rows)),
    el("p", { class: "total-line", id: "round-result", tabindex: "-1" }, "Round total ",
      el("span", { class: resultClass(round.total), id: "round-total" }, signed(round.total)),
      round.capped ? " (capped at the maximum payout)" : "",
      known(round.balance_before) && known(round.balance_after)
        ? ` · balance ${round.balance_before} → ${round.balance_after}` : ""));
}

function renderSpots() {
  const round = state.round;
  const open = betting() && !state.busy;
  const shownBets = open ? state.bets : round ? round.wagers : {};
  for (const wager of state.card.wagers) {
    const wrap = document.getElementById(`spot-${wager.name}`);
    wrap.querySelector("button").disabled = !open;
    const amount = shownBets[wager.name] || 0;
    wrap.querySelector(".spot-stack").replaceChildren(amount ? chipNode(amount) : "");
    wrap.querySelector(".spot-bet").textContent = amount ? `${amount} on ${wager.spot} · limits ` : "limits ";
  }
  const decided = round && !open ? decisionStakes(round) : {};
  for (const wager of state.card.decision_wagers) {
    const spot = document.getElementById(`spot-${wager.name}`);
    spot.querySelector(".spot-stack").replaceChildren(decided[wager.name] ? chipNode(decided[wager.name]) : "");
  }
  for (const id of ["undo", "clear"]) document.getElementById(id).disabled = !open || !state.history.length;
  document.getElementById("rebet").disabled = !open || !state.lastWagers;
  document.getElementById("deal").disabled = !open;
  for (const button of document.querySelectorAll("#colour-choice button")) button.disabled = !open;
}

function decisionStakes(round) {
  const stakes = {};
  const decisions = (round.decisions || []).filter((amount) => amount);
  const names = state.card.decision_wagers.map((wager) => wager.name);
  decisions.forEach((amount, index) => { if (names[index]) stakes[names[index]] = amount; });
  return stakes;
}

function renderDecisions() {
  const round = state.round;
  for (const button of decisionButtons()) {
    button.disabled = !(round && !state.busy && optionFor(button, round));
  }
}

/** A private table's next commitment: the bet draws a new one, so it is read again. */
async function refreshNextCommitment() {
  const table = await api("GET", `/tables/${state.table.id}`);
  state.table = { ...state.table, next_commitment: table.next_commitment };
  renderProof();
}

function renderProof() {
  const round = state.round;
  const proof = document.getElementById("proof");
  proof.replaceChildren();
  if (state.table.next_commitment) {
    proof.append(el("dt", {}, "Next round's commitment (fixed before you bet and pick your seed)"),
      el("dd", {}, el("code", { class: "hash", id: "next-commitment" }, state.table.next_commitment)));
  }
  if (!noRoundYet(round)) {
    proof.append(el("dt", {}, `Round ${round.number} (round id ${round.id}): commitment (SHA-256 of the seed)`),
      el("dd", {}, el("code", { class: "hash" }, round.commitment)));
    if (round.client_seeds) proof.append(...sharedSeeds(round));
    else if (round.client_seed) proof.append(el("dt", {}, "Your seed"), el("dd", {}, el("code", { class: "hash" }, round.client_seed)));
    proof.append(el("dt", {}, "Server seed"), el("dd", {}, round.seed
      ? el("code", { class: "hash", id: "server-seed" }, round.seed) : "revealed when the round is complete"));
  } else if (!state.table.next_commitment) {
    proof.append(el("dt", {}, "Commitment"), el("dd", { class: "hint" }, "Each round's commitment shows here when it is dealt; its seed after settlement."));
  }
  document.getElementById("verify").disabled = !(round && round.seed);
}

/** A shared round's seeds: each seat's, then their mix, the round's client seed. */
function sharedSeeds(round) {
  const items = [];
  const seats = Object.keys(round.client_seeds).sort((a, b) => Number(a) - Number(b));
  for (const seat of seats) {
    const seed = round.client_seeds[seat];
    const who = Number(seat) === round.seat ? `Your seed (seat ${seat})` : `Seat ${seat}'s seed`;
    items.push(el("dt", {}, who), el("dd", {}, seed ? el("code", { class: "hash" }, seed) : "none"));
  }
  let mixed = "none: no seat gave a seed";
  if (round.client_seed) mixed = el("code", { class: "hash", id: "mixed-seed" }, round.client_seed);
  else if (round.phase === "wagers") mixed = "mixed from the seats' seeds at the deal";
  items.push(el("dt", {}, "Mixed client seed: SHA-256 of the seats' \"seat:seed\" lines"),
    el("dd", {}, mixed));
  return items;
}

/** Which controls the player needs now: chips and Deal, decisions, or neither. */
function controlsMode() {
  if (betting()) return "betting";
  const round = state.round;
  if (round && round.seat !== null && ["decisions", "reveal"].includes(round.phase)) return "deciding";
  if (!state.table.shared && round && round.phase !== "complete") return "deciding";
  return "watching";
}

function renderMode() {
  const mode = controlsMode();
  document.getElementById("controls").dataset.mode = mode;
  document.getElementById("tray").hidden = mode !== "betting";
  document.getElementById("bet-actions").hidden = mode !== "betting";
  document.getElementById("decisions").hidden = mode !== "deciding";
  document.getElementById("seat-actions").hidden = !state.table.shared || mode === "deciding";
}

export function render() {
  if (!state.card) return;
  renderMode();
  renderHands();
  renderSpots();
  renderDecisions();
  renderProof();
  hooks.rendered();
}

// --- last rounds, newer and older views, the fairness check -----------------------------

export async function lastRounds() {
  const rounds = (await api("GET", "/me/rounds?limit=30")).filter((round) => round.table === state.table.id);
  const list = document.getElementById("last-rounds");
  list.replaceChildren(...(rounds.length ? rounds.slice(0, 8).map((round) => el("li", {},
    `Round ${round.number}: `, round.total === undefined ? `in play (${round.phase})`
      : el("span", { class: resultClass(round.total) }, signed(round.total)),
    known(round.balance_after) ? ` · balance ${round.balance_after}` : ""))
    : [el("li", { class: "hint" }, "No rounds at this table yet.")]));
}

/** A view older than the one shown (same round, fewer steps; or an earlier round). */
export function stale(round) {
  const shown = state.round;
  if (!round || !shown) return false;
  if (round.id !== shown.id) return round.id < shown.id;
  return (round.log || []).length < (shown.log || []).length;
}

async function verify() {
  const out = document.getElementById("verify-result");
  out.textContent = "Checking…";
  try {
    const result = await verifyRound(state.round, state.card.deal);
    out.className = result.ok ? "win" : "loss";
    out.textContent = result.text;
  } catch (error) {
    out.className = "loss"; out.textContent = `Cannot verify: ${error.message}`;
  }
}
