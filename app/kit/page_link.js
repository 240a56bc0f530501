// The page link (app/kit/page_link.py): one drag of the lead chart's preview slider moves every chart and
// readout of the page in the browser; the release sends the value to Python, which commits it to the setting.
//
// State lives on window.__lcsmPageLink[page] (the latest data from Python and the handlers), so that attaching
// is idempotent: Streamlit re-renders charts and calls this function again on every rerun, and a listener is
// only added where the chart does not already hold this page's handler. Nothing here throws when a chart is
// missing (a teacher's link may hide one) or when plotly is not loaded yet.
const SCAN_MS = 250;
const ANIMATE = { mode: "immediate", frame: { duration: 0, redraw: true }, transition: { duration: 0 } };

function taggedCharts(page) {
  const found = [];
  for (const gd of document.querySelectorAll(".js-plotly-plot")) {
    const tag = gd.layout && gd.layout.meta && gd.layout.meta.lcsm;
    if (tag && tag.page === page) found.push({ gd, chart: tag.chart, follows: tag.follows });
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

function showReadouts(entry, name) {
  const readouts = entry.data.readouts && entry.data.readouts[name];
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
  box.setAttribute("data-lcsm-member", name);
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

function attach(page) {
  const entry = window.__lcsmPageLink[page];
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
  const { data, setTriggerValue } = component;
  if (!data || !data.page) return undefined;
  const links = (window.__lcsmPageLink = window.__lcsmPageLink || {});
  const entry = (links[data.page] = links[data.page] || {});
  const moved = entry.data && entry.data.current !== data.current;
  entry.data = data;
  entry.send = setTriggerValue;
  if (!entry.onChange) {
    entry.onChange = (event) => {
      const name = stepName(event);
      if (name !== null) follow(links[data.page], name);
    };
    entry.onEnd = (event) => {
      const now = links[data.page];
      const name = stepName(event);
      if (name !== null && name !== now.data.current) now.send("commit", name);
    };
  }
  if (moved) resetReadouts(entry);
  attach(data.page);
  const timer = setInterval(() => attach(data.page), SCAN_MS);
  return () => clearInterval(timer);
}
