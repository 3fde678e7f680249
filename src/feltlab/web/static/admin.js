// The operator's console: the pit's reports with charts drawn here (inline SVG, nothing
// fetched from elsewhere), alerts, shared tables, players, the operators and their wallet
// calls (admin_operators.js), the audit log and the rule sets.
// Every number comes from API v1's admin routes; nothing is computed here but the charts'
// coordinates.
"use strict";

import { showOperatorFigures, startOperators } from "./admin_operators.js";
import { api, el, header, ruleCards, say } from "./common.js";

const SVG = "http://www.w3.org/2000/svg";
/** How the win chart draws each series: its legend draws each the same way. */
const SERIES = {
  win: { stroke: "#1b7d32" }, outside: { fill: "#b3261e" }, theo: { stroke: "#5b5b5b", dash: "2 2" },
  expected: { stroke: "#1351a8", dash: "4 3" }, band: { fill: "#1351a833" },
};
const status = document.getElementById("console-status");
const state = { player: null };

function money(value) {
  return value === null || value === undefined ? "–"
    : Number(value).toLocaleString("en-US", { maximumFractionDigits: 2, minimumFractionDigits: 2 });
}

function percent(value) {
  return value === null || value === undefined ? "–" : `${(value * 100).toFixed(2)}%`;
}

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  for (const child of children) {
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

function figuresList(node, items) {
  node.replaceChildren(...items.map(([label, value, id]) =>
    el("div", {}, el("dt", {}, label), el("dd", id ? { id } : {}, value))));
}

function query() {
  const params = new URLSearchParams();
  const from = document.getElementById("report-from").value;
  const to = document.getElementById("report-to").value;
  if (from) params.set("from", from);
  if (to) params.set("to", to);
  params.set("currency", document.getElementById("report-currency").value);
  return params;
}

// --- reports ---------------------------------------------------------------------------

const KEYS = { players: ["username"], tables: ["table_id", "rules"], days: ["day"], rules: ["rules"] };
const KEY_TITLES = { username: "Player", table_id: "Table", rules: "Rule set", day: "Day" };
const GROUPING_NAMES = { players: "player", tables: "table", days: "day", rules: "rule set" };

/** Whether any row of the report counts its seats apart from its rounds (several players
 * in one round of a shared table): then a Seats column stands beside Rounds. */
function seatsDiffer(answer) {
  return [...answer.rows, answer.totals, answer.day, answer.month_to_date, answer.year_to_date]
    .some((row) => row.seats !== row.rounds);
}

function figureCells(row, seats) {
  return [el("td", { class: "num" }, row.rounds),
    seats ? el("td", { class: "num" }, row.seats) : null, el("td", { class: "num" }, money(row.handle)),
    el("td", { class: "num" }, money(row.win)), el("td", { class: "num" }, percent(row.hold)),
    el("td", { class: "num" }, money(row.theo_win)), el("td", { class: "num" }, money(row.expected_win)),
    el("td", { class: "num" }, money(row.decision_cost)),
    el("td", { class: "num" }, `${money(row.band[0])} to ${money(row.band[1])}`),
    el("td", {}, row.outside_band ? el("span", { class: "flag" }, "outside") : "inside")];
}

const FIGURE_TITLES = ["Rounds", "Handle", "Win", "Hold", "Theo win", "Expected win",
  "Decision cost", "95% band of win", "Win in band"];

function headRow(first, seats) {
  const titles = seats ? [FIGURE_TITLES[0], "Seats", ...FIGURE_TITLES.slice(1)] : FIGURE_TITLES;
  return el("thead", {}, el("tr", {}, [...first, ...titles].map((title) =>
    el("th", { scope: "col" }, title))));
}

function drawReport(answer) {
  const keys = KEYS[answer.grouping];
  const seats = seatsDiffer(answer);
  const table = document.getElementById("report-table");
  const rows = answer.rows.map((row) => el("tr", { class: row.outside_band ? "flagged" : "" },
    keys.map((key, index) => el(index === 0 ? "th" : "td", index === 0 ? { scope: "row" } : {},
      String(row[key]))), figureCells(row, seats)));
  const totals = el("tr", {}, el("th", { scope: "row" }, "Total"),
    keys.slice(1).map(() => el("td", {}, "")), figureCells(answer.totals, seats));
  const columns = keys.length + FIGURE_TITLES.length + (seats ? 1 : 0);
  table.replaceChildren(headRow(keys.map((key) => KEY_TITLES[key]), seats),
    el("tbody", {}, rows.length ? rows : [el("tr", {}, el("td", { colspan: columns }, "No settled rounds in these days."))]),
    el("tfoot", {}, totals));
  document.getElementById("report-title").textContent = `Report by ${GROUPING_NAMES[answer.grouping]} ` +
    `(${answer.currency}, ${answer.from || "the start"} to ${answer.to || "now"})`;
  const toDate = document.getElementById("to-date-table");
  toDate.replaceChildren(headRow(["Span"], seats), el("tbody", {},
    [["Day", answer.day], ["Month to date", answer.month_to_date], ["Year to date", answer.year_to_date]]
      .map(([label, figures]) => el("tr", {}, el("th", { scope: "row" }, label), figureCells(figures, seats)))));
  const t = answer.totals;
  figuresList(document.getElementById("pit-figures"), [
    ["Handle", money(t.handle), "pit-handle"], ["Pit's win", money(t.win), "pit-win"],
    ["Hold", percent(t.hold), "pit-hold"], ["Theoretical win", money(t.theo_win), "pit-theo"],
    ["Expected win", money(t.expected_win), "pit-expected"],
    ["Decision cost", money(t.decision_cost), "pit-cost"],
    ["Win's 95% band", `${money(t.band[0])} to ${money(t.band[1])}`, "pit-band"],
    ["Rounds", String(t.rounds), "pit-rounds"],
    ...(t.seats !== t.rounds ? [["Seats", String(t.seats), "pit-seats"]] : [])]);
}

function scale(low, high, from, to) {
  const span = high - low || 1;
  return (value) => from + (value - low) / span * (to - from);
}

function daysChart(answer) {
  const box = document.getElementById("chart-days");
  const rows = answer.rows;
  const width = 560, height = 260, left = 64, right = 12, top = 14, bottom = 40;
  const values = rows.flatMap((row) => [row.win, row.theo_win, row.band[0], row.band[1]]);
  const low = Math.min(0, ...values), high = Math.max(0, ...values);
  const y = scale(low, high, height - bottom, top);
  const x = rows.length > 1 ? scale(0, rows.length - 1, left + 10, width - right - 10)
    : () => (left + width - right) / 2;
  const label = rows.length
    ? `Win, theoretical win and the 95% band by day, ${rows.length} day${rows.length > 1 ? "s" : ""}; ` +
      rows.map((row) => `${row.day}: win ${money(row.win)}, theoretical ${money(row.theo_win)}`).join("; ")
    : "No days to chart";
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label },
    svg("title", {}, "Win against theoretical win by day"));
  chart.append(svg("line", { x1: left, x2: width - right, y1: y(0), y2: y(0), stroke: "#999" }));
  for (const tick of [low, (low + high) / 2, high]) {
    chart.append(svg("text", { x: left - 6, y: y(tick) + 4, "text-anchor": "end", "font-size": 11, fill: "#444" },
      money(tick)));
  }
  if (rows.length) {
    const upper = rows.map((row, i) => `${x(i)},${y(row.band[1])}`);
    const lower = rows.map((row, i) => `${x(i)},${y(row.band[0])}`).reverse();
    const width1 = rows.length === 1 ? 14 : 0;
    const band = rows.length === 1
      ? svg("rect", { x: x(0) - width1, y: y(rows[0].band[1]), width: 2 * width1,
        height: Math.max(1, y(rows[0].band[0]) - y(rows[0].band[1])), fill: "#1351a833" })
      : svg("polygon", { points: [...upper, ...lower].join(" "), fill: "#1351a833" });
    chart.append(band);
    const line = (key, series) => svg("polyline", {
      points: rows.map((row, i) => `${x(i)},${y(key(row))}`).join(" "), fill: "none",
      stroke: series.stroke, "stroke-width": 2, "stroke-dasharray": series.dash || "" });
    chart.append(line((row) => row.expected_win, SERIES.expected),
      line((row) => row.theo_win, SERIES.theo), line((row) => row.win, SERIES.win));
    rows.forEach((row, i) => {
      // each day's theoretical and expected win as short marks (a single day has no line)
      chart.append(svg("line", { x1: x(i) - 7, x2: x(i) + 7, y1: y(row.theo_win), y2: y(row.theo_win), stroke: SERIES.theo.stroke, "stroke-width": 2 }),
        svg("line", { x1: x(i) - 7, x2: x(i) + 7, y1: y(row.expected_win), y2: y(row.expected_win), stroke: SERIES.expected.stroke, "stroke-width": 2 }));
      chart.append(winDot(x(i), y(row.win), row.outside_band));
      if (rows.length <= 12 || i % Math.ceil(rows.length / 12) === 0) {
        chart.append(svg("text", { x: x(i), y: height - bottom + 16, "text-anchor": "middle", "font-size": 10, fill: "#444" },
          row.day.slice(5)));
      }
    });
  }
  chart.append(legend(height - 9));
  box.replaceChildren(chart);
}

