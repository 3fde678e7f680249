// The variant designer: a form generated from the rule-set schema of the base's game, the
// exact PAR sheet of the design as you type (debounced; an answer older than the one shown
// never replaces it), beside the base's, the strategy card, protection figures, the
// pay-table solver, a TOML download, a printable odds sheet and, for admins, publishing.
// No rule of any game lives here: the schema, the figures and the refusals are the server's.
import { ApiRefusal, api, el, header, say } from "/static/common.js";
import { drawSheet, percent, wireFigures } from "/static/designer_sheet.js";

const DEBOUNCE_MS = 250;
const baseSelect = document.getElementById("designer-base");
const form = document.getElementById("designer-form");
const statusLine = document.getElementById("designer-status");
const warmLine = document.getElementById("designer-warm");

let base = null;        // GET /designer/base/{id}: toml, values, rules_schema, pay_tables
let baseSheet = null;   // the base's PAR sheet
let fields = [];        // [{path, read()}]: how to read each value back from the form
let timer = null;
let sent = 0;           // number of the latest design sent
let shown = 0;          // number of the design whose sheet is shown
let inFlight = false;
let waiting = false;    // an edit arrived while a design was being computed

const words = (name) => name.replaceAll("_", " ");
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

// --- TOML text from the form's values -------------------------------------------------------

