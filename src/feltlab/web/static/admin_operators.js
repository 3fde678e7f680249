// The operator's console, its Operators section: the casinos that launch feltlab's tables
// (disable, enable), the calls feltlab still owes their wallets (retry now, resolve by hand
// after a confirmation that asks how it was settled), and their real-money rounds' figures.
// Every change goes through API v1's admin routes, which write the audit log; after each,
// the focus goes back to the control that stands where the one used was.
"use strict";

import { api, el, say } from "./common.js";

const note = () => document.getElementById("operators-status");
let changed = async () => {};

/** Minor units as the currency shows them ("EUR 2.50", "JPY 1,200"); ``more`` digits
 * after the minor unit's (a theoretical win is a fraction of a cent). */
export function moneyOf(minor, currency, more = 0) {
  try {
    const options = { style: "currency", currency, currencyDisplay: "code" };
    const digits = new Intl.NumberFormat("en-US", options).resolvedOptions().maximumFractionDigits;
    const format = new Intl.NumberFormat("en-US", { ...options, maximumFractionDigits: digits + more });
    return format.format(Number(minor) / 10 ** digits).replace(/\u00a0/g, " ");
  } catch {
    return `${minor} ${currency} (minor units)`;
  }
}

function chips(value) {
  return Number(value).toLocaleString("en-US", { maximumFractionDigits: 2, minimumFractionDigits: 2 });
}