/** A day's win: a dot on the win's line, red when outside its band. */
function winDot(cx, cy, outside) {
  return outside ? svg("circle", { cx, cy, r: 4.5, fill: SERIES.outside.fill })
    : svg("circle", { cx, cy, r: 3.5, fill: SERIES.win.stroke });
}

/** The win chart's legend, each series drawn as the chart draws it, along ``middle``. */
function legend(middle) {
  const stroke = (series) => svg("line", { x1: 0, x2: 22, y1: 0, y2: 0, stroke: series.stroke,
    "stroke-width": 2, "stroke-dasharray": series.dash || "" });
  const items = [
    ["win", [stroke(SERIES.win), winDot(11, 0, false)]], ["outside band", [winDot(11, 0, true)]],
    ["theoretical win", [stroke(SERIES.theo)]], ["expected win", [stroke(SERIES.expected)]],
    ["95% band", [svg("rect", { x: 3, y: -5, width: 16, height: 10, fill: SERIES.band.fill })]]];
  const group = svg("g", { class: "legend" });
  let at = 8;
  for (const [name, glyph] of items) {
    group.append(svg("g", { transform: `translate(${at} ${middle})`, "data-series": name }, ...glyph,
      svg("text", { x: 27, y: 4, "font-size": 11, fill: "#222" }, name)));
    at += 27 + name.length * 6.3 + 14;
  }
  return group;
}

