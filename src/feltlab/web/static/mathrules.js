// One rule set's strategy card, overview and charts (the analysis report's own HTML).
import { el, header, ruleCard, rulesDetails } from "/static/common.js";

const rulesId = window.location.pathname.split("/")[2];
const card = ruleCard(rulesId);
document.getElementById("math-title").textContent = `${card.name}: strategy card and charts`;
document.title = `feltlab: ${card.name} strategy`;
const link = document.getElementById("par-link");
link.href = `/math/${rulesId}/par`;
link.textContent = `The full PAR sheet of ${card.name}`;

async function load() {
  const body = document.getElementById("math-body");
  const started = Date.now();
  const ticker = setInterval(() => {
    const status = body.querySelector(".status");
    if (status) status.textContent = `Computing the exact figures… ${Math.round((Date.now() - started) / 1000)} s`;
  }, 1000);
  try {
    const response = await fetch(`/math/${rulesId}/fragment`);
    const text = await response.text();
    if (!response.ok) throw new Error(text);
    const fragment = document.createRange().createContextualFragment(text);
    body.replaceChildren(fragment, el("section", { class: "panel" }, el("h2", {}, "Rules and pay tables"), rulesDetails(card, 3)));
  } catch (error) {
    body.replaceChildren(el("p", { class: "status error" }, `Could not compute: ${error.message}`));
  } finally { clearInterval(ticker); }
}

header();
load();
