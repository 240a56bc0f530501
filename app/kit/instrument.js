// The lesson instrument (app/kit/instrument.py): a dynamics lesson's controls, charts, readouts and live
// equations, drawn here as one object, so that a move shows one value everywhere.
//
// Two mounts of this component reach this function. The family mount ({role: "family"}) brings every chart's
// frames and every member's readouts and equations; it is kept in `registry.families[page]` (it does not depend
// on the current value: Streamlit sends it again only as a reference). The page mount ({role: "instrument"})
// brings the controls, the presets, every chart at the current value and its readouts and equations; this
// function draws it into the mount's own element and updates it in place on the next payload.
//
// Moving the swept control shows the member at that position in every chart (plotly's public
// addFrames/animate), readout and equation at once; its release (or a pause in the keys) commits the member's
// value. Any other control and every preset commits on release and puts the whole instrument in one pending
// state until the page at the new values arrives. Each commit carries a sequence number that the page's
// payload echoes: a payload older than the last commit never replaces what the learner sees.
//
// Every chart says what it shows (app/kit/chart_text.py): its summary is its accessible name, and "Show the data"
// under it holds the summary and its series' points as tables — the member's during a move, as its readouts are.
// The server words the page it draws; a member's charts are worded here, from the frames they are moved to
// (chart_words.js, chart_text.py's twin), with the member's notes: a family carries no words.
// Each committed move is announced once, in the polite live region: its readouts (a swept move's as it commits,
// any other move's once the page at the new values arrives).
const ANIMATE = { mode: "immediate", frame: { duration: 0, redraw: true }, transition: { duration: 0 } };
const KEY_PAUSE_MS = 350;          // a run of arrow keys commits once, this long after its last key
const STALE_MS = 5000;             // a commit's answer is awaited this long before any page is shown again
const MAIN_HEIGHT = 380;           // px: the main chart's most, so controls, readouts and chart share one screen
const PRESENT_MAIN_HEIGHT = 350;   // px: the same on a projector, whose readouts are larger
const MIN_MAIN_HEIGHT = 280;       // px: never less (a phone scrolls to it)

// The chart words' module, at this script's own version (app/kit/vendor.py serves both under one digest).
const { chartText, TYPED, bytesOf } = await import(new URL(`chart_words.js${new URL(import.meta.url).search}`, import.meta.url).href);

const registry = (window.__lcsmInstrument = window.__lcsmInstrument ||
  { families: {}, listeners: {}, loads: {}, focused: {} });

function decode(data) {
  if (data instanceof ArrayBuffer) data = new Uint8Array(data);
  if (data instanceof Uint8Array) return JSON.parse(new TextDecoder().decode(data));
  return data;
}

function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "className") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child) node.appendChild(child);
  return node;
}

// --- plotly.js and KaTeX: the installed packages' files, served by the app (app/kit/vendor.py) -------------
function load(url, kind) {
  if (!registry.loads[url]) {
    registry.loads[url] = new Promise((resolve, reject) => {
      const node = kind === "css" ? el("link", { rel: "stylesheet", href: url }) : el("script", { src: url });
      node.onload = () => resolve(true);
      node.onerror = () => reject(new Error(`${url} did not load`));
      document.head.appendChild(node);
    });
  }
  return registry.loads[url];
}

function plotlyReady(vendor) {
  if (window.Plotly && window.Plotly.newPlot) return Promise.resolve(window.Plotly);
  return load(vendor.plotly, "js").then(() => window.Plotly);
}

function katexReady(vendor) {
  if (window.katex) return Promise.resolve(window.katex);
  return Promise.all([load(vendor.katex_css, "css"), load(vendor.katex_js, "js")])
    .then(() => window.katex).catch(() => null);
}

// --- the page's theme -----------------------------------------------------------------------------------
// A chart names the theme's colours by the placeholders of Streamlit's plotly template (figure_style INK and PAPER;
// the template's own categorical colours): Streamlit's chart element replaces them with its theme's colours, and so
// does the instrument, with the colours Streamlit gives its component (the --st-* CSS variables), so that its charts
// follow a light or a dark page. What Streamlit's template gives every chart besides (the page's background, faint
// grid lines, a tool bar that shows on it) goes to each layout that does not say otherwise.
function themeOf(node) {
  const style = getComputedStyle(node);
  const read = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
  const text = read("--st-text-color", "#262730");
  const background = read("--st-background-color", "#ffffff");
  const colours = { "#000037": text, "#000038": background };
  read("--st-chart-categorical-colors", "").split(",").slice(0, 10).forEach((colour, i) => {
    if (colour.trim()) colours[`#0000${String(i + 1).padStart(2, "0")}`] = colour.trim();
  });
  return { colours, text, background, grid: read("--st-border-color-light", "rgba(128, 128, 128, 0.25)"),
    dark: luminance(background) < 0.4, key: JSON.stringify([text, background, colours]) };
}