function holdChart(answer) {
  const box = document.getElementById("chart-hold");
  const rows = answer.rows;
  const width = 560, height = 260, left = 150, right = 60, top = 10;
  const barHeight = 22, gap = 16;
  const holds = rows.flatMap((row) => [row.hold || 0, row.handle ? row.theo_win / row.handle : 0]);
  const high = Math.max(0.01, ...holds.map(Math.abs));
  const x0 = left + (width - left - right) / 2;
  const x = scale(-high, high, left, width - right);
  const label = rows.length
    ? "Hold by rule set: " + rows.map((row) => `${row.rules} ${percent(row.hold)}, theoretical ${percent(row.handle ? row.theo_win / row.handle : null)}`).join("; ")
    : "No rule sets to chart";
  const chart = svg("svg", { viewBox: `0 0 ${width} ${Math.max(height, top + rows.length * (2 * barHeight + gap) + 30)}`,
    role: "img", "aria-label": label }, svg("title", {}, "Hold by rule set"));
  chart.append(svg("line", { x1: x0, x2: x0, y1: 0, y2: 1000, stroke: "#999" }));
  rows.forEach((row, i) => {
    const y0 = top + i * (2 * barHeight + gap);
    const theo = row.handle ? row.theo_win / row.handle : 0;
    const bar = (value, y, colour) => svg("rect", { x: Math.min(x0, x(value)), y, height: barHeight - 4,
      width: Math.max(1, Math.abs(x(value) - x0)), fill: colour });
    chart.append(svg("text", { x: left - 8, y: y0 + barHeight, "text-anchor": "end", "font-size": 12, fill: "#222" }, row.rules),
      bar(row.hold || 0, y0, "#b3261e"), bar(theo, y0 + barHeight, "#5b5b5b"),
      svg("text", { x: width - right + 4, y: y0 + 14, "font-size": 11, fill: "#222" }, percent(row.hold)),
      svg("text", { x: width - right + 4, y: y0 + barHeight + 14, "font-size": 11, fill: "#444" }, percent(theo)));
  });
  box.replaceChildren(chart);
}

