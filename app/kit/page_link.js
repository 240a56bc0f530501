// The page link (app/kit/page_link.py): one drag of the lead chart's preview slider moves every chart and
// readout of the page in the browser; the release sends the value to Python, which commits it to the setting.
//
// The family (every chart's frames, every member's readouts) comes once, in this component's data, which does not
// depend on the current value: the charts Streamlit draws hold the current value's picture only, each tagged
// `layout.meta.lcsm = {page, chart, follows, family, current, signature[, readouts]}`. A scan adds the
// family's frames to every following chart that lacks them (a chart Streamlit has re-drawn, a new family), so the
// drag animates as soon as they are in and simply waits until then; the current value comes from the charts' tags.
//
// State lives on window.__lcsmPageLink[page] (the latest data from Python, the parsed family and the handlers), so
// that attaching is idempotent: Streamlit re-renders charts and calls this function again on every rerun, and a
// listener is only added where the chart does not already hold this page's handler. Nothing here throws when a
// chart is missing (a teacher's link may hide one) or when plotly is not loaded yet.
const SCAN_MS = 250;
const ANIMATE = { mode: "immediate", frame: { duration: 0, redraw: true }, transition: { duration: 0 } };

function taggedCharts(page) {
  const found = [];
  for (const gd of document.querySelectorAll(".js-plotly-plot")) {
    const tag = gd.layout && gd.layout.meta && gd.layout.meta.lcsm;
    if (tag && tag.page === page) found.push({ gd, chart: tag.chart, follows: tag.follows, tag });
  }
  return found;
}

function hasFrame(gd, name) {
  const hash = gd._transitionData && gd._transitionData._frameHash;
  return Boolean(hash && hash[name]);
}

function stepName(event) {
  const step = event && event.step;
  if (!step) return null;
  if (step.value !== undefined && step.value !== null) return String(step.value);
  return step.args && step.args[0] ? String(step.args[0][0]) : null;
}

// The innermost element holding `el`'s text (a metric's value sits in nested divs, a label in a <p>).
function textHolder(el) {
  let node = el;
  while (node && node.children && node.children.length === 1 && !node.querySelector("svg")) node = node.children[0];
  const p = el.querySelector("p");
  return p || node || el;
}

function setText(el, text) {
  if (!el) return;
  const holder = textHolder(el);
  if (holder.textContent !== text) holder.textContent = text;
}

function readoutBox(entry) {
  return document.querySelector("." + entry.data.readout);
}

// Undo what a drag added or hid (Streamlit's own rerun then redraws the readouts at the committed value).
function resetReadouts(entry) {
  const box = readoutBox(entry);
  if (!box) return;
  for (const extra of box.querySelectorAll(".lcsm-link-notice")) extra.remove();
  for (const hidden of box.querySelectorAll("[data-lcsm-hidden]")) {
    hidden.style.display = "";
    hidden.removeAttribute("data-lcsm-hidden");
  }
  box.removeAttribute("data-lcsm-member");
}

// The lead chart's tag: the value the page is drawn at (`current`) and its readouts.
function leadTag(entry) {
  const lead = taggedCharts(entry.data.page).find((c) => c.chart === entry.data.lead);
  return lead ? lead.tag : null;
}

function currentName(entry) {
  const tag = leadTag(entry);
  return tag ? tag.current : null;
}

function readoutsOf(entry, name) {
  const tag = leadTag(entry);
  if (tag && tag.current === name && tag.readouts) return tag.readouts;
  return (entry.family && entry.family.readouts[name]) || null;
}

