// feltlab pages: what every page shares (API calls with the session cookie and CSRF
// header, or with a bearer token held in memory; the rule cards, the header, cards). No
// rule of any game lives here: results, limits, pay tables and options all come from
// the server.
"use strict";

export const SUIT_SYMBOLS = { s: "♠", h: "♥", d: "♦", c: "♣" };
export const SUIT_NAMES = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };
const RANK_NAMES = { A: "ace", K: "king", Q: "queen", J: "jack", T: "10" };

export class ApiRefusal extends Error {
  constructor(status, detail) { super(detail); this.status = status; }
}

function cookie(name) {
  const found = document.cookie.split("; ").find((part) => part.startsWith(name + "="));
  return found ? decodeURIComponent(found.slice(name.length + 1)) : "";
}

export function newKey() {
  return crypto.randomUUID ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16)).join("");
}

let clockOffset = 0;

/** The server's clock minus this browser's, in ms, from the answers' Date headers (whole
 * seconds, and a server may stamp them once a second: an offset under 2 s is taken as
 * none). Timers count down to the server's deadlines. */
export function serverClockOffset() { return clockOffset; }

function noteServerClock(date) {
  const server = date ? Date.parse(date) : NaN;
  if (Number.isNaN(server)) return;
  // the header drops the milliseconds: take the latest the server's time can be, so a
  // countdown may end up to a second early, never late
  const offset = server + 999 - Date.now();
  clockOffset = Math.abs(offset) < 2000 ? 0 : offset;
}

let bearer = null;

/** Sign this page's API calls with `token` (`Authorization: Bearer`) instead of the
 * session cookie: the game page an operator frames, whose token lives in this variable
 * only (never in a cookie or the storage, so that nothing outlives the page). No CSRF
 * header goes with it: a bearer token is not sent by the browser on its own. */
export function useBearer(token) { bearer = token; }

/** Call API v1 (same origin, session cookie or the bearer token); refusals throw
 * ApiRefusal(detail). */
export async function api(method, path, body, options = {}) {
  const headers = { Accept: "application/json" };
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (method !== "GET") {
    if (!bearer) headers["X-CSRF-Token"] = cookie("feltlab_csrf");
    headers["Content-Type"] = "application/json";
    if (options.idempotent) headers["Idempotency-Key"] = newKey();
  }
  const response = await fetch("/api/v1" + path, {
    method, headers, credentials: bearer ? "omit" : "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  noteServerClock(response.headers.get("Date"));
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) {
    const detail = data && typeof data.detail === "string" ? data.detail
      : `the server answered ${response.status}`;
    throw new ApiRefusal(response.status, detail);
  }
  return data;
}

export function ruleCards() {
  const node = document.getElementById("rulecards");
  return node ? JSON.parse(node.textContent) : [];
}

export function ruleCard(id) {
  return ruleCards().find((card) => card.id === id);
}

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function signed(amount) {
  return amount > 0 ? `+${amount}` : String(amount);
}

export function resultClass(amount) {
  return amount > 0 ? "win" : amount < 0 ? "loss" : "push";
}

export function cardName(text) {
  const rank = text[0], suit = text[1];
  return `${RANK_NAMES[rank] || rank} of ${SUIT_NAMES[suit]}`;
}

/** One card face (four-colour deck); `marked` outlines the cards that play. */
export function cardNode(text, marked = false) {
  const suit = text[1];
  const rank = text[0] === "T" ? "10" : text[0];
  return el("li", { class: `card ${suit}${marked ? " marked" : ""}`,
                    "aria-label": cardName(text) + (marked ? ", plays" : "") },
    el("span", { class: "rank", "aria-hidden": "true" }, rank),
    el("span", { class: "suit", "aria-hidden": "true" }, SUIT_SYMBOLS[suit]));
}

export function cardsNode(cards, label, hidden = 0) {
  const list = el("ul", { class: "cards", "aria-label": label });
  for (const card of cards) list.append(cardNode(card.text ?? card, card.marked));
  for (let i = 0; i < hidden; i += 1) {
    list.append(el("li", { class: "card back", "aria-label": "face-down card" }));
  }
  return list;
}

export function splitCards(text) {
  return (text || "").split(/\s+/).filter(Boolean);
}

export function payTableNode(table) {
  const rows = table.rows.map((row) => el("tr", {},
    el("td", {}, row.line), el("td", { class: "num" }, row.pays)));
  return el("table", { class: "pays" },
    el("caption", { class: "visually-hidden" }, table.title),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, capitalise(table.unit)),
                       el("th", { scope: "col", class: "num" }, "Pays"))),
    el("tbody", {}, rows));
}