async function showReports() {
  const params = query();
  const grouping = document.getElementById("report-grouping").value;
  const csv = new URLSearchParams(params);
  csv.set("format", "csv");
  document.getElementById("report-csv").href = `/api/v1/admin/reports/${grouping}?${csv}`;
  const [chosen, days, rules, alerts] = await Promise.all([
    api("GET", `/admin/reports/${grouping}?${params}`), api("GET", `/admin/reports/days?${params}`),
    api("GET", `/admin/reports/rules?${params}`), api("GET", `/admin/alerts?${params}`)]);
  drawReport(chosen);
  daysChart(days);
  holdChart(rules);
  drawAlerts(alerts);
  await showOperatorFigures(params);  // after the pit is drawn: its own failure leaves the pit be
}

function drawAlerts(alerts) {
  const list = document.getElementById("alerts-list");
  const items = [
    ...alerts.table_days.map((row) => el("li", { class: "flagged" },
      el("span", { class: "flag" }, "Table-day "), `table ${row.table_id} (${row.rules}) on ${row.day}: win ${money(row.win)} outside ${money(row.band[0])} to ${money(row.band[1])}`)),
    ...alerts.players.map((row) => el("li", { class: "flagged" },
      el("span", { class: "flag" }, "Player "), `${row.username}: win ${money(row.win)} outside ${money(row.band[0])} to ${money(row.band[1])}`))];
  list.replaceChildren(...(items.length ? items : [el("li", {}, "No table-day or player is outside its band.")]));
}

// --- tables ------------------------------------------------------------------------------

async function showTables() {
  const tables = await api("GET", "/admin/console/tables");
  const head = el("thead", {}, el("tr", {}, ["Table", "Rule set", "Currency", "Status", "Who sits where", "Open round", "Action"]
    .map((title) => el("th", { scope: "col" }, title))));
  const rows = tables.map((table) => el("tr", {},
    el("th", { scope: "row" }, `${table.id} ${table.name}`), el("td", {}, table.rules), el("td", {}, table.currency),
    el("td", {}, table.status),
    el("td", {}, (table.seated || []).map((seat) => `${seat.seat}: ${seat.player}`).join(", ") || "nobody"),
    el("td", {}, table.open_round ? String(table.open_round) : "none"),
    el("td", {}, table.status === "open"
      ? el("button", { type: "button", class: "btn", onclick: () => closeTable(table.id) }, `Close table ${table.id}`)
      : "")));
  document.getElementById("tables-table").replaceChildren(head,
    el("tbody", {}, rows.length ? rows : [el("tr", {}, el("td", { colspan: 7 }, "No shared table yet."))]));
}

async function closeTable(id) {
  const note = document.getElementById("tables-status");
  try {
    await api("POST", `/admin/tables/${id}/close`, {});
    say(note, `Table ${id} closed to new bets.`);
    await showTables();
  } catch (error) { say(note, error.message, true); }
}