function showReadouts(entry, name) {
  const readouts = readoutsOf(entry, name);
  const box = readoutBox(entry);
  if (!readouts || !box) return;
  const metrics = box.querySelectorAll('[data-testid="stMetric"]');
  readouts.metrics.forEach((m, i) => {
    const el = metrics[i];
    if (!el) return;
    setText(el.querySelector('[data-testid="stMetricLabel"]'), m.label);
    setText(el.querySelector('[data-testid="stMetricValue"]'), m.value);
    const delta = el.querySelector('[data-testid="stMetricDelta"]');
    if (delta && m.delta) setText(delta, m.delta);
  });
  const alerts = [...box.querySelectorAll('[data-testid="stAlert"]')].filter((a) => !a.closest(".lcsm-link-notice"));
  for (const extra of box.querySelectorAll(".lcsm-link-notice")) extra.remove();
  readouts.notices.forEach((n, i) => {
    const alert = alerts[i];
    const text = `${n.icon ? n.icon + " " : ""}${n.text}`;
    if (alert) {
      alert.style.display = "";
      alert.removeAttribute("data-lcsm-hidden");
      setText(alert.querySelector('[data-testid="stMarkdownContainer"]') || alert, n.text);
    } else {                                // a notice the drawn page does not have: a plain banner of its own
      const div = document.createElement("div");
      div.className = "lcsm-link-notice";
      div.setAttribute("role", "alert");
      div.style.cssText = "padding:0.75rem 1rem;margin:0.5rem 0;border-radius:0.5rem;" +
        "background:rgba(255,189,69,0.2);color:rgb(146,108,5)";
      div.textContent = text;
      div.dataset.text = n.text;
      box.appendChild(div);
    }
  });
  alerts.slice(readouts.notices.length).forEach((alert) => {
    alert.style.display = "none";
    alert.setAttribute("data-lcsm-hidden", "1");
  });
  if (name === currentName(entry)) box.removeAttribute("data-lcsm-member");   // back at the page's own value
  else box.setAttribute("data-lcsm-member", name);
}

function follow(entry, name) {
  const Plotly = window.Plotly;
  for (const { gd, chart, follows } of taggedCharts(entry.data.page)) {
    if (chart === entry.data.lead || !follows || !Plotly || !hasFrame(gd, name)) continue;
    try {
      const done = Plotly.animate(gd, [name], ANIMATE);
      if (done && done.catch) done.catch(() => {});
    } catch (err) { /* a chart being redrawn by Streamlit: the next step catches up */ }
  }
  try {
    showReadouts(entry, name);
  } catch (err) { console.error("lcsm page link: readouts not rewritten", err); }
}

const MOVING_DATA = ["x", "y", "z", "customdata", "text", "name"];   // sweep_figure.MOVING_DATA
const MOVING_LAYOUT = ["title", "shapes", "annotations"];               // sweep_figure.MOVING_LAYOUT

// An array as the chart's spec gave it (plotly decodes {dtype, bdata} in place, adding its own fields).
function asSent(value) {
  if (value && typeof value === "object" && value.bdata !== undefined) {
    const sent = { dtype: value.dtype, bdata: value.bdata };
    if (value.shape !== undefined) sent.shape = value.shape;
    return sent;
  }
  return value;
}

// The frame of the value the chart is drawn at, made from the drawing itself (sweep_figure.own_frame): a value
// that is no member of the family has no frame there, and dragging back to it must find one. Where the family's
// frames name axis ranges (a runaway member's frame fits its own data), it names the drawing's (`tag.ranges`):
// plotly keeps a frame's layout once applied.
function ownFrame(gd, name, tag) {
  const data = gd.data.map((trace) => {
    const moving = {};
    for (const key of MOVING_DATA) if (trace[key] !== undefined) moving[key] = asSent(trace[key]);
    return moving;
  });
  const layout = {};
  for (const key of MOVING_LAYOUT) layout[key] = gd.layout[key] !== undefined ? gd.layout[key] : (key === "title" ? {} : []);
  for (const [key, range] of Object.entries((tag && tag.ranges) || {})) layout[key] = { range, autorange: false };
  return structuredClone({ name, data, layout });
}

// The frames a following chart should hold: its family's frames of its own trace signature, and the current
// value's own frame where that value is no member.
function framesFor(entry, tag, gd) {
  const groups = (entry.family && entry.family.charts[tag.chart]) || [];
  const sig = JSON.stringify(tag.signature);
  const group = groups.find((g) => JSON.stringify(g.signature) === sig);
  const frames = structuredClone(group ? group.frames : []);   // plotly decodes arrays in place
  return frames.some((f) => f.name === tag.current) ? frames : [...frames, ownFrame(gd, tag.current, tag)];
}