function tomlKey(key) {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

function tomlValue(value) {
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(", ")}]`;
  return `{ ${Object.entries(value).filter(([, v]) => v !== null)
    .map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`).join(", ")} }`;
}

function toToml(values) {
  const lines = [];
  const tables = [];
  for (const [key, value] of Object.entries(values)) {
    if (value === null || value === undefined) continue;
    if (typeof value === "object" && !Array.isArray(value)) tables.push([key, value]);
    else lines.push(`${tomlKey(key)} = ${tomlValue(value)}`);
  }
  for (const [key, table] of tables) {
    lines.push("", `[${tomlKey(key)}]`);
    for (const [inner, value] of Object.entries(table)) {
      if (value !== null && value !== undefined) lines.push(`${tomlKey(inner)} = ${tomlValue(value)}`);
    }
  }
  return lines.join("\n") + "\n";
}

// --- the form, from the schema -----------------------------------------------------------------

function resolve(schema) {
  if (schema && schema.$ref) return base.rules_schema.$defs[schema.$ref.split("/").pop()];
  return schema;
}

/** The kind of input a scalar schema takes: int, int-or-none, int-or-text, bool, text, const. */
function scalarKind(schema) {
  const found = resolve(schema);
  if ("const" in found) return "const";
  if (found.anyOf) {
    const types = found.anyOf.map((option) => option.type);
    if (types.includes("null")) return "int-or-none";
    return "int-or-text";
  }
  if (found.type === "integer") return "int";
  if (found.type === "boolean") return "bool";
  if (found.type === "array") return "list";
  return "text";
}

function readScalar(kind, input) {
  const text = input.type === "checkbox" ? null : input.value.trim();
  if (kind === "bool") return input.checked;
  if (kind === "const") return JSON.parse(input.dataset.value);
  if (kind === "list") return text ? text.split(",").map((part) => part.trim()).filter(Boolean) : [];
  if (kind === "int" || kind === "int-or-none" || kind === "int-or-text") {
    if (text === "" && kind === "int-or-none") return null;
    if (/^-?\d+$/.test(text)) return Number(text);
    return text;  // the server names the field and says what it takes
  }
  return input.value;
}

function scalarInput(kind, value, id, label, schema) {
  const found = resolve(schema);
  if (kind === "bool") {
    return el("input", { type: "checkbox", id, checked: value === true, "aria-label": label });
  }
  if (kind === "const") {
    return el("output", { id, "data-value": JSON.stringify(value), "aria-label": label }, String(value));
  }
  const shownValue = value === null || value === undefined ? ""
    : Array.isArray(value) ? value.join(", ") : String(value);
  const numeric = kind !== "text" && kind !== "list" && kind !== "int-or-text";
  return el("input", {
    id, value: shownValue, "aria-label": label,
    inputmode: numeric ? "numeric" : undefined,
    size: numeric || kind === "int-or-text" ? 8 : undefined,
    placeholder: kind === "int-or-none" ? "none" : undefined,
    maxlength: found.maxLength,
  });
}

let uid = 0;
const nextId = () => `design-${++uid}`;

function titleOf(name, schema) {
  return (resolve(schema) && resolve(schema).title) || words(name);
}

/** One scalar field: a label and its input; the reader goes in `fields`. */
function scalarField(path, name, schema, value) {
  const kind = scalarKind(schema);
  const id = nextId();
  const label = titleOf(name, schema);
  const input = scalarInput(kind, value, id, label, schema);
  fields.push({ path, read: () => readScalar(kind, input) });
  const labelNode = el("label", { for: id }, label);
  return el("div", { class: kind === "bool" ? "field check" : "field" },
    kind === "bool" ? [input, labelNode] : [labelNode, input]);
}

/** An object with named properties (the qualifier): a fieldset of its fields. */
function objectField(path, name, schema, value) {
  const found = resolve(schema);
  return el("fieldset", { class: "group" }, el("legend", {}, titleOf(name, schema)),
    Object.entries(found.properties).map(([inner, innerSchema]) =>
      scalarField([...path, inner], inner, innerSchema, value ? value[inner] : undefined)));
}

/** A map (pay tables, raise sizes, limits, what a fold settles): an editable table. */
function mapField(path, name, schema, value) {
  const found = resolve(schema);
  const entry = resolve(found.additionalProperties);
  const columns = entry.properties ? Object.keys(entry.properties) : [null];
  const fixedKeys = found.propertyNames && found.propertyNames.enum;
  const title = titleOf(name, schema);
  const body = el("tbody");
  const rows = [];

  function addRow(key, rowValue) {
    const keyInput = fixedKeys
      ? el("th", { scope: "row" }, words(key))
      : el("td", {}, el("input", { value: key, size: 12, class: "line", "aria-label": `${title}: line` }));
    const inputs = columns.map((column) => {
      const kind = scalarKind(column ? entry.properties[column] : entry);
      const cellValue = column ? (rowValue || {})[column] : rowValue;
      const label = `${title} ${fixedKeys ? words(key) : ""} ${column || "value"}`.replace(/\s+/g, " ");
      return { kind, node: scalarInput(kind, cellValue, nextId(), label,
        column ? entry.properties[column] : entry) };
    });
    const row = { key, keyInput, inputs };
    const remove = fixedKeys ? null : el("td", {}, el("button", {
      type: "button", class: "btn small", "aria-label": `Remove this line of ${title}`,
      onclick: () => { rows.splice(rows.indexOf(row), 1); tr.remove(); schedule(); },
    }, "Remove"));
    const tr = el("tr", {}, keyInput, inputs.map((item) => el("td", {}, item.node)), remove);
    rows.push(row);
    body.append(tr);
  }

  for (const [key, rowValue] of Object.entries(value || {})) addRow(key, rowValue);
  fields.push({
    path,
    read: () => Object.fromEntries(rows.map((row) => {
      const key = fixedKeys ? row.key : row.keyInput.querySelector("input").value.trim();
      const read = row.inputs.map((item) => readScalar(item.kind, item.node));
      return [key, columns[0] === null ? read[0]
        : Object.fromEntries(columns.map((column, index) => [column, read[index]]))];
    })),
  });
  const head = el("tr", {}, el("th", { scope: "col" }, fixedKeys ? "Wager" : "Line"),
    columns.map((column) => el("th", { scope: "col" }, column ? words(column) : "Value")),
    fixedKeys ? null : el("th", { scope: "col" }, el("span", { class: "visually-hidden" }, "Remove")));
  const add = fixedKeys ? null : el("button", {
    type: "button", class: "btn small",
    onclick: () => { addRow("", columns[0] === null ? 0 : {}); schedule(); },
  }, `Add a line to ${title}`);
  return el("fieldset", { class: "group" }, el("legend", {}, title),
    el("div", { class: "scroll" }, el("table", { class: "pays edit" }, el("thead", {}, head), body)),
    add);
}

function buildForm(values = base.values) {
  fields = [];
  const schema = base.rules_schema;
  const parts = [];
  for (const [name, property] of Object.entries(schema.properties)) {
    const found = resolve(property);
    const value = values[name];
    if (found.type === "object" && found.properties) parts.push(objectField([name], name, property, value));
    else if (found.type === "object") parts.push(mapField([name], name, property, value));
    else parts.push(scalarField([name], name, property, value));
  }
  form.replaceChildren(...parts);
}

function designValues() {
  const values = {};
  for (const { path, read } of fields) {
    let target = values;
    for (const part of path.slice(0, -1)) target = target[part] ??= {};
    target[path[path.length - 1]] = read();
  }
  return values;
}

const designToml = () => toToml(designValues());

// --- computing, newest first ---------------------------------------------------------------------

let queue = Promise.resolve();

/** A designer call, one at a time from this page (the server computes one design per
 * account at a time); a busy answer (429) is retried after a second. */
function designerCall(path, body) {
  const run = queue.then(() => designerRequest(path, body));
  queue = run.catch(() => undefined);
  return run;
}

async function designerRequest(path, body) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await api("POST", `/designer/${path}`, body);
    } catch (error) {
      if (!(error instanceof ApiRefusal) || error.status !== 429 || attempt >= 20) throw error;
      await sleep(1000);
    }
  }
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(compute, DEBOUNCE_MS);
}