function ageOf(seconds) {
  const s = Math.floor(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} days ${Math.floor((s % 86400) / 3600)} h`;
}

function head(titles) {
  return el("thead", {}, el("tr", {}, titles.map((title) => el("th", { scope: "col" }, title))));
}

/** A row's cells of a table that is a list of cards on a phone (class "card-rows"): the first
 * a row header, each value in one span beside its column's name (``data-label``). */
function cells(columns, ...parts) {
  return parts.map(([attributes, ...content], index) => el(index ? "td" : "th",
    { ...(index ? {} : { scope: "row" }), ...attributes, "data-label": columns[index] },
    el("span", { class: "value" }, ...content)));
}

/** Put the focus on the control marked ``key`` once the section is drawn again, else on
 * ``fallback`` (a control in the same column, or the list's heading). */
function refocus(key, fallback) {
  const found = document.querySelector(`[data-focus="${CSS.escape(key)}"]`)
    || (fallback && document.querySelector(fallback)) || document.getElementById("calls-title");
  found.focus();
}

/** One change: ``send`` it, draw the list again (refused too: the state may have moved),
 * put the focus back on ``key``'s control, and only then say what was done, or why not. */
async function change({ send, done, redraw, key, fallback }) {
  let message = "", error = false;
  try { message = done(await send()); } catch (failure) { message = failure.message; error = true; }
  try { await Promise.all([redraw(), changed()]); } catch (failure) {
    if (!error) { message = failure.message; error = true; }
  }
  refocus(key, fallback);
  say(note(), message, error);
}

// --- asking first -------------------------------------------------------------------------

/** Ask in the section's dialog; answers the note typed (or "" when none is asked for), or
 * null when cancelled. The dialog keeps the focus inside it until it closes. */
function ask({ title, text, confirm, withNote = false }) {
  const dialog = document.getElementById("ask-dialog");
  const field = document.getElementById("ask-note");
  document.getElementById("ask-title").textContent = title;
  document.getElementById("ask-text").textContent = text;
  document.getElementById("ask-confirm").textContent = confirm;
  document.getElementById("ask-note-field").hidden = !withNote;
  say(document.getElementById("ask-status"), "");
  field.value = "";
  return new Promise((resolve) => {
    const form = document.getElementById("ask-form");
    const cancel = document.getElementById("ask-cancel");
    const done = (answer) => {
      form.removeEventListener("submit", submit);
      cancel.removeEventListener("click", dismiss);
      dialog.removeEventListener("cancel", dismiss);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const submit = (event) => {
      event.preventDefault();
      if (withNote && !field.value.trim()) {
        say(document.getElementById("ask-status"), "Say how the call was settled: it goes into the audit log.", true);
        field.focus();
        return;
      }
      done(withNote ? field.value.trim() : "");
    };
    const dismiss = (event) => { event.preventDefault(); done(null); };
    form.addEventListener("submit", submit);
    cancel.addEventListener("click", dismiss);
    dialog.addEventListener("cancel", dismiss);
    dialog.showModal();
    (withNote ? field : document.getElementById("ask-confirm")).focus();
  });
}

// --- operators ----------------------------------------------------------------------------

function currenciesText(currencies) {
  return Object.entries(currencies).map(([code, units]) => `${code}: 1 chip = ${moneyOf(units, code)}`).join("; ");
}

const OPERATOR_COLUMNS = ["Operator", "Wallet URL", "Currencies and chip values", "Timeout",
  "Frame origins", "State", "Action"];

export async function showOperators() {
  const operators = await api("GET", "/admin/operators");
  const rows = operators.map((operator) => el("tr", { class: operator.disabled ? "flagged" : "" },
    cells(OPERATOR_COLUMNS, [{}, operator.id], [{}, el("code", {}, operator.wallet_url)],
      [{}, currenciesText(operator.currencies)], [{ class: "num" }, `${operator.timeout_seconds} s`],
      [{}, operator.frame_origins.join(", ") || "none"],
      [{}, operator.disabled ? el("span", { class: "flag" }, "disabled") : "enabled",
        operator.rotating ? " (rotating: the previous secret is still accepted)" : ""],
      [{ class: "action" }, el("button", { type: "button", class: "btn", "data-focus": `operator:${operator.id}`,
        onclick: () => setDisabled(operator, !operator.disabled) },
      `${operator.disabled ? "Enable" : "Disable"} ${operator.id}`)])));
  document.getElementById("operators-table").replaceChildren(head(OPERATOR_COLUMNS),
    el("tbody", {}, rows.length ? rows
      : [el("tr", {}, el("td", { colspan: 7 }, "No operator yet: add one with feltlab operator add."))]));
  const select = document.getElementById("calls-operator");
  const chosen = select.value;
  select.replaceChildren(el("option", { value: "" }, "All operators"),
    ...operators.map((operator) => el("option", { value: operator.id }, operator.id)));
  select.value = operators.some((operator) => operator.id === chosen) ? chosen : "";
}

async function setDisabled(operator, disabled) {
  const key = `operator:${operator.id}`;
  if (disabled) {
    const sure = await ask({ title: `Disable ${operator.id}?`, confirm: `Disable ${operator.id}`,
      text: `Its players can place no stake until it is enabled again; the wins and rollbacks it is owed are still sent.` });
    if (sure === null) { refocus(key); return; }
  }
  await change({ key, redraw: showOperators,
    send: () => api("POST", `/admin/operators/${encodeURIComponent(operator.id)}/${disabled ? "disable" : "enable"}`, {}),
    done: () => `${operator.id} is ${disabled ? "disabled" : "enabled"}; written to the audit log.` });
}

// --- wallet calls --------------------------------------------------------------------------

const CALL_COLUMNS = ["Transaction", "Player at operator", "Kind", "Amount", "Round", "Attempts",
  "Last error", "Flag", "Age", "Actions"];

/** A bet its player's request is sending now (the rollback queued behind it undoes it
 * should the request never record the answer): nothing for a person to do. */
function held(call) {
  return call.kind === "bet" && !call.flagged && call.next_try_at === null;
}

export async function showCalls() {
  const operator = document.getElementById("calls-operator").value;
  const params = new URLSearchParams({ state: "pending", limit: "200" });
  if (document.getElementById("calls-which").value === "flagged") params.set("flagged", "true");
  if (operator) params.set("operator", operator);
  const calls = await api("GET", `/admin/wallet-calls?${params}`);
  const rows = calls.map((call) => el("tr", { class: call.flagged ? "flagged" : "" },
    cells(CALL_COLUMNS, [{}, el("code", {}, call.transaction_id)],
      [{}, call.player, el("br"), el("span", { class: "hint" }, call.operator)], [{}, call.kind],
      [{ class: "num" }, moneyOf(call.amount, call.currency)],
      [{ class: "num" }, call.round_id === null ? "–" : String(call.round_id)],
      [{ class: "num" }, String(call.attempts)], [{ class: "error" }, call.last_error || "–"],
      [{}, call.flagged ? el("span", { class: "flag" }, "flagged") : held(call) ? "held" : "retrying"],
      [{ class: "num" }, ageOf(call.age_seconds)],
      [{ class: "actions" }, held(call) ? "none while its request sends it" : [
        el("button", { type: "button", class: "btn small", "data-focus": `retry:${call.transaction_id}`,
          "aria-label": `Retry now: ${call.kind} ${call.transaction_id}`, onclick: () => retry(call) }, "Retry now"),
        el("button", { type: "button", class: "btn small", "data-focus": `resolve:${call.transaction_id}`,
          "aria-label": `Resolve by hand: ${call.kind} ${call.transaction_id}`, onclick: () => resolve(call) },
        "Resolve by hand")]])));
  document.getElementById("calls-table").replaceChildren(head(CALL_COLUMNS),
    el("tbody", {}, rows.length ? rows
      : [el("tr", {}, el("td", { colspan: 10 }, "No call is waiting: every wallet has answered."))]));
}

function described(call) {
  return `the ${call.kind} ${call.transaction_id} of ${moneyOf(call.amount, call.currency)} for player ${call.player} (${call.operator})`;
}

async function retry(call) {
  await change({ key: `retry:${call.transaction_id}`, fallback: "[data-focus^='retry:']", redraw: showCalls,
    send: () => api("POST", `/admin/wallet-calls/${encodeURIComponent(call.transaction_id)}/retry`, {}),
    done: (after) => `Retrying ${described(call)} now (attempt ${after.attempts + 1}); written to the audit log. ` +
      "Show the calls again in a moment for the wallet's answer." });
}

async function resolve(call) {
  const key = `resolve:${call.transaction_id}`;
  const text = await ask({ title: "Resolve this call by hand?", confirm: "Resolve by hand", withNote: true,
    text: `Only once it is settled with the operator: ${described(call)} is marked acknowledged and never sent again.` });
  if (text === null) { refocus(key); return; }
  await change({ key, fallback: "[data-focus^='resolve:']", redraw: showCalls,
    send: () => api("POST", `/admin/wallet-calls/${encodeURIComponent(call.transaction_id)}/resolve`, { note: text }),
    done: () => `Resolved ${described(call)} by hand; written to the audit log.` });
}

// --- figures -------------------------------------------------------------------------------

/** The operators' real-money figures over the pit's days (``params``: its from and to). */
export async function showOperatorFigures(params) {
  const days = new URLSearchParams();
  for (const name of ["from", "to"]) if (params.get(name)) days.set(name, params.get(name));
  const report = await api("GET", `/admin/reports/operators?${days}`);
  const rows = report.rows.map((row) => el("tr", {},
    el("th", { scope: "row" }, row.operator), el("td", {}, row.currency),
    el("td", { class: "num" }, moneyOf(row.chip_value, row.currency)), el("td", { class: "num" }, String(row.rounds)),
    el("td", { class: "num" }, chips(row.handle)), el("td", { class: "num" }, chips(row.win)),
    el("td", { class: "num" }, row.hold === null ? "–" : `${(row.hold * 100).toFixed(2)}%`),
    el("td", { class: "num" }, chips(row.theo_win)),
    el("td", { class: "num" }, moneyOf(row.handle_minor, row.currency)),
    el("td", { class: "num" }, moneyOf(row.win_minor, row.currency)),
    el("td", { class: "num" }, moneyOf(row.theo_win_minor, row.currency, 2))));
  const groups = el("tr", {}, el("td", { colspan: 4 }),
    el("th", { scope: "colgroup", colspan: 4 }, "In chips"),
    el("th", { scope: "colgroup", colspan: 3 }, "In the currency"));
  const titles = el("tr", {}, ["Operator", "Currency", "Chip", "Rounds", "Handle", "Win", "Hold",
    "Theo win", "Handle", "Win", "Theo win"].map((title) => el("th", { scope: "col" }, title)));
  document.getElementById("operator-figures-table").replaceChildren(
    el("colgroup", { span: 4 }), el("colgroup", { span: 4 }), el("colgroup", { span: 3 }),
    el("thead", {}, groups, titles),
    el("tbody", {}, rows.length ? rows
      : [el("tr", {}, el("td", { colspan: 11 }, "No real-money round in these days."))]));
}

/** Wire the section; ``onChange`` runs after every change (the console's audit log). */
export async function startOperators(onChange) {
  changed = onChange;
  document.getElementById("calls-form").addEventListener("submit", (event) => {
    event.preventDefault();
    showCalls().catch((error) => say(note(), error.message, true));
  });
  await showOperators();
  await showCalls();
}