// Give every following chart its frames, once per (family, current value, drawing): plotly keeps the frames of a
// chart Streamlit re-plots with a new spec, so stale ones are deleted first.
function addFrames(entry) {
  const Plotly = window.Plotly;
  if (!Plotly || !entry.family) return;
  for (const { gd, follows, tag } of taggedCharts(entry.data.page)) {
    if (!follows || tag.family !== entry.data.family_id || !gd._transitionData) continue;
    const want = `${tag.family}|${tag.current}|${JSON.stringify(tag.signature)}`;
    const held = gd._transitionData._frames || [];
    if (gd.__lcsmFrames === want && held.length === gd.__lcsmFrameCount) continue;
    try {
      const frames = framesFor(entry, tag, gd);
      if (held.length) Plotly.deleteFrames(gd, held.map((_, i) => i));
      const done = Plotly.addFrames(gd, frames);
      if (done && done.catch) done.catch(() => {});
      gd.__lcsmFrames = want;
      gd.__lcsmFrameCount = frames.length;
    } catch (err) { /* a chart being redrawn by Streamlit: the next scan catches up */ }
  }
}

// A drag's readouts undone once the page is drawn at a new value (Streamlit redraws them at the committed one).
function watchCurrent(entry) {
  const now = currentName(entry);
  if (now !== null && entry.seen !== undefined && entry.seen !== now) resetReadouts(entry);
  if (now !== null) entry.seen = now;
}

// The family as it arrives (family.shared_arrays): an array that occurs in more than one frame came once, in
// `arrays`, and is named {ref: n} where it occurs; each place gets its own copy back (plotly decodes in place).
function withArrays(family) {
  const arrays = (family && family.arrays) || [];
  if (!arrays.length) return family;
  for (const groups of Object.values(family.charts)) {
    for (const group of groups) {
      for (const frame of group.frames) {
        for (const trace of frame.data) {
          for (const [key, value] of Object.entries(trace)) {
            if (value && typeof value === "object" && value.ref !== undefined && Object.keys(value).length === 1) {
              trace[key] = Object.assign({}, arrays[value.ref]);
            }
          }
        }
      }
    }
  }
  return family;
}

function attach(page) {
  const entry = window.__lcsmPageLink[page];
  watchCurrent(entry);
  addFrames(entry);
  for (const { gd, chart } of taggedCharts(page)) {
    if (chart !== entry.data.lead || typeof gd.on !== "function") continue;
    const emitter = gd._ev || gd;           // plotly's event emitter: a new one whenever the chart is re-plotted
    if (emitter.__lcsmLinked === entry.onChange) continue;
    emitter.__lcsmLinked = entry.onChange;
    gd.on("plotly_sliderchange", entry.onChange);
    gd.on("plotly_sliderend", entry.onEnd);
  }
}

export default function (component) {
  const { setTriggerValue } = component;
  let data = component.data;                 // JSON bytes (page_link.link_payload): the family is an object in it
  if (data instanceof Uint8Array || data instanceof ArrayBuffer) data = JSON.parse(new TextDecoder().decode(data));
  if (!data || !data.page) return undefined;
  const links = (window.__lcsmPageLink = window.__lcsmPageLink || {});
  const entry = (links[data.page] = links[data.page] || {});
  if (!entry.data || entry.data.family_id !== data.family_id) entry.family = withArrays(data.family);
  entry.data = data;
  entry.send = setTriggerValue;
  entry.current = () => currentName(links[data.page]);
  entry.readoutsOf = (name) => readoutsOf(links[data.page], name);
  if (!entry.onChange) {
    entry.onChange = (event) => {
      const name = stepName(event);
      if (name !== null) follow(links[data.page], name);
    };
    entry.onEnd = (event) => {
      const now = links[data.page];
      const name = stepName(event);
      if (name !== null && name !== currentName(now)) now.send("commit", name);
    };
  }
  attach(data.page);
  const timer = setInterval(() => attach(data.page), SCAN_MS);
  return () => clearInterval(timer);
}