async function openTable(event) {
  event.preventDefault();
  const note = document.getElementById("tables-status");
  try {
    const table = await api("POST", "/admin/tables", {
      rules: document.getElementById("table-rules").value,
      currency: document.getElementById("table-currency").value,
      name: document.getElementById("table-name").value });
    say(note, `Table ${table.id} is open.`);
    await showTables();
  } catch (error) { say(note, error.message, true); }
}

// --- players -----------------------------------------------------------------------------

// a search answered after a later one is stale: it must not replace the later one's rows
let searches = 0;

async function searchPlayers(event) {
  if (event) event.preventDefault();
  const text = document.getElementById("player-query").value;
  const search = ++searches;
  const players = await api("GET", `/admin/players?q=${encodeURIComponent(text)}`);
  if (search !== searches) return;
  const head = el("thead", {}, el("tr", {}, ["Player", "Practice", "Cash", "Locked", "Self-excluded until", "Action"]
    .map((title) => el("th", { scope: "col" }, title))));
  const rows = players.map((player) => el("tr", {},
    el("th", { scope: "row" }, player.username), el("td", { class: "num" }, player.balances.practice),
    el("td", { class: "num" }, player.balances.cash), el("td", {}, player.locked ? "locked" : "no"),
    el("td", {}, player.limits.excluded_until || "–"),
    el("td", {}, el("button", { type: "button", class: "btn", onclick: () => showPlayer(player.user_id)
      .catch((error) => say(status, error.message, true)) },
      `Open ${player.username}`))));
  document.getElementById("players-table").replaceChildren(head,
    el("tbody", {}, rows.length ? rows : [el("tr", {}, el("td", { colspan: 6 }, "Nobody by that name."))]));
}

async function showPlayer(id) {
  const player = await api("GET", `/admin/players/${id}?${query()}`);
  state.player = player;
  document.getElementById("player-detail").hidden = false;
  document.getElementById("player-name").textContent = `${player.username} (${player.role})`;
  figuresList(document.getElementById("player-facts"), [
    ["Practice", String(player.balances.practice)], ["Cash", String(player.balances.cash)],
    ["Daily loss limit", player.limits.daily_loss_limit === null ? "none" : String(player.limits.daily_loss_limit)],
    ["Lost today", String(player.limits.lost_today)],
    ["Self-excluded until", player.limits.excluded_until || "not excluded"],
    ["Account", player.locked ? "locked" : "open"]]);
  const r = player.rating;
  figuresList(document.getElementById("player-rating"), [
    ["Hands", String(r.hands)], ["Hours", r.hours.toFixed(2)],
    ["Hands an hour", r.hands_per_hour === null ? "–" : r.hands_per_hour.toFixed(1)],
    ["Average bet", money(r.average_bet)], ["Theoretical win", money(r.theo_win)],
    ["Decision cost per 100 hands", money(r.decision_cost_per_100)]]);
  document.getElementById("player-patterns").replaceChildren(...(r.costliest.length
    ? r.costliest.map((pattern) => el("li", {}, pattern.text))
    : [el("li", {}, "No costly decision.")]));
  document.getElementById("lock-button").textContent = player.locked ? "Unlock" : "Lock";
}

async function playerChange(event, send) {
  event.preventDefault();
  const note = document.getElementById("player-status");
  if (!state.player) return;
  try {
    await send(state.player.user_id);
    say(note, "Done, and written to the audit log.");
    await Promise.all([showPlayer(state.player.user_id), searchPlayers(), showAudit()]);
  } catch (error) { say(note, error.message, true); }
}

// --- audit and rule sets ------------------------------------------------------------------

