// The game an operator's casino frames for its player (/play/OPERATOR#launch=CODE): the
// felt (felt.js) at the player's own table, in the casino's currency or in play chips.
// The launch URL's one-time code leaves the address at once (a reload or a copied link
// never sends it again) and is traded for the session's token, which lives in memory
// only (common.js `useBearer`): no cookie, no storage. No live socket either (a browser
// cannot sign one with a bearer header): the player's table changes only by the
// player's own requests, whose answers carry its new state.
import { api, capitalise, el, ruleCard, say, setBalance, useBearer } from "/static/common.js";
import { state, status, configure, drawFelt, wireControls, show, lastRounds,
         wagerByName } from "/static/felt.js";

const USED = "This game link was already used or has expired: open the game again from the casino.";
const ENDED = "Your game session has ended: open the game again from the casino.";
const WALLET_CODES = {
  INSUFFICIENT_FUNDS: "your casino balance is too low for this bet",
  LIMIT_EXCEEDED: "this bet is over a limit set at the casino",
  PLAYER_BLOCKED: "the casino does not let this account play now",
};
const code = takeLaunchCode();
let session = null;

/** The code in the address's fragment, which is removed from the address right away. */
function takeLaunchCode() {
  const found = /(?:^#|&)launch=([^&]*)/.exec(window.location.hash);
  if (window.location.hash) {
    history.replaceState(history.state, "", window.location.pathname + window.location.search);
  }
  try {
    return found ? decodeURIComponent(found[1]) : "";
  } catch {
    return "";  // a mangled link: no code
  }
}

/** The casino's lobby: the session's, or (after a reload, the session gone) the one this
 * page's history entry remembers; only an http(s) address (the server checked it is on
 * one of the operator's own sites). */
function lobbyUrl() {
  const url = session ? session.lobby_url : history.state && history.state.lobby;
  return typeof url === "string" && /^https?:\/\//i.test(url) ? url : null;
}

/** Keep the lobby in this page's history entry (no storage), for a reload to link to. */
function rememberLobby() {
  if (lobbyUrl()) history.replaceState({ lobby: lobbyUrl() }, "");
}

/** A link to the lobby, opened in the casino's own window (the top one, not this frame). */
function lobbyLink(look = "lobby-link") {
  const url = lobbyUrl();
  return url ? el("a", { class: look, href: url, target: "_top" }, "Back to the casino") : null;
}

/** The currency's minor units as a decimal amount ("1.00 EUR"; JPY has no decimals). */
function money(minor, currency) {
  let digits = 2;
  try {
    digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions()
      .maximumFractionDigits;
  } catch { /* an unknown code: two decimals */ }
  const text = String(minor).padStart(digits + 1, "0");
  const whole = digits ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text;
  return `${whole} ${currency}`;
}

/** The header: what the chips are worth, the balance once known, the way back. */
function showSession() {
  const demo = session.mode === "demo";
  document.getElementById("who").replaceChildren(
    el("span", { class: "mode" }, demo ? "Demo game: play chips, no money at stake"
      : `Real money: 1 chip = ${money(session.chip_value, session.currency)}`),
    el("span", { class: "balance-box", id: "balance-box", hidden: true }, "Balance ",
      el("output", { id: "balance", "aria-label": "Balance in chips" }), " chips"),
    lobbyLink());
}

/** Play chips are feltlab's to count; real money is the casino's, whose balance only a
 * settled round tells (in chips, as the wallet answered it). */
async function updateBalance(round) {
  let value = null;
  if (session.mode === "demo") value = (await api("GET", "/me")).balances.practice;
  else if (round && typeof round.balance_after === "number") value = round.balance_after;
  if (value === null) return;
  document.getElementById("balance-box").hidden = false;
  setBalance(value);
}

/** A stake the casino's wallet refused or did not answer clearly, in the player's words
 * (the wallet's code kept for the casino's support): nothing was taken. */
function walletRefusal(detail) {
  if (!detail.includes("casino's wallet")) return detail;
  const named = /: ([A-Z_]+)$/.exec(detail);
  const why = named && WALLET_CODES[named[1]]
    ? `${capitalise(WALLET_CODES[named[1]])} (${named[1]}).` : `${capitalise(detail)}.`;
  return `${why} Nothing was taken: change your bet or try again.`;
}

/** The game cannot go on: say why, in place of the felt, with the way back if known. */
function stop(text) {
  useBearer(null);
  session = null;
  const main = document.getElementById("main");
  for (const child of main.children) child.hidden = child.id !== "problem";
  document.getElementById("who").replaceChildren();  // nothing of the session is left
  const lobby = lobbyLink("btn primary");
  document.getElementById("problem-lobby").replaceChildren(...(lobby ? [lobby] : []));
  document.getElementById("problem-text").textContent = text;
  document.getElementById("problem-title").focus();
  document.title = "feltlab: the game is not open";
}

configure({
  async answered(round) { await updateBalance(round); },
  async refused(error) {
    if (error.status === 401) { stop(ENDED); return; }
    if (error.status !== 409) return;
    // A round refused as it stands (a stake the casino's wallet refused leaves it as it
    // was): show the table as the server has it, the refusal still said.
    try {
      await show((await api("GET", `/tables/${state.table.id}`)).round ?? null);
    } catch { /* the refusal is what the player needs to read */ }
    say(status, walletRefusal(error.message), true);
  },
});

async function start() {
  wireControls();
  if (!code) { stop(USED); return; }
  try {
    session = await api("POST", "/operator/launch", { code });
  } catch (error) {
    stop([401, 422].includes(error.status) ? USED : error.message);
    return;
  }
  useBearer(session.session);
  rememberLobby();
  window.addEventListener("hashchange", rememberLobby);  // the skip link adds an entry
  showSession();
  try {
    state.table = await api("POST", "/tables", { rules: session.rules });
    // a published rule set is not among the cards inlined in the page: ask for its card
    state.card = ruleCard(state.table.rules)
      || await api("GET", `/rulecards/${encodeURIComponent(state.table.rules)}`);
  } catch (error) {
    stop(error.status === 401 ? ENDED : error.message);
    return;
  }
  document.title = `feltlab: ${state.table.name}`;
  document.getElementById("game-title").textContent = state.table.name;
  document.getElementById("felt-note").textContent = state.card.max_aggregate_payout
    ? `Maximum payout per round ${state.card.max_aggregate_payout.toLocaleString("en-US")} chips`
    : "";
  drawFelt();
  await show(state.table.round ?? null);
  say(status, `Pick a chip, press the ${wagerByName(state.card.main_wager).spot} spot (and any bonus), then Deal.`);
  await Promise.all([lastRounds(), updateBalance(null)]);
}

start();