async function compute() {
  if (inFlight) { waiting = true; return; }
  inFlight = true;
  const number = ++sent;
  say(statusLine, "Computing…");
  try {
    const sheet = await designerCall("par", { rules: designToml() });
    if (number > shown) {  // never let an older answer replace a newer one
      shown = number;
      showSheet(sheet);
      say(statusLine, `Exact PAR sheet of this design (${sheet.rules}${sheet.modified ? ", modified" : ""}).`);
    }
  } catch (error) {
    if (number > shown) { shown = number; say(statusLine, error.message, true); }
  } finally {
    inFlight = false;
    if (waiting) { waiting = false; compute(); }
  }
}

// --- showing a sheet -------------------------------------------------------------------------------

/** The design's sheet beside the base's, with the design's rules for the odds sheet. */
function showSheet(sheet) {
  const values = designValues();
  const rules = Object.entries(values).filter(([, value]) => value !== null && typeof value !== "object")
    .map(([key, value]) => `${titleOf(key, base.rules_schema.properties[key])}: ${value}`);
  drawSheet(sheet, baseSheet, rules);
}

// --- the base, protection, solving, download, print, publish --------------------------------------

async function loadBase() {
  say(statusLine, "Loading the base rule set…");
  try {
    base = await api("GET", `/designer/base/${encodeURIComponent(baseSelect.value)}`);
  } catch (error) { say(statusLine, error.message, true); return; }
  buildForm();
  fillSolver();
  baseSheet = null;
  try {
    baseSheet = await designerCall("par", { rules: base.toml });
  } catch (error) { say(statusLine, error.message, true); }
  await compute();
}

function fillSolver() {
  const wagerSelect = document.getElementById("solve-wager");
  wagerSelect.replaceChildren(...Object.entries(base.pay_tables).map(([wager, field]) =>
    el("option", { value: wager }, `${titleOf(field, base.rules_schema.properties[field])} (${words(wager)})`)));
  fillLines();
}

function fillLines() {
  const wager = document.getElementById("solve-wager").value;
  const table = designValues()[base.pay_tables[wager]] || {};
  document.getElementById("solve-line").replaceChildren(el("option", { value: "" }, "Scale the whole table"),
    ...Object.keys(table).map((line) => el("option", { value: line }, `Line ${words(line)}`)));
}

