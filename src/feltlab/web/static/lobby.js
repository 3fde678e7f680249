// The lobby: sign up / sign in, the games with their pay tables and a Practice button
// each, shared tables open now, balances, limits and recall of the last rounds.
import { api, el, header, ruleCards, rulesDetails, say, signed, resultClass, cardsNode,
         splitCards } from "/static/common.js";

const status = document.getElementById("account-status");
const form = document.getElementById("account-form");
let me = null;

function credentials() {
  return { username: document.getElementById("username").value.trim(),
           password: document.getElementById("password").value };
}

async function signIn(event) {
  event?.preventDefault();
  say(status, "Signing in…");
  try {
    await api("POST", "/login", credentials());
    await start();
  } catch (error) {
    say(status, error.message, true);
  }
}

async function signUp() {
  say(status, "Creating your account…");
  try {
    await api("POST", "/accounts", credentials());
    await api("POST", "/login", credentials());
    await start();
    say(document.getElementById("games-hint"),
        "Welcome! You have 1000 practice chips: press a Practice button to play.");
  } catch (error) {
    say(status, error.message, true);
  }
}

async function practice(card, button) {
  button.disabled = true;
  try {
    const table = await api("POST", "/tables", { rules: card.id, practice: true });
    window.location.href = `/table/${table.id}`;
  } catch (error) {
    button.disabled = false;
    say(document.getElementById("games-hint"), error.message, true);
  }
}

function gameCard(card) {
  const button = el("button", { type: "button", class: "btn go", disabled: !me },
    `Practice ${card.name}`);
  button.addEventListener("click", () => practice(card, button));
  return el("article", { class: "panel game-card", "aria-labelledby": `game-${card.id}` },
    el("h3", { id: `game-${card.id}` }, card.name),
    el("p", { class: "row" }, button,
      el("a", { href: `/math/${card.id}` }, "Strategy and odds")),
    el("details", {}, el("summary", {}, "Rules, limits and pay tables"), rulesDetails(card)));
}

function showGames() {
  const games = document.getElementById("games");
  games.replaceChildren(...ruleCards().map(gameCard));
  document.getElementById("games-hint").textContent = me
    ? "Press a Practice button: a private table against the house opens at once."
    : "Sign in, then press a Practice button: a private table against the house opens at once.";
}

function showAccount() {
  document.getElementById("account").hidden = Boolean(me);
  document.getElementById("player").hidden = !me;
  if (!me) return;
  document.getElementById("practice-balance").textContent = me.balances.practice;
  document.getElementById("cash-balance").textContent = me.balances.cash;
  const limits = me.limits || {};
  const parts = [limits.daily_loss_limit === null || limits.daily_loss_limit === undefined
    ? "No daily loss limit." : `Daily loss limit ${limits.daily_loss_limit}; lost today ${limits.lost_today}.`];
  if (limits.excluded_until) parts.push(`Self-excluded until ${limits.excluded_until}.`);
  document.getElementById("limits-text").textContent = parts.join(" ");
}

function sharedItem(table) {
  const card = ruleCards().find((item) => item.id === table.rules);
  const free = table.seats - table.seated.length;
  const players = table.seated.map((item) => item.player).join(", ");
  return el("li", { class: "shared-table" },
    el("a", { class: "btn go", href: `/table/${table.id}`,
              "aria-label": `Join ${table.name}` }, `Join ${table.name}`),
    el("span", {}, ` ${card ? card.name : table.rules} · ${table.currency} chips · `,
      free ? `${free} of ${table.seats} seats free` : "every seat taken",
      ` · ${table.betting_seconds} s to bet, ${table.decision_seconds} s per decision`,
      players ? ` · playing: ${players}` : ""));
}

async function showShared() {
  const section = document.getElementById("shared");
  const tables = (await api("GET", "/tables")).filter((table) => table.shared);
  section.hidden = false;
  const list = document.getElementById("shared-list");
  list.replaceChildren(...(tables.length ? tables.map(sharedItem)
    : [el("li", { class: "hint" }, "No shared table is open now.")]));
}

function recallSteps(recall) {
  return el("ol", { class: "steps" }, recall.steps.map((step) => {
    const action = step.action;
    const words = [action.type, action.wager, action.amount, action.colour]
      .filter((part) => part !== undefined).join(" ");
    const cards = Object.entries(step.cards).map(([who, text]) => `${who}: ${text}`).join("; ");
    return el("li", {}, `${words} — ${cards || "no cards yet"} · staked ${step.staked}, ` +
      `balance ${step.balance}` + (step.total !== undefined ? ` · total ${signed(step.total)}` : ""));
  }));
}

function roundItem(round) {
  const card = ruleCards().find((item) => item.id === round.rules);
  const total = round.total;
  const summary = el("summary", {}, `Round ${round.number} at table ${round.table} · ${card ? card.name : round.rules} · `,
    total === undefined ? el("span", {}, `unfinished (${round.phase})`)
      : el("span", { class: resultClass(total) }, signed(total)),
    round.balance_after !== undefined && round.balance_after !== null
      ? ` · balance ${round.balance_before} → ${round.balance_after}` : "");
  const details = el("details", {}, summary);
  details.addEventListener("toggle", async () => {
    if (!details.open || details.dataset.loaded) return;
    details.dataset.loaded = "1";
    const cards = el("div", {}, Object.entries(round.cards || {}).map(([who, text]) =>
      el("div", {}, `${who}: `, cardsNode(splitCards(text), `${who} cards`))));
    try {
      details.append(cards, recallSteps(await api("GET", `/rounds/${round.id}/recall`)),
        el("p", {}, el("a", { href: `/table/${round.table}` }, "Back to this table")));
    } catch (error) {
      details.append(el("p", { class: "status error" }, error.message));
    }
  });
  return el("li", {}, details);
}

async function showRecall() {
  const rounds = await api("GET", "/me/rounds?limit=10");
  document.getElementById("recall").hidden = false;
  const list = document.getElementById("recall-list");
  list.replaceChildren(...(rounds.length ? rounds.map(roundItem)
    : [el("li", { class: "hint" }, "No rounds yet.")]));
}

let sharedTimer = null;

async function start() {
  me = await header("practice");
  showAccount();
  showGames();
  if (me) {
    say(status, "");
    await Promise.all([showShared(), showRecall()]).catch((error) =>
      say(document.getElementById("player-status"), error.message, true));
    if (!sharedTimer) sharedTimer = setInterval(() => showShared().catch(() => {}), 15000);
  }
}

document.getElementById("sign-up").addEventListener("click", signUp);
form.addEventListener("submit", signIn);
document.getElementById("reset-practice").addEventListener("click", async () => {
  const out = document.getElementById("player-status");
  try {
    me = await api("POST", "/me/practice/reset", {}, { idempotent: true });
    await start();
    say(out, "Practice chips reset to 1000.");
  } catch (error) { say(out, error.message, true); }
});
document.getElementById("limits-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const out = document.getElementById("player-status");
  const body = {};
  const limit = document.getElementById("loss-limit").value;
  const days = document.getElementById("exclude-days").value;
  if (limit !== "") body.daily_loss_limit = Number(limit);
  if (days !== "") body.self_exclude_days = Number(days);
  if (!Object.keys(body).length) { say(out, "Enter a limit or a number of days first.", true); return; }
  try {
    me = await api("PUT", "/me/limits", body);
    showAccount();
    say(out, "Limits saved.");
  } catch (error) { say(out, error.message, true); }
});
start();