async function showAudit() {
  const audit = await api("GET", "/admin/audit?limit=20");
  const where = audit.broken_at === null ? "" : ` at line ${audit.broken_at}`;
  document.getElementById("audit-state").textContent = audit.intact
    ? `Hash chain intact: ${audit.lines} lines.`
    : `Hash chain BROKEN${where}: ${audit.reason}.`;
  document.getElementById("audit-head-lines").textContent = audit.head ? String(audit.head.lines) : "no";
  document.getElementById("audit-head").textContent = audit.head ? audit.head.hash : "(none)";
  const head = el("thead", {}, el("tr", {}, ["Line", "At", "Who", "What", "Detail"]
    .map((title) => el("th", { scope: "col" }, title))));
  document.getElementById("audit-table").replaceChildren(head, el("tbody", {}, audit.latest.map((line) =>
    el("tr", {}, el("th", { scope: "row" }, String(line.id)), el("td", {}, line.at.slice(0, 19)),
      el("td", {}, line.actor), el("td", {}, line.kind), el("td", {}, JSON.stringify(line.detail))))));
}

function ruleFlags(rule) {
  const flags = [];
  if (rule.player_favoured.length) flags.push(`Favours the player (${rule.player_favoured.join(", ")})`);
  if (rule.over_exposure_limit) flags.push("Over the house exposure limit: opens no table");
  return flags.flatMap((flag, index) => [index ? "; " : "", el("span", { class: "flag" }, flag)]);
}

async function showRules() {
  const rules = await api("GET", "/admin/console/rules");
  const head = el("thead", {}, el("tr", {}, ["Rule set", "Fingerprint", "Tables (open)", "House edge of each wager", "Flags"]
    .map((title) => el("th", { scope: "col" }, title))));
  document.getElementById("rules-table").replaceChildren(head, el("tbody", {}, rules.map((rule) =>
    el("tr", { class: ruleFlags(rule).length ? "flagged" : "" },
      el("th", { scope: "row" }, `${rule.name} (${rule.rules})`), el("td", {}, rule.fingerprint.slice(0, 16)),
      el("td", { class: "num" }, `${rule.tables} (${rule.open_tables})`),
      el("td", {}, Object.entries(rule.edges).map(([name, edge]) => `${name} ${percent(edge)}`).join(", ")),
      el("td", {}, ruleFlags(rule))))));
}

// --- start --------------------------------------------------------------------------------

async function start() {
  const me = await header("cash");
  if (!me) { say(status, "Sign in as an admin on the lobby page to use the console."); return; }
  if (me.role !== "admin") { say(status, "The console is for admins only.", true); return; }
  document.getElementById("console").hidden = false;
  const select = document.getElementById("table-rules");
  select.replaceChildren(...ruleCards().map((card) => el("option", { value: card.id }, card.name)));
  document.getElementById("report-form").addEventListener("submit", (event) => {
    event.preventDefault();
    showReports().catch((error) => say(status, error.message, true));
  });
  document.getElementById("open-table-form").addEventListener("submit", openTable);
  document.getElementById("player-search").addEventListener("submit",
    (event) => searchPlayers(event).catch((error) => say(status, error.message, true)));
  document.getElementById("cash-form").addEventListener("submit", (event) => playerChange(event, (id) =>
    api("POST", `/admin/players/${id}/cash`, { amount: Number(document.getElementById("cash-amount").value),
      reason: document.getElementById("cash-reason").value }, { idempotent: true })));
  document.getElementById("player-limits-form").addEventListener("submit", (event) => playerChange(event, (id) => {
    const limit = document.getElementById("player-loss-limit").value;
    const days = document.getElementById("player-exclude-days").value;
    return api("PUT", `/admin/players/${id}/limits`, {
      daily_loss_limit: limit === "" ? null : Number(limit),
      self_exclude_days: days === "" ? null : Number(days),
      reason: document.getElementById("limits-reason").value });
  }));
  document.getElementById("lock-form").addEventListener("submit", (event) => playerChange(event, (id) =>
    api("POST", `/admin/players/${id}/${state.player.locked ? "unlock" : "lock"}`,
      { reason: document.getElementById("lock-reason").value })));
  try {
    await Promise.all([showReports(), showTables(), searchPlayers(), showAudit(), showRules(),
      startOperators(showAudit)]);
    say(status, "");
  } catch (error) { say(status, error.message, true); }
}

start();