document.getElementById("solve-wager").addEventListener("change", fillLines);
document.getElementById("solve-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const out = document.getElementById("solve-result");
  say(out, "Solving…");
  const body = { rules: designToml(), wager: document.getElementById("solve-wager").value,
                 target: document.getElementById("solve-target").value };
  const line = document.getElementById("solve-line").value;
  if (line) body.line = line;
  try {
    const solution = await designerCall("solve", body);
    const apply = el("button", { type: "button", class: "btn", onclick: () => applySolution(solution) },
      "Use these pays in the design");
    out.replaceChildren(el("table", { class: "pays" },
      el("thead", {}, el("tr", {}, ["Line", "Was", "Now"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, solution.rows.map((row) => el("tr", {}, el("td", {}, words(row.line)),
        el("td", { class: "num" }, row.was), el("td", { class: "num" }, row.now))))),
    el("p", {}, `House edge ${percent(solution.house_edge)} (target ${percent(solution.target)}).`), apply);
  } catch (error) { say(out, error.message, true); }
});

function applySolution(solution) {
  const values = designValues();
  const field = base.pay_tables[solution.wager];
  for (const row of solution.rows) {
    values[field][row.line] = row.pays;
  }
  buildForm(values);
  schedule();
}

document.getElementById("protection-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const out = document.getElementById("protection-result");
  say(out, "Computing protection figures (a few seconds)…");
  try {
    const found = await designerCall("protection", {
      rules: designToml(), colluders: Number(document.getElementById("protection-colluders").value) });
    out.replaceChildren(el("table", { class: "pays" },
      el("thead", {}, el("tr", {}, ["Case", "Players' edge", "Method"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, found.cases.map((item) => el("tr", {}, el("td", {}, item.case),
        el("td", { class: "num" }, `${percent(item.player_edge)}${item.exact ? "" : ` ± ${percent(item.std_error)}`}`),
        el("td", {}, item.method))))),
    el("p", { class: "hint" }, `House edge with no extra information: ${percent(found.house_edge)}.`));
  } catch (error) { say(out, error.message, true); }
});

wireFigures();
document.getElementById("designer-reset").addEventListener("click", () => { buildForm(); schedule(); });
baseSelect.addEventListener("change", loadBase);
form.addEventListener("input", schedule);
form.addEventListener("change", schedule);
form.addEventListener("submit", (event) => event.preventDefault());

document.getElementById("designer-download").addEventListener("click", () => {
  const values = designValues();
  const link = el("a", { href: URL.createObjectURL(new Blob([toToml(values)], { type: "application/toml" })),
                         download: `${values.id || "design"}.toml` });
  document.body.append(link);
  link.click();
  link.remove();
});
document.getElementById("designer-print").addEventListener("click", () => window.print());
/** Ask the admin to confirm publishing a design with a negative house edge, showing every
 * wager's edge (the server's figures); resolves true to publish it anyway. */
function confirmPlayerEdge(checks) {
  const dialog = document.getElementById("publish-dialog");
  const favoured = checks.player_favoured.map(words).join(", ");
  document.getElementById("publish-dialog-text").textContent =
    `${checks.rules}: the house edge of ${favoured} is below 0, so players win on average. ` +
    "Publish it anyway? The audit log records that you did.";
  document.getElementById("publish-edges").replaceChildren(
    el("thead", {}, el("tr", {}, ["Wager", "House edge", ""].map((title) => el("th", { scope: "col" }, title)))),
    el("tbody", {}, Object.entries(checks.house_edges).map(([wager, edge]) =>
      el("tr", { class: edge < 0 ? "flagged" : "" }, el("th", { scope: "row" }, words(wager)),
        el("td", { class: "num" }, percent(edge)),
        el("td", {}, edge < 0 ? el("span", { class: "flag" }, "favours the player") : "")))));
  return new Promise((resolve) => {
    const form = document.getElementById("publish-dialog-form");
    const cancel = document.getElementById("publish-cancel");
    const done = (answer) => {
      form.removeEventListener("submit", confirm);
      cancel.removeEventListener("click", dismiss);
      dialog.removeEventListener("cancel", dismiss);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const confirm = (event) => { event.preventDefault(); done(true); };
    const dismiss = (event) => { event.preventDefault(); done(false); };
    form.addEventListener("submit", confirm);
    cancel.addEventListener("click", dismiss);
    dialog.addEventListener("cancel", dismiss);
    dialog.showModal();
    cancel.focus();
  });
}

document.getElementById("designer-publish").addEventListener("click", async () => {
  const out = document.getElementById("designer-publish-result");
  const rules = designToml();
  say(out, "Checking the design…");
  try {
    const checks = await api("POST", "/admin/rulesets/check", { rules });
    const favoured = checks.player_favoured.length > 0;
    // over the exposure limit, publishing is refused whatever is confirmed: say why at once
    if (favoured && checks.exposure <= checks.exposure_limit) {
      say(out, "");
      if (!(await confirmPlayerEdge(checks))) { say(out, "Not published."); return; }
    }
    const entry = await api("POST", "/admin/rulesets", favoured ? { rules, allow_player_edge: true } : { rules });
    say(out, `Published ${entry.id} (fingerprint ${entry.fingerprint.slice(0, 12)}): new tables may deal it` +
      (favoured ? ", favouring the player as you confirmed (written to the audit log)." : "."));
  } catch (error) { say(out, error.message, true); }
});

async function watchWarmth() {
  for (;;) {
    let state = null;
    try { state = await api("GET", "/designer/status"); } catch { return; }
    if (state.warm) { say(warmLine, ""); return; }
    say(warmLine, `The designer is warming up (loading the exact analysis: ${state.warming.join(", ")}); ` +
      "the first answers may take a little longer.");
    await sleep(1500);
  }
}

header().then(async (me) => {
  if (!me) { say(statusLine, "Sign in on the lobby page to use the designer.", true); return; }
  document.getElementById("designer-publish").hidden = me.role !== "admin";
  watchWarmth();
  const rules = await api("GET", "/rules");
  baseSelect.replaceChildren(...rules.map((item) => el("option", { value: item.id }, item.name)));
  const wanted = new URLSearchParams(window.location.search).get("base");
  baseSelect.value = rules.some((item) => item.id === wanted) ? wanted : "high-card-flush";
  await loadBase();
});
