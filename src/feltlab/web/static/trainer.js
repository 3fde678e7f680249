// Strategy drills without chips: a random hand (or the closest of many), the options,
// then the advisor's exact EVs and the verdict; the mistakes made at tables replay here.
import { api, el, header, ruleCards, say, cardsNode, splitCards, store, keep } from "/static/common.js";

const select = document.getElementById("drill-rules");
const hand = document.getElementById("drill-hand");
const options = document.getElementById("drill-options");
const adviceBox = document.getElementById("drill-advice");
let current = null;

function fillRules() {
  const wanted = new URLSearchParams(window.location.search).get("rules");
  select.replaceChildren(...ruleCards().map((card) => el("option", { value: card.id,
    selected: card.id === wanted }, card.name)));
}

function showHand(drill) {
  current = drill;
  const parts = [];
  if (drill.player) parts.push(el("h3", {}, "Your cards"), cardsNode(splitCards(drill.player), "Your cards"));
  if (drill.community) parts.push(el("h3", {}, "Community cards"), cardsNode(splitCards(drill.community), "Community cards"));
  if (drill.colour) parts.push(el("p", {}, `Your colour: ${drill.colour}`));
  if (drill.bets && drill.bets.length) parts.push(el("p", {}, `Street bets so far: ${drill.bets.map((b) => `${b}x`).join(", ")}`));
  hand.replaceChildren(el("div", { class: "felt dealer-felt" }, parts));
  adviceBox.replaceChildren();
  options.replaceChildren(...drill.advice.options.map((option) => el("button", {
    type: "button", class: "btn primary", onclick: () => choose(option) }, option.label)));
}

function choose(option) {
  const advice = current.advice;
  const best = advice.options.find((item) => item.best);
  const cost = best.ev - option.ev;
  const right = option.best || cost === 0;
  const score = store("drill:score", { right: 0, total: 0 });
  score.total += 1; if (right) score.right += 1;
  keep("drill:score", score);
  for (const button of options.querySelectorAll("button")) button.disabled = true;
  adviceBox.replaceChildren(
    el("p", { class: `verdict ${right ? "right" : "wrong"}` }, right ? `Right: ${option.label} is best.`
      : `Mistake: ${option.label} costs ${cost.toFixed(4)} units; best is ${best.label}.`),
    el("table", { class: "pays", "aria-label": "Advisor's EVs" }, el("tbody", {},
      advice.options.map((item) => el("tr", {}, el("td", {}, item.label + (item.best ? " (best)" : "")),
        el("td", { class: "num" }, `${item.ev >= 0 ? "+" : ""}${item.ev.toFixed(4)} (exact ${item.ev_exact})`))))));
  document.getElementById("drill-score").textContent =
    `Drill accuracy ${score.right} of ${score.total}.`;
}

async function newHand(event) {
  event?.preventDefault();
  const card = ruleCards().find((item) => item.id === select.value);
  if (card && !card.facets.includes("math")) {  // a game without exact math has no advisor
    options.replaceChildren();
    say(adviceBox, `${card.name} has no advisor: the strategy trainer needs the game's exact math.`, true);
    return;
  }
  adviceBox.replaceChildren(el("p", { class: "status", role: "status" }, "Dealing…"));
  try {
    showHand(await api("GET", `/drills?rules=${encodeURIComponent(select.value)}` +
      `&close=${document.getElementById("drill-close").checked}`));
  } catch (error) {
    say(adviceBox, error.message, true);
  }
}

async function replay(mistake) {
  select.value = mistake.rules;
  try {
    const advice = await api("POST", "/advice", { rules: mistake.rules, player: mistake.player,
      community: mistake.community, colour: mistake.colour, bets: mistake.bets, ante: 1 });
    showHand({ ...mistake, advice });
    window.scrollTo(0, 0);
  } catch (error) { say(adviceBox, error.message, true); }
}

function showMistakes() {
  const mistakes = store("trainer:mistakes", []);
  const list = document.getElementById("mistakes");
  const names = Object.fromEntries(ruleCards().map((card) => [card.id, card.name]));
  list.replaceChildren(...(mistakes.length ? mistakes.map((mistake, index) => el("li", { class: "row" },
    `${names[mistake.rules] || mistake.rules}: ${mistake.player || ""} ${mistake.community ? "| " + mistake.community : ""} — you chose ${mistake.chosen}, best ${mistake.best} (cost ${mistake.cost.toFixed(3)})`,
    el("button", { type: "button", class: "btn", "aria-label": `Replay mistake ${index + 1}`,
      onclick: () => replay(mistake) }, "Replay")))
    : [el("li", { class: "hint" }, "No mistakes recorded: turn on the Strategy trainer at a table.")]));
}

fillRules();
showMistakes();
document.getElementById("drill-form").addEventListener("submit", newHand);
header().then((me) => {
  if (!me) adviceBox.replaceChildren(el("p", { class: "status error" }, "Sign in on the lobby page to use the trainer."));
});
