// The variant designer's PAR sheet as shown: each wager's figures beside the base's, the
// strategy card, the return tables and the printable odds sheet, with as many decimals
// as the designer chooses and, on request, each house edge as its exact fraction (the
// API gives both). Every figure shown has the one minus sign (numbers.js).
import { el, keep, store } from "/static/common.js";
import { difference, fixed, fraction, fractionText, minus, percent as percentOf, points as pointsOf }
  from "/static/numbers.js";

const summary = document.getElementById("designer-summary");
const cardBox = document.getElementById("designer-card");
const returnsBox = document.getElementById("designer-returns");
const oddsBody = document.getElementById("odds-body");
const PLACES = [4, 6, 8, 10];

/** How the figures are shown, kept in the browser between visits. */
const figures = { places: store("designer:places", 4), exact: store("designer:exact", false) };
if (!PLACES.includes(figures.places)) figures.places = 4;
let drawn = null;  // the arguments of the sheet drawn, to draw it again

export const percent = (value) => percentOf(value, figures.places);
const points = (value) => pointsOf(value, figures.places);

/** Wire the sheet's Decimals and Exact fractions controls: a change draws the sheet shown
 * again (nothing is computed; the control keeps the focus). */
export function wireFigures() {
  const places = document.getElementById("sheet-places");
  const exact = document.getElementById("sheet-exact");
  places.value = String(figures.places);
  exact.checked = figures.exact;
  const change = () => {
    figures.places = Number(places.value);
    figures.exact = exact.checked;
    keep("designer:places", figures.places);
    keep("designer:exact", figures.exact);
    if (drawn) drawSheet(...drawn);
  };
  places.addEventListener("change", change);
  exact.addEventListener("change", change);
}

/** An edge's cell: the percentage and, with exact figures on, the exact fraction under it
 * (a long one breaks after its slash). */
function edgeCell(className, shown, exact) {
  const [top, bottom] = exact.split("/");
  return el("td", { class: `num ${className}`.trim() }, shown, figures.exact
    ? el("span", { class: "exact" }, top, bottom ? ["/", el("wbr"), bottom] : null) : null);
}

function summaryRow(wager, was) {
  const edge = fraction(wager.house_edge_exact);
  const cells = was
    ? [edgeCell("", percent(was.house_edge), fractionText(fraction(was.house_edge_exact))),
      edgeCell("change", points(wager.house_edge - was.house_edge),
        fractionText(difference(edge, fraction(was.house_edge_exact)), true))]
    : [el("td", { class: "num" }, "–"), el("td", { class: "num change" }, "new")];
  return el("tr", { "data-wager": wager.name },
    el("th", { scope: "row" }, wager.title),
    wager.std_error === undefined ? edgeCell("edge", percent(wager.house_edge), fractionText(edge))
      : edgeCell("edge", `${percent(wager.house_edge)} ± ${percent(wager.std_error)}`, "an estimate"),
    ...cells,
    el("td", { class: "num" }, percent(wager.element_of_risk)),
    el("td", { class: "num" }, percent(wager.hit_frequency)),
    el("td", { class: "num" }, fixed(wager.std_dev, figures.places)));
}

/** Draw the design's `sheet` beside `baseSheet` (null: not known yet); `rules`: the
 * design's rules as lines of the odds sheet. */
export function drawSheet(sheet, baseSheet, rules) {
  drawn = [sheet, baseSheet, rules];
  const baseWagers = Object.fromEntries((baseSheet ? baseSheet.wagers : []).map((w) => [w.name, w]));
  const header = el("tr", {}, ["Wager", "House edge", "Base", "Change", "Element of risk",
    "Hit frequency", "Std. dev."].map((text, index) =>
    el("th", { scope: "col", class: index ? "num" : "" }, text)));
  const rows = sheet.wagers.map((wager) => summaryRow(wager, baseWagers[wager.name]));
  summary.replaceChildren(el("table", { class: "pays", id: "designer-sheet" },
    el("caption", { class: "visually-hidden" }, "House edge of each wager, beside the base"),
    el("thead", {}, header), el("tbody", {}, rows)));
  if (figures.exact) {
    summary.append(el("p", { class: "hint" },
      "Under each figure, its exact fraction of a unit of the wager (the change: of the base's)."));
  }
  const card = sheet.strategy_card;
  cardBox.replaceChildren(card ? el("div", {},
    el("ol", {}, card.lines.map((line) => el("li", {}, line))),
    el("p", { class: "hint" }, `Played by the card: house edge ${percent(card.house_edge)}, ` +
      `${percent(card.cost)} more than the optimal strategy's ${percent(card.optimal_house_edge)}.`))
    : el("p", { class: "hint" }, "No strategy card for this game."));
  returnsBox.replaceChildren(...sheet.wagers.map((wager) => el("details", {},
    el("summary", {}, `${wager.title}: return table`),
    el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": `${wager.title} return table` },
      returnTable(wager)))));
  oddsSheet(sheet, rules);
}

function returnTable(wager) {
  return el("table", { class: "pays" },
    el("thead", {}, el("tr", {}, ["Outcome", "Net", "Count", "Probability", "Return"]
      .map((text, index) => el("th", { scope: "col", class: index ? "num" : "" }, text)))),
    el("tbody", {}, wager.lines.map((line) => el("tr", {},
      el("td", {}, line.label), el("td", { class: "num" }, minus(line.net)),
      el("td", { class: "num" }, line.count.toLocaleString("en")),
      el("td", { class: "num" }, fixed(line.probability, Math.max(10, figures.places))),
      el("td", { class: "num" }, fixed(line.contribution, Math.max(8, figures.places)))))));
}

function trueOdds(probability) {
  if (probability <= 0) return "never";
  if (probability >= 1) return "certain";
  return `${((1 - probability) / probability).toLocaleString("en", { maximumFractionDigits: 2 })} to 1`;
}

/** The odds sheet as a regulator's file asks for it: the rules, then for each wager the
 * pays, the probability and true odds of each outcome, and the house advantage. */
function oddsSheet(sheet, rules) {
  oddsBody.replaceChildren(
    el("p", {}, el("strong", {}, sheet.name), ` (${sheet.rules}), fingerprint `,
      el("code", { class: "hash" }, sheet.fingerprint)),
    el("h3", {}, "Rules"), el("ul", {}, rules.map((line) => el("li", {}, line))),
    ...sheet.wagers.map((wager) => el("div", { class: "odds-wager" },
      el("h3", {}, wager.title),
      el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": `${wager.title} odds` },
        el("table", { class: "pays" },
          el("thead", {}, el("tr", {}, ["Outcome", "Pays (net, per unit)", "Probability", "True odds against"]
            .map((text, index) => el("th", { scope: "col", class: index ? "num" : "" }, text)))),
          el("tbody", {}, wager.lines.map((line) => el("tr", {},
            el("td", {}, line.label), el("td", { class: "num" }, minus(line.net)),
            el("td", { class: "num" }, fixed(line.probability, 8)),
            el("td", { class: "num" }, trueOdds(line.probability))))))),
      el("p", {}, `House advantage ${percent(wager.house_edge)}; element of risk ` +
        `${percent(wager.element_of_risk)}; hit frequency ${percent(wager.hit_frequency)}.`))),
    el("p", { class: "hint" }, "Exact figures: every deal counted (feltlab analyze)."));
}
