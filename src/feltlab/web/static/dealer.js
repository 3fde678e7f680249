// The dealer trainer: a finished round from the engine; the trainee enters each wager's
// result; the server settles it (feltlab.core.payout) and the page scores and times it. The
// procedure view walks through the game's dealing procedure from the rule set.
import { api, el, header, ruleCards, ruleCard, say, signed, resultClass, cardsNode,
         splitCards } from "/static/common.js";

const select = document.getElementById("dealer-rules");
const roundBox = document.getElementById("dealer-round");
const answers = document.getElementById("answers");
const result = document.getElementById("dealer-result");
let current = null, started = 0, step = 0;
let scores = {};  // the player's dealer-trainer scores by rule set, kept by the server

function fillRules() {
  const wanted = new URLSearchParams(window.location.search).get("rules");
  select.replaceChildren(...ruleCards().map((card) => el("option", { value: card.id,
    selected: card.id === wanted }, card.name)));
}

function showRound(drill) {
  current = drill;
  const request = drill.request;
  const card = ruleCard(drill.rules);
  const parts = [];
  for (const [name, label] of [["player", "Player's cards"], ["dealer", "Dealer's cards"], ["community", "Community cards"]]) {
    if (request[name]) parts.push(el("h3", {}, label), cardsNode(splitCards(request[name]).map((text) => ({ text })), label));
  }
  const decisions = [drill.decided];
  if (request.colour) decisions.push(`colour ${request.colour}`);
  parts.push(el("p", {}, "Wagers: ", Object.entries(request.wagers).map(([name, amount]) =>
    `${card.titles[name] || name} ${amount}`).join(", "), ". Decision: ", decisions.join("; "), "."));
  roundBox.replaceChildren(el("div", { class: "felt dealer-felt" }, parts));
  document.getElementById("answer-lines").replaceChildren(...drill.to_settle.map((item) => el("div", { class: "line" },
    el("label", { for: `answer-${item.wager}` }, `${item.title} (stake ${item.stake}) result`),
    el("input", { id: `answer-${item.wager}`, type: "text", inputmode: "numeric", required: true,
      pattern: "-?[0-9]+", autocomplete: "off", "data-wager": item.wager }))));
  answers.hidden = false;
  result.replaceChildren();
  started = performance.now();
  answers.querySelector("input")?.focus();
}

async function newRound(event) {
  event?.preventDefault();
  try {
    showRound(await api("GET", `/dealer-rounds?rules=${encodeURIComponent(select.value)}`));
  } catch (error) { say(result, error.message, true); }
  showProcedure();
}

async function check(event) {
  event.preventDefault();
  const entered = {};
  for (const input of answers.querySelectorAll("input")) {
    const text = input.value.trim().replace(/^\+/, "");
    if (!/^-?\d+$/.test(text)) {
      say(result, `Enter a whole number for ${input.labels[0].textContent}.`, true);
      input.focus();
      return;
    }
    entered[input.dataset.wager] = Number(text);
  }
  const seconds = (performance.now() - started) / 1000;
  try {
    const checked = await api("POST", "/dealer-checks", { request: current.request, answers: entered,
      millis: Math.round(seconds * 1000), record: true });
    scores[current.rules] = checked.score;
    result.replaceChildren(
      el("p", { class: checked.right === checked.of ? "win" : "loss" },
        `${checked.right} of ${checked.of} right in ${seconds.toFixed(1)} s.`),
      el("table", { class: "pays" }, el("thead", {}, el("tr", {}, ...["Wager", "You", "Engine", "Verdict"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, checked.rows.map((row) => el("tr", {}, el("th", { scope: "row" }, row.title),
          el("td", { class: "num" }, signed(row.entered)), el("td", { class: `num ${resultClass(row.expected)}` }, signed(row.expected)),
          el("td", {}, row.right ? "right" : "wrong"))))),
      el("p", {}, `Round total ${signed(checked.total)}${checked.capped ? " (capped)" : ""}.`));
    answers.hidden = true;
    showScore();
  } catch (error) { say(result, error.message, true); }
}

function showScore() {
  const score = scores[select.value];
  document.getElementById("dealer-score").textContent = score
    ? `Score at ${ruleCard(select.value).name}: ${score.perfect} of ${score.rounds} rounds perfect, ` +
      `${score.right} of ${score.of} wagers right, ${(score.seconds / score.rounds).toFixed(1)} s a round.`
    : "";
}

function showProcedure() {
  const steps = ruleCard(select.value).procedure;
  step = Math.min(step, steps.length - 1);
  document.getElementById("procedure").replaceChildren(...steps.map((text, index) =>
    el("li", { class: index === step ? "current" : "", "aria-current": index === step ? "step" : false }, text)));
  document.getElementById("step-back").disabled = step === 0;
  document.getElementById("step-next").disabled = step === steps.length - 1;
}

fillRules();
showProcedure();
showScore();
select.addEventListener("change", () => { step = 0; showProcedure(); showScore(); });
document.getElementById("dealer-form").addEventListener("submit", newRound);
answers.addEventListener("submit", check);
document.getElementById("step-back").addEventListener("click", () => { step -= 1; showProcedure(); });
document.getElementById("step-next").addEventListener("click", () => { step += 1; showProcedure(); });
header().then(async (me) => {
  if (!me) { say(result, "Sign in on the lobby page to use the dealer trainer.", true); return; }
  scores = (await api("GET", "/me/trainer-scores")).dealer;
  showScore();
});