function luminance(colour) {
  const probe = document.createElement("canvas").getContext("2d");
  probe.fillStyle = "#ffffff";
  probe.fillStyle = colour;                   // normalized by the browser to "#rrggbb" (or rgba(...))
  const found = String(probe.fillStyle).match(/[0-9a-f]{2}/gi);
  if (!found || !String(probe.fillStyle).startsWith("#")) return 1;
  const [r, g, b] = found.slice(0, 3).map((h) => parseInt(h, 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// Every placeholder colour in a figure (its data, layout and frames: in place), arrays of numbers left alone.
function themed(value, colours) {
  if (Array.isArray(value)) {
    if (value.length && typeof value[0] === "number") return value;
    for (let i = 0; i < value.length; i++) value[i] = themed(value[i], colours);
    return value;
  }
  if (typeof value === "string") return colours[value.toLowerCase()] || value;
  if (!value || typeof value !== "object" || ArrayBuffer.isView(value) || value.bdata !== undefined) return value;
  for (const key of Object.keys(value)) value[key] = themed(value[key], colours);
  return value;
}

function themeLayout(layout, theme) {
  layout.paper_bgcolor = layout.paper_bgcolor || theme.background;
  layout.plot_bgcolor = layout.plot_bgcolor || theme.background;
  layout.modebar = { bgcolor: "rgba(0, 0, 0, 0)", color: theme.text, activecolor: theme.text, ...(layout.modebar || {}) };
  for (const [key, axis] of Object.entries(layout)) {
    if (!/^[xy]axis\d*$/.test(key) || !axis || typeof axis !== "object") continue;
    axis.gridcolor = axis.gridcolor || theme.grid;
    axis.zerolinecolor = axis.zerolinecolor || theme.grid;
    axis.linecolor = axis.linecolor || theme.text;
  }
  return layout;
}

// --- the family ---------------------------------------------------------------------------------------
// The family as it arrives (family.shared_arrays): an array that occurs in more than one frame came once, in
// `arrays`, and is named {ref: n} where it occurs; each place gets its own copy back (plotly decodes in place).
// {ref: n, length: k} names the first k values of array n (a training cut at each member's step): that place
// gets a typed array of them, which plotly takes as it takes a decoded one.
const AXIS_KEY = /^[xy]axis\d*$/;     // figure_style.AXIS_KEY: a layout key a frame's range merges into
// (TYPED, bytesOf: a typed-array spec's types and bytes, from chart_words.js, which reads the same specs)

function withArrays(family) {
  const arrays = family.arrays || [];
  const buffers = new Map();
  const start = (ref, length) => {
    const whole = arrays[ref], Type = TYPED[whole.dtype];
    if (!buffers.has(ref)) buffers.set(ref, bytesOf(whole));
    return new Type(buffers.get(ref).slice(0, length * Type.BYTES_PER_ELEMENT));
  };
  for (const groups of Object.values(family.charts || {})) {
    for (const group of groups) {
      for (const frame of group.frames) {
        for (const trace of frame.data) {
          for (const [key, value] of Object.entries(trace)) {
            if (!value || typeof value !== "object" || value.ref === undefined) continue;
            const names = Object.keys(value);
            if (names.length === 1) trace[key] = Object.assign({}, arrays[value.ref]);
            else if (names.length === 2 && value.length !== undefined) trace[key] = start(value.ref, value.length);
          }
        }
      }
    }
  }
  return family;
}

function keepFamily(payload) {
  const held = registry.families[payload.page];
  if (held && held.id === payload.family_id) return;
  registry.families[payload.page] = { id: payload.family_id, family: withArrays(payload.family), words: new Map() };
  const listener = registry.listeners[payload.page];
  if (listener) listener();
}

// --- text: readouts, equations, the live region ------------------------------------------------------------
function typeset(katex, tex, node) {
  if (katex) {
    try {
      katex.render("\\displaystyle " + tex, node, { throwOnError: false, displayMode: false, output: "htmlAndMathml" });
      return;
    } catch (err) { /* shown as text below */ }
  }
  node.textContent = tex;
}

// A notice or caption: plain text, **bold** and $math$ (what the lessons' notices use).
function richText(katex, text, node) {
  node.textContent = "";
  for (const piece of String(text).split(/(\$[^$]+\$|\*\*[^*]+\*\*)/)) {
    if (!piece) continue;
    if (piece.startsWith("$") && piece.endsWith("$") && piece.length > 2) {
      const math = el("span");
      if (katex) katex.render(piece.slice(1, -1), math, { throwOnError: false, output: "htmlAndMathml" });
      else math.textContent = piece.slice(1, -1);
      node.appendChild(math);
    } else if (piece.startsWith("**") && piece.endsWith("**")) node.appendChild(el("strong", { text: piece.slice(2, -2) }));
    else node.appendChild(document.createTextNode(piece));
  }
}

function drawReadouts(state, text) {
  const { metrics, notices } = state.nodes;
  metrics.textContent = "";
  for (const m of text.metrics) {
    const card = el("div", { className: "lcsm-metric", role: "group", "aria-label": m.label }, [
      el("div", { className: "lcsm-metric-label", text: m.label }),
      el("div", { className: "lcsm-metric-value", text: m.value, "data-testid": "lcsm-metric-value" }),
    ]);
    if (m.delta) card.appendChild(el("div", { className: `lcsm-metric-delta lcsm-good-${m.good}`, text: m.delta }));
    metrics.appendChild(card);
  }
  notices.textContent = "";
  for (const n of text.notices) {
    const box = el("div", { className: `lcsm-notice lcsm-notice-${n.level}`, role: "note" });
    if (n.icon) box.appendChild(el("span", { className: "lcsm-notice-icon", "aria-hidden": "true", text: n.icon + " " }));
    const words = el("span");
    richText(state.katex, n.text, words);
    box.appendChild(words);
    notices.appendChild(box);
  }
  const equations = state.nodes.equations;
  equations.textContent = "";
  for (const line of text.equations) {
    const block = el("div", { className: "lcsm-equation" });
    for (const term of line) {
      const piece = el("div", { className: "lcsm-term", "data-tex": term });
      typeset(state.katex, term, piece);
      block.appendChild(piece);
    }
    equations.appendChild(block);
  }
  equations.hidden = !text.equations.length;
  requestAnimationFrame(() => fitTerms(equations));
}

// A term wider than the page even where KaTeX may break it (a fraction beside a number on a phone) is set smaller
// until it fits: the block never scrolls sideways.
function fitTerms(equations) {
  const room = equations.clientWidth;
  for (const term of equations.querySelectorAll(".lcsm-term")) {
    term.style.fontSize = "";
    if (room && term.scrollWidth > room) term.style.fontSize = `${Math.floor((100 * room) / term.scrollWidth)}%`;
  }
}

// The readouts in words, for the live region: each metric, then each notice (its markup as plain text).
function readoutWords(text) {
  const plain = (words) => String(words).replace(/\*\*/g, "").replace(/\$([^$]+)\$/g, "$1");
  return [...text.metrics.map((m) => `${m.label} ${m.value}`), ...text.notices.map((n) => plain(n.text))].join("; ");
}

// One announcement per committed move (its caller is the commit): the live region's text set once.
function announce(state, text) {
  if (text) state.nodes.live.textContent = readoutWords(text);
}

// --- what each chart shows, in words and numbers (chart_text.py) ------------------------------------------------
// A cell as chart_text.shown writes it (Python's "{:.4g}"): 4 significant digits, no trailing zeros.
function shownCell(value) {
  if (value === null || value === undefined) return "";
  if (typeof value !== "number") return String(value);
  if (value === 0) return "0";
  const power = Math.floor(Math.log10(Math.abs(value)));
  if (power >= -4 && power < 4) return String(Number(value.toPrecision(4)));
  const [mantissa, exponent] = value.toExponential(3).split("e");
  const digits = String(Math.abs(Number(exponent))).padStart(2, "0");
  return `${mantissa.replace(/\.?0+$/, "")}e${exponent.startsWith("-") ? "-" : "+"}${digits}`;
}

function dataTable(table) {
  const head = el("tr", {}, table.headers.map((h) => el("th", { scope: "col", text: h })));
  const body = el("tbody");
  const rows = table.columns.length ? table.columns[0].length : 0;
  for (let r = 0; r < rows; r++) {
    body.appendChild(el("tr", {}, table.columns.map((column, c) =>
      el(c === 0 ? "th" : "td", { scope: c === 0 ? "row" : null, text: shownCell(column[r]) }))));
  }
  const grid = el("table", { className: "lcsm-data-table" }, [el("caption", { text: table.caption }),
    el("thead", {}, [head]), body]);
  // a wide table (a heat map's columns) scrolls sideways in its own box, which the keyboard can reach
  return el("div", { className: "lcsm-table-box", role: "region", tabindex: "0", "aria-label": table.name || table.caption }, [grid]);
}

// A chart saved as the learner sees it (the member shown, the page's theme), by plotly.js in this browser: the
// tool bar's file name, at its scale for PNG.
const DATA_LABEL = "Show the data · SVG · PNG";
const SAVED_AS = { svg: 1, png: 2 };               // format: scale
function saveChart(box, format) {
  const { filename = "chart" } = box.image;
  return window.Plotly.downloadImage(box.plot, { format, filename, scale: SAVED_AS[format],
    width: box.plot.offsetWidth || 900, height: box.plot.offsetHeight || 450 });
}

// The chart's words: its summary as its accessible name; the summary and tables under "Show the data", written
// when that is open (and again on each move while it is).
function setChartWords(box, words) {
  if (!words) return;
  box.words = words;
  box.figure.setAttribute("aria-label", words.summary);
  if (box.details.open) fillData(box);
  else box.filled = false;
}

function fillData(box) {
  const words = box.words;
  box.data.textContent = "";
  if (!words) return;
  box.data.appendChild(el("p", { className: "lcsm-data-summary", text: words.summary }));
  for (const table of words.tables) box.data.appendChild(dataTable(table));
  box.filled = true;
}

function drawChartWords(state, charts) {
  for (const [name, words] of Object.entries(charts || {})) if (state.charts[name]) setChartWords(state.charts[name], words);
}

// --- charts ---------------------------------------------------------------------------------------------
function tagOf(figure) {
  return (figure.layout && figure.layout.meta && figure.layout.meta.lcsm) || {};
}

// The frame of the value a chart is drawn at, from its spec (sweep_figure.own_frame): a value that is no member
// has no frame in the family, and moving back to it must find one. `moving`: what a frame replaces, from the
// page's payload (sweep_figure.MOVING_DATA and MOVING_LAYOUT).
function ownFrame(figure, name, moving) {
  const data = figure.data.map((trace) => {
    const part = {};
    for (const key of moving.data) if (trace[key] !== undefined) part[key] = trace[key];
    return part;
  });
  const layout = {};
  for (const key of moving.layout) layout[key] = figure.layout[key] !== undefined ? figure.layout[key] : (key === "title" ? {} : []);
  for (const [key, range] of Object.entries(tagOf(figure).ranges || {})) layout[key] = { range, autorange: false };
  return structuredClone({ name, data, layout });
}

// The frame of member `name` in the held family's group of `figure`'s traces (null: none there).
function memberFrame(held, figure, name) {
  const tag = tagOf(figure);
  if (!tag.follows || !held || held.id !== tag.family) return null;
  const sig = JSON.stringify(tag.signature);
  const group = (held.family.charts[tag.chart] || []).find((g) => JSON.stringify(g.signature) === sig);
  return (group && group.frames.find((f) => f.name === name)) || null;
}

// `figure` moved to a member of its family as its frame moves it (sweep_figure.member_figure is this, in Python):
// each trace takes the frame's data, the layout its title, marks and the ranges it names; the tag says the member.
function memberFigure(figure, frame, name) {
  const out = structuredClone(figure);
  const part = structuredClone(frame);
  part.data.forEach((moving, n) => { if (out.data[n]) Object.assign(out.data[n], moving); });
  for (const [key, value] of Object.entries(part.layout)) {
    out.layout[key] = AXIS_KEY.test(key) ? { ...(out.layout[key] || {}), ...value } : value;
  }
  const tag = out.layout.meta.lcsm;
  tag.current = name;
  for (const key of Object.keys(tag.ranges || {})) tag.ranges[key] = out.layout[key].range;
  return out;
}

// A member's page (`payload.member`): the server drew none of the charts it keeps (`payload.kept`) and no text, as
// this browser shows that member already; each kept chart is the one drawn before moved to the member's frame, the
// text is the member's. Null where this browser cannot (another family held, a chart with no such frame).
function memberPage(state, payload) {
  const held = registry.families[payload.page];
  const before = state.payload;
  const text = held && held.id === payload.swept.family_id ? held.family.readouts[payload.member] : null;
  if (!text || !before) return null;
  const figures = { ...payload.figures };
  for (const name of payload.kept) {
    const figure = before.figures[name];
    const frame = figure && memberFrame(held, figure, payload.member);
    if (!frame) return null;
    figures[name] = memberFigure(figure, frame, payload.member);
  }
  const notes = text.notes || {};
  const moved = memberWords(state, payload.member);     // the kept charts' words: made during the drag, as a rule
  const charts = {};
  for (const [name, figure] of Object.entries(figures)) {
    charts[name] = payload.kept.includes(name) ? moved[name] : chartText(figure, notes[name] || "", name);
  }
  return { ...payload, figures, configs: { ...before.configs, ...payload.configs }, text: { ...text, charts },
    member: null, kept: [], moved: payload.kept.length };
}

// The words of every chart moved to member `name` (chart_words.js), each made once per family, chart, group of
// traces (its frames' signature) and member.
function memberWords(state, name) {
  const held = registry.families[state.payload.page];
  const words = {};
  if (!held) return words;
  const notes = (held.family.readouts[name] || {}).notes || {};
  for (const [chart, figure] of Object.entries(state.payload.figures)) {
    const key = `${chart} ${JSON.stringify(tagOf(figure).signature)} ${name}`;
    if (!held.words.has(key)) {
      const frame = memberFrame(held, figure, name);
      held.words.set(key, frame ? chartText(memberFigure(figure, frame, name), notes[chart] || "", chart) : null);
    }
    if (held.words.get(key)) words[chart] = held.words.get(key);
  }
  return words;
}

function framesOf(state, figure) {
  const tag = tagOf(figure);
  const held = registry.families[state.payload.page];
  if (!tag.follows || !held || held.id !== tag.family) return [];
  const sig = JSON.stringify(tag.signature);
  const group = (held.family.charts[tag.chart] || []).find((g) => JSON.stringify(g.signature) === sig);
  const frames = structuredClone(group ? group.frames : []);      // plotly decodes arrays in place
  if (frames.some((f) => f.name === tag.current)) return frames;
  return [...frames, ownFrame(figure, tag.current, state.payload.moving)];
}

// The main chart's most height: MAIN_HEIGHT, less where the readouts above it are tall (six metrics on a
// projector), so that it ends on the first screen with its "Show the data" line under it; measured once, at the
// first drawing (the page not scrolled). Never less than MIN_MAIN_HEIGHT, that line included.
function mainHeight(state, box) {
  if (state.mainMost === undefined) {
    const most = state.payload.present ? PRESENT_MAIN_HEIGHT : MAIN_HEIGHT;
    const line = box.details.offsetHeight;
    const room = window.innerHeight - box.figure.getBoundingClientRect().top - line - 8;
    state.mainMost = Math.max(MIN_MAIN_HEIGHT - line, Math.min(most, room > 0 ? room : most));
  }
  return state.mainMost;
}

async function drawChart(state, name, box) {
  const figure = themed(structuredClone(state.payload.figures[name]), state.theme.colours);
  const Plotly = state.Plotly;
  const layout = themeLayout({ ...figure.layout, autosize: true }, state.theme);
  delete layout.width;
  if (name === state.payload.swept.chart) layout.height = Math.min(layout.height || MAIN_HEIGHT, mainHeight(state, box));
  box.plot.style.height = `${layout.height || 450}px`;
  const title = layout.title && (layout.title.text || layout.title);
  box.figure.setAttribute("aria-label", typeof title === "string" ? title.replace(/<[^>]+>/g, "") : name);
  setChartWords(box, (state.payload.text.charts || {})[name]);
  const own = figure.frames || [];                     // an animation of its own (▶ play): it keeps it
  const frames = own.length ? own : themed(framesOf(state, state.payload.figures[name]), state.theme.colours);
  // one call: the drawing and its frames (react replaces the frames a chart held before)
  box.image = (state.payload.configs[name] || {}).toImageButtonOptions || {};
  await Plotly.react(box.plot, { data: figure.data, layout, frames, config: { ...state.payload.configs[name], responsive: true } });
  box.frames = new Set(own.length ? [] : frames.map((f) => f.name));
}

function showMember(state, name) {
  for (const box of Object.values(state.charts)) {
    if (!box.frames || !box.frames.has(name)) continue;
    try {
      const done = state.Plotly.animate(box.plot, [name], ANIMATE);
      if (done && done.catch) done.catch(() => {});
    } catch (err) { /* a chart being redrawn: the next move catches up */ }
  }
  const text = memberText(state, name);
  if (text) drawReadouts(state, text);
  state.root.dataset.member = name;
  // the charts' words after the drawing (a drag's next step may come first: then only the last is worded)
  clearTimeout(state.wordsTimer);
  state.wordsTimer = setTimeout(() => {
    if (state.root.dataset.member !== name) return;
    const now = memberText(state, name);
    if (now) drawChartWords(state, now.charts || memberWords(state, name));
  }, 0);
}

function memberText(state, name) {
  if (name === currentName(state)) return state.payload.text;
  const held = registry.families[state.payload.page];
  return held && held.family.readouts[name] ? held.family.readouts[name] : null;
}

function currentName(state) {
  const swept = state.payload.controls.find((c) => c.name === state.payload.swept.name);
  return swept ? swept.value : null;
}

// --- controls -------------------------------------------------------------------------------------------
function decimals(step) {
  const text = String(step);
  return text.includes("e-") ? Number(text.split("e-")[1]) : (text.split(".")[1] || "").length;
}

function shownValue(spec, value) {
  if (spec.kind === "float") return Number(value).toFixed(Math.min(6, decimals(spec.step)));
  if (spec.kind === "choice") return (spec.options.find((o) => o.value === value) || { label: value }).label;
  return String(value);
}

function members(state) {
  const held = registry.families[state.payload.page];
  const swept = state.payload.swept;
  if (!held || held.id !== swept.family_id || !swept.members.length) return null;
  return swept.members;
}

function nearestMember(list, spec, value) {
  if (spec.kind === "choice") {
    const at = list.findIndex((m) => m.name === value);
    return at < 0 ? 0 : at;
  }
  let best = 0;
  list.forEach((m, i) => { if (Math.abs(m.order - Number(value)) < Math.abs(list[best].order - Number(value))) best = i; });
  return best;
}

function controlId(state, name, part) {
  return `lcsm-${state.payload.page}-${name}-${part}`;
}

function commit(state, values, preset = null, pending = true, held = null) {
  state.seq = Math.max(state.seq, (state.payload && state.payload.seq) || 0) + 1;   // (none yet: a member page first)
  state.sentSeq = state.seq;
  state.sentAt = Date.now();
  if (pending) {                             // announced once the page at the new values arrives
    state.announceSeq = state.seq;
    state.root.classList.add("lcsm-pending");
    state.root.setAttribute("aria-busy", "true");
    state.nodes.status.textContent = "Updating the page…";
  }
  state.send("commit", { seq: state.seq, values, preset, held });
}

// The swept control over the family's members: a native range whose every position is a member.
function sweptControl(state, spec, list) {
  const wrap = el("div", { className: "lcsm-control lcsm-swept", "data-name": spec.name });
  const rangeId = controlId(state, spec.name, "range");
  const at = nearestMember(list, spec, spec.value);
  const label = el("label", { for: rangeId, text: spec.label });
  const value = el("output", { className: "lcsm-value", for: rangeId, "aria-hidden": "true" });
  const range = el("input", { type: "range", id: rangeId, min: 0, max: list.length - 1, step: 1, value: at,
    "data-role": "swept", "aria-describedby": controlId(state, spec.name, "hint") });
  const hint = el("div", { className: "lcsm-hint", id: controlId(state, spec.name, "hint"),
    text: "Drag, or use the arrow keys: every chart follows." });
  const box = spec.kind === "choice" ? null : el("input", { type: "number", className: "lcsm-number",
    "aria-label": `${spec.label}, exact value`, min: spec.low, max: spec.high, step: "any", value: spec.value });
  range.disabled = box ? (box.disabled = !spec.editable) : !spec.editable;
  const setText = (i) => {
    const m = list[i];
    range.setAttribute("aria-valuetext", `${spec.label} ${m.label}`);
    value.textContent = m.label;
    if (box && document.activeElement !== box) box.value = m.name;
  };
  setText(at);
  if (list[at].name !== spec.value) {        // the page is drawn at a value between two members
    if (box) box.value = spec.value;
    value.textContent = shownValue(spec, spec.value);
    range.setAttribute("aria-valuetext", `${spec.label} ${shownValue(spec, spec.value)}`);
  }
  let timer = null;
  let keyed = 0;
  range.addEventListener("keydown", () => { keyed = Date.now(); });
  range.addEventListener("pointerdown", () => { state.dragging = true; });
  range.addEventListener("input", () => {
    const i = Number(range.value);
    setText(i);
    showMember(state, list[i].name);
    clearTimeout(timer);
    if (Date.now() - keyed < 1000) timer = setTimeout(() => commitSwept(state, spec, list[i].name), KEY_PAUSE_MS);
  });
  range.addEventListener("change", () => {          // a pointer released: commit now
    if (Date.now() - keyed < 1000) return;           // (a key's change too, in Chromium: its pause commits it)
    clearTimeout(timer);
    commitSwept(state, spec, list[Number(range.value)].name);
  });
  if (box) box.addEventListener("change", () => commit(state, { [spec.name]: box.value }));
  const line = el("div", { className: "lcsm-line" }, [label, value]);
  wrap.append(line, el("div", { className: "lcsm-inputs" }, [range, box]), hint);
  return wrap;
}

function commitSwept(state, spec, name) {
  if (state.committed === name) return;
  state.committed = name;
  const held = registry.families[state.payload.page];
  const charts = Object.keys(state.charts).filter((chart) => state.charts[chart].frames && state.charts[chart].frames.has(name));
  // the page already shows this member: nothing pending, and the server need draw none of the charts moved to it
  commit(state, { [spec.name]: name }, null, false, held ? { family: held.id, member: name, charts } : null);
  announce(state, memberText(state, name));            // … and its readouts: said now, once
}

function plainControl(state, spec) {
  const wrap = el("div", { className: "lcsm-control", "data-name": spec.name });
  const id = controlId(state, spec.name, "input");
  const label = el("label", { for: id, text: spec.label });
  let input;
  let extra = null;
  if (spec.kind === "choice") {
    input = el("select", { id });
    for (const o of spec.options) input.appendChild(el("option", { value: o.value, text: o.label, selected: o.value === spec.value }));
    input.addEventListener("change", () => commit(state, { [spec.name]: input.value }));
  } else if (spec.kind === "bool") {
    input = el("input", { type: "checkbox", id, checked: spec.value === "1" });
    input.addEventListener("change", () => commit(state, { [spec.name]: input.checked ? "1" : "0" }));
  } else if (spec.kind === "text") {
    input = el("input", { type: "text", id, value: spec.value, maxlength: spec.max_length });
    input.addEventListener("change", () => commit(state, { [spec.name]: input.value }));
  } else {
    const value = el("output", { className: "lcsm-value", for: id, "aria-hidden": "true", text: shownValue(spec, spec.value) });
    input = el("input", { type: spec.widget === "number" ? "number" : "range", id, min: spec.low, max: spec.high,
      step: spec.step, value: spec.value, "aria-valuetext": `${spec.label} ${shownValue(spec, spec.value)}` });
    input.addEventListener("input", () => {
      value.textContent = shownValue(spec, input.value);
      input.setAttribute("aria-valuetext", `${spec.label} ${shownValue(spec, input.value)}`);
    });
    input.addEventListener("change", () => commit(state, { [spec.name]: input.value }));
    if (input.type === "range") {
      extra = el("input", { type: "number", className: "lcsm-number", "aria-label": `${spec.label}, exact value`,
        min: spec.low, max: spec.high, step: "any", value: spec.value, disabled: !spec.editable });
      extra.addEventListener("change", () => commit(state, { [spec.name]: extra.value }));
      wrap.append(el("div", { className: "lcsm-line" }, [label, value]));
    }
  }
  input.disabled = !spec.editable;
  if (spec.help) input.setAttribute("title", spec.help);
  if (spec.kind === "bool") wrap.append(el("div", { className: "lcsm-line" }, [input, label]));
  else if (!wrap.childNodes.length) wrap.append(label, input);
  else wrap.append(el("div", { className: "lcsm-inputs" }, [input, extra]));
  return wrap;
}

function drawControls(state) {
  const { controls } = state.nodes;
  let focused = document.activeElement && controls.contains(document.activeElement)
    ? [document.activeElement.closest("[data-name]")?.dataset.name, document.activeElement.className,
      document.activeElement.tagName] : null;
  controls.textContent = "";
  const list = members(state);
  let group = "";
  for (const spec of state.payload.controls) {
    if (!spec.shown) continue;
    // a group's name heads a section of the page, next under its title's h1 (WCAG 1.3.1: no level skipped)
    if (spec.group && spec.group !== group) controls.appendChild(el("h2", { className: "lcsm-group", text: spec.group }));
    group = spec.group;
    const swept = spec.name === state.payload.swept.name && list;
    controls.appendChild(swept ? sweptControl(state, spec, list) : plainControl(state, spec));
  }
  if (state.payload.presets.length) {
    const row = el("div", { className: "lcsm-presets", role: "group", "aria-label": "Presets" });
    state.payload.presets.forEach((p, i) => {
      const button = el("button", { type: "button", className: "lcsm-preset", title: p.insight, text: p.label,
        "data-name": `preset-${i}` });          // its name keeps the focus on it through a redraw, as a control's
      button.addEventListener("click", () => commit(state, {}, i));
      row.appendChild(button);
    });
    controls.append(el("div", { className: "lcsm-presets-title", text: "Presets" }), row);
    if (state.payload.insight) controls.appendChild(el("p", { className: "lcsm-insight", text: `💡 ${state.payload.insight}` }));
  }
  const lost = !document.activeElement || document.activeElement === document.body;
  const kept = registry.focused[state.payload.page];
  if (!focused && lost && kept && Date.now() - kept.at < STALE_MS) focused = kept.where;   // a re-mounted instrument
  if (focused && focused[0]) {                 // the control in use keeps the focus through a redraw
    const tag = focused[2].toLowerCase();
    const again = [...controls.querySelectorAll(`[data-name="${focused[0]}"] ${tag}, ${tag}[data-name="${focused[0]}"]`)]
      .find((node) => node.className === focused[1]);
    if (again) again.focus();
  }
}

// --- the whole -----------------------------------------------------------------------------------------
// Where the keyboard is in an instrument, kept beyond its element: Streamlit may mount the instrument afresh.
function watchFocus(root, page) {
  root.addEventListener("focusin", (event) => {
    const control = event.target.closest("[data-name]");
    registry.focused[page] = control ? { at: Date.now(), where: [control.dataset.name, event.target.className,
      event.target.tagName] } : null;
    requestAnimationFrame(() => clearOfReadouts(root, event.target));
  });
  root.addEventListener("focusout", (event) => {
    if (event.relatedTarget) registry.focused[page] = null;   // moved elsewhere on purpose, not lost with the element
    else if (registry.focused[page]) registry.focused[page].at = Date.now();
  });
}

// Two links, shown only when focused, so the keyboard can jump between the controls and the main chart (a chart's
// download button and the readouts lie between them).
function skipLinks(nodes) {
  const link = (to, text) => el("a", { href: "#", className: "lcsm-skip-link", "data-to": to, text });
  const nav = el("nav", { className: "lcsm-skip", "aria-label": "Skip links" },
    [link("controls", "Skip to the controls"), link("chart", "Skip to the main chart")]);
  nav.addEventListener("click", (event) => {
    const to = event.target.closest("a") && event.target.closest("a").dataset.to;
    if (!to) return;
    event.preventDefault();
    const target = to === "controls" ? nodes.controls.querySelector("input, select, button")
      : nodes.main.querySelector("figure");
    if (!target) return;
    if (to === "chart") target.setAttribute("tabindex", "-1");   // focusable by the link, not a tab stop
    target.focus();
    if (target.scrollIntoView) target.scrollIntoView({ block: "nearest" });
  });
  return nav;
}

// On a phone the readouts stay at the foot of the screen (sticky): a control the keyboard reaches behind them (the
// browser scrolls it only just into the window) is brought to the middle of the screen (WCAG 2.4.11).
function clearOfReadouts(root, target) {
  const readouts = root.querySelector(".lcsm-readouts");
  if (!readouts || readouts.contains(target) || getComputedStyle(readouts).position !== "sticky") return;
  const at = target.getBoundingClientRect(), cover = readouts.getBoundingClientRect();
  if (at.bottom > cover.top && at.top < cover.bottom) target.scrollIntoView({ block: "center" });
}

function build(parent, payload) {
  // Only the old instrument goes: Streamlit keeps the component's own style sheet in this element too.
  for (const old of parent.querySelectorAll(":scope > .lcsm-instrument")) old.remove();
  const nodes = {
    controls: el("section", { className: "lcsm-controls", "aria-label": "Controls" }),
    metrics: el("div", { className: "lcsm-metrics" }),
    notices: el("div", { className: "lcsm-notices" }),
    status: el("div", { className: "lcsm-status", role: "status" }),
    equations: el("section", { className: "lcsm-equations", "aria-label": "Live equations" }),
    live: el("div", { className: "lcsm-sr-only", "aria-live": "polite" }),
    charts: el("div", { className: "lcsm-charts" }),
  };
  nodes.readouts = el("section", { className: "lcsm-readouts", "aria-label": "Readouts" },
    [nodes.metrics, nodes.notices, nodes.status]);
  nodes.main = el("div", { className: "lcsm-main" });
  const root = el("div", { className: "lcsm-instrument", "data-page": payload.page },
    [skipLinks(nodes), nodes.controls, nodes.readouts, nodes.main, nodes.equations, nodes.charts, nodes.live]);
  parent.appendChild(root);
  watchFocus(root, payload.page);
  return { root, nodes, charts: {}, seq: payload.seq || 0, sentSeq: 0, sentAt: 0 };
}

function chartBox(name) {
  const plot = el("div", { className: "lcsm-plot" });
  const data = el("div", { className: "lcsm-data-body" });
  const saves = el("p", { className: "lcsm-saves" }, Object.keys(SAVED_AS).map((format) =>
    el("button", { type: "button", className: "lcsm-save", "data-format": format, text: `Save as ${format.toUpperCase()}` })));
  const details = el("details", { className: "lcsm-data" }, [el("summary", { text: DATA_LABEL }), saves, data]);
  // a figure (its role), named by its summary (setChartWords); plotly's drawing inside it is its picture
  const figure = el("figure", { className: "lcsm-chart", "data-chart": name }, [plot, details]);
  const box = { plot, figure, details, data, frames: null, words: null, filled: false, image: {} };
  saves.addEventListener("click", (event) => {
    const format = event.target.closest("button")?.dataset.format;
    if (format && window.Plotly && plot.classList.contains("js-plotly-plot")) saveChart(box, format);
  });
  details.addEventListener("toggle", () => { if (details.open && !box.filled) fillData(box); });
  // A chart takes its column's width whenever the column changes (the layout settling, a sidebar folding, a
  // phone turning): plotly's own `responsive` follows the window only.
  const resized = new ResizeObserver(() => {
    if (window.Plotly && plot.classList.contains("js-plotly-plot")) window.Plotly.Plots.resize(plot);
  });
  resized.observe(figure);
  return box;
}

function layoutCharts(state) {
  const { payload, nodes } = state;
  const main = payload.swept.chart;
  for (const name of Object.keys(state.charts)) {
    if (!(name in payload.figures)) { state.Plotly.purge(state.charts[name].plot); state.charts[name].figure.remove(); delete state.charts[name]; }
  }
  for (const name of Object.keys(payload.figures)) if (!state.charts[name]) state.charts[name] = chartBox(name);
  if (state.charts[main]) nodes.main.appendChild(state.charts[main].figure);
  nodes.charts.textContent = "";
  for (const row of payload.rows) {
    const names = row.filter((name) => name !== main && state.charts[name]);
    if (!names.length) continue;
    const line = el("div", { className: `lcsm-row lcsm-row-${names.length}` });
    for (const name of names) line.appendChild(state.charts[name].figure);
    nodes.charts.appendChild(line);
  }
}

// One render at a time, the latest payload: a family arriving during a render redraws once that one is done.
function render(state) {
  if (state.rendering) {
    state.again = true;
    return state.rendering;
  }
  state.rendering = renderNow(state).finally(() => {
    state.rendering = null;
    if (state.again) {
      state.again = false;
      render(state);
    }
  });
  return state.rendering;
}

async function renderNow(state) {
  if (state.dragging) {                        // never redraw the control under a moving pointer
    state.deferred = true;
    return;
  }
  const payload = state.payload;
  state.theme = themeOf(state.root);
  state.root.classList.toggle("lcsm-present", Boolean(payload.present));
  state.root.classList.toggle("lcsm-dark", state.theme.dark);
  drawControls(state);
  drawReadouts(state, payload.text);
  if (state.announceSeq && (payload.seq || 0) >= state.announceSeq) {   // the page a move committed: said once
    state.announceSeq = 0;
    announce(state, payload.text);
  }
  layoutCharts(state);
  state.Plotly = state.Plotly || await plotlyReady(payload.vendor).catch(() => null);
  if (!state.Plotly) {
    state.nodes.status.textContent = "The charts could not load (plotly.js was not served: start the app with scripts/app.sh).";
    return;
  }
  for (const name of Object.keys(payload.figures)) {
    try { await drawChart(state, name, state.charts[name]); }
    catch (err) { console.error(`lcsm instrument: chart ${name} not drawn`, err); }
  }
  state.root.dataset.member = currentName(state);
  state.root.dataset.moved = String(payload.moved || 0);   // charts moved here to a member, not sent (tests read it)
  state.root.dataset.drawn = String(payload.seq);
  settled(state);
}

// A page older than the learner's last move (it answers an earlier commit) is not shown over it; a page that
// never gets a newer one (a reconnect to a new server session, whose pages do not echo the move) is shown once the
// move is STALE_MS old.
function take(state, payload) {
  if (payload.member) {
    const page = memberPage(state, payload);
    if (!page) {                               // not what this browser shows: the whole page, please (once per page)
      if (state.askedWhole !== payload.seq) {
        state.askedWhole = payload.seq;
        state.seq = Math.max(state.seq || 0, payload.seq || 0);
        commit(state, {}, null, false);       // (held: null — nothing to keep)
      }
      return;
    }
    payload = page;
  }
  state.incoming = payload;
  const wait = STALE_MS - (Date.now() - state.sentAt);
  if ((payload.seq || 0) < state.sentSeq && wait > 0) {
    setTimeout(() => { if (state.incoming === payload) take(state, payload); }, wait + 10);
    return;
  }
  const same = state.payload && JSON.stringify(state.payload) === JSON.stringify(payload)
    && state.theme && state.theme.key === themeOf(state.root).key;      // (Streamlit calls again on a theme change)
  state.payload = payload;
  state.committed = currentName(state);
  registry.listeners[payload.page] = () => { if (state.payload === payload) render(state); };
  if (same) {                                 // a commit that changed nothing (a refused value): nothing pending,
    state.announceSeq = 0;                    // nothing new to say
    if (state.root.classList.contains("lcsm-pending") && !state.dragging) drawControls(state);   // controls back
    settled(state);
    return;
  }
  Promise.all([katexReady(payload.vendor), load(payload.vendor.instrument_css, "css").catch(() => null)])
    .then(([katex]) => {
      state.katex = katex;
      render(state);
    });
}

function settled(state) {
  state.root.classList.remove("lcsm-pending");
  state.root.removeAttribute("aria-busy");
  state.nodes.status.textContent = "";
}

export default function (component) {
  const payload = decode(component.data);
  if (!payload || !payload.role) return undefined;
  if (payload.role === "family") {
    keepFamily(payload);
    return undefined;
  }
  const parent = component.parentElement;
  let state = parent.__lcsm;
  if (!state || !state.root.isConnected || state.root.dataset.page !== payload.page) state = parent.__lcsm = build(parent, payload);
  state.send = component.setTriggerValue;
  if (!state.released) {                       // a pointer drag ends where it ends: the page is redrawn after it
    state.released = () => {
      state.dragging = false;
      if (state.deferred) { state.deferred = false; render(state); }
    };
    window.addEventListener("pointerup", state.released);
    window.addEventListener("pointercancel", state.released);
  }
  take(state, payload);
  return undefined;
}
