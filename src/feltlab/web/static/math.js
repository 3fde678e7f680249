// The math index: each rule set's PAR sheet and strategy page, and the pay-table solver.
import { api, ApiRefusal, el, header, ruleCards, say } from "/static/common.js";

const rulesSelect = document.getElementById("solver-rules");
const wagerSelect = document.getElementById("solver-wager");
const lineSelect = document.getElementById("solver-line");
const out = document.getElementById("solver-result");
let wagers = [];

document.getElementById("sheets").replaceChildren(...ruleCards().map((card) => el("li", {},
  el("strong", {}, card.name), " · ",
  el("a", { href: `/math/${card.id}` }, `Strategy card and charts: ${card.name}`), " · ",
  el("a", { href: `/math/${card.id}/par` }, `PAR sheet: ${card.name}`))));

rulesSelect.replaceChildren(...ruleCards().map((card) => el("option", { value: card.id }, card.name)));

async function loadWagers() {
  try {
    wagers = await api("GET", `/paytable-solver/${rulesSelect.value}`);
  } catch (error) { say(out, error.message, true); wagers = []; }
  const titles = ruleCards().find((card) => card.id === rulesSelect.value).titles;
  wagerSelect.replaceChildren(...wagers.map((item) => el("option", { value: item.wager }, titles[item.wager] || item.wager)));
  loadLines();
}

function loadLines() {
  const found = wagers.find((item) => item.wager === wagerSelect.value);
  lineSelect.replaceChildren(el("option", { value: "" }, "Scale the whole table"),
    ...(found ? found.lines : []).map((line) => el("option", { value: line }, `Line ${line.replaceAll("_", " ")}`)));
}

/** The solver computes as a design does, one at a time per account and a few in the
 * deployment: a busy answer (429) is retried after its Retry-After second. */
async function solve(body) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await api("POST", "/paytable-solutions", body);
    } catch (error) {
      if (!(error instanceof ApiRefusal) || error.status !== 429 || attempt >= 20) throw error;
      await new Promise((resolve) => { setTimeout(resolve, 1000); });
    }
  }
}

rulesSelect.addEventListener("change", loadWagers);
wagerSelect.addEventListener("change", loadLines);
document.getElementById("solver-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  say(out, "Solving (the first time a rule set is analysed this takes up to half a minute)…");
  try {
    const body = { rules: rulesSelect.value, wager: wagerSelect.value,
                   target: document.getElementById("solver-target").value };
    if (lineSelect.value) body.line = lineSelect.value;
    const solution = await solve(body);
    out.replaceChildren(
      el("table", { class: "pays" }, el("thead", {}, el("tr", {}, ...["Line", "Was", "Now"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, solution.rows.map((row) => el("tr", { style: row.changed ? "font-weight:bold" : "" },
          el("td", {}, row.line.replaceAll("_", " ")), el("td", { class: "num" }, row.was), el("td", { class: "num" }, row.now))))),
      el("p", {}, `House edge ${(100 * solution.house_edge).toFixed(4)}% (exactly ${solution.house_edge_exact}); ` +
        `target ${(100 * solution.target).toFixed(4)}%.` +
        (solution.exact !== null ? ` Exact ${solution.scale !== null ? "scale" : "pay"} for the target: ${solution.exact.toFixed(6)}.` : "")));
  } catch (error) { say(out, error.message, true); }
});

header().then((me) => { if (me) loadWagers(); else say(out, "Sign in on the lobby page to use the solver."); });