export function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** A rule card's limits and pay tables, for lobby, table and trainers, each pay table under
 * a heading of ``level`` (one below the heading of the section it is shown in). */
export function rulesDetails(card, level = 4) {
  const parts = [el("ul", {}, card.lines.map((line) => el("li", {}, line)))];
  const limits = el("table", { class: "pays" },
    el("caption", { class: "visually-hidden" }, `${card.name} wagers and limits`),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Wager"),
      el("th", { scope: "col", class: "num" }, "Min"), el("th", { scope: "col", class: "num" }, "Max"))),
    el("tbody", {}, card.wagers.map((wager) => el("tr", {},
      el("td", {}, wager.title + (wager.required ? " (required)" : "")),
      el("td", { class: "num" }, wager.min), el("td", { class: "num" }, wager.max)))));
  parts.push(limits);
  for (const wager of card.wagers) {
    if (wager.pay_table) {
      parts.push(el(`h${level}`, {}, wager.pay_table.title), payTableNode(wager.pay_table));
    }
  }
  parts.push(el("p", {}, card.max_aggregate_payout
    ? `Maximum payout per round: ${card.max_aggregate_payout.toLocaleString("en-US")}.`
    : "No maximum payout per round."));
  return parts;
}

let signedInUser = null;

/** Fill the header: who is signed in, the balance, sign out. Returns /me or null. */
export async function header(currency = "practice") {
  const who = document.getElementById("who");
  let me = null;
  if (cookie("feltlab_csrf")) {  // signed in (or was): ask who, without a 401 otherwise
    try { me = await api("GET", "/me"); } catch { me = null; }
  }
  signedInUser = me;
  if (me && me.role === "admin") {
    for (const link of document.querySelectorAll("[data-admin-only]")) link.hidden = false;
  }
  if (!who) return me;
  who.replaceChildren();
  if (!me) {
    who.append(el("a", { href: "/" }, "Sign in"));
    return null;
  }
  who.append(
    el("span", {}, me.username),
    el("span", { class: "balance-box" }, `${currency === "cash" ? "Cash" : "Practice"} `,
      el("output", { id: "balance", "aria-label": "Balance", "data-currency": currency },
        String(me.balances[currency]))),
    el("button", { class: "linkish", type: "button", onclick: signOut }, "Sign out"));
  return me;
}

export function setBalance(value) {
  const node = document.getElementById("balance");
  if (node) node.textContent = String(value);
}

export async function refreshBalance() {
  const node = document.getElementById("balance");
  if (!node) return null;
  const me = await api("GET", "/me");
  node.textContent = String(me.balances[node.dataset.currency || "practice"]);
  return me;
}

async function signOut() {
  try { await api("POST", "/logout", {}); } catch { /* already signed out */ }
  window.location.href = "/";
}

export function say(node, text, error = false) {
  node.textContent = text;
  node.classList.toggle("error", error);
}

export function store(key, fallback) {
  try { return JSON.parse(localStorage.getItem("feltlab:" + key)) ?? fallback; }
  catch { return fallback; }
}

export function keep(key, value) {
  localStorage.setItem("feltlab:" + key, JSON.stringify(value));
}
