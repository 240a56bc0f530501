// What a chart shows, in words and numbers, read from its own data: `chart_text.py`'s twin, for the figures the
// lesson instrument moves to a family member in the browser (the server sends each member's frames, not its words).
// Every function mirrors the Python one of the same name; tests/app/test_chart_words_js.py runs both on every
// chart of every lesson's families and compares their output to the last character and digit.
//
// `chartText(figure, note, name)` → {summary, tables: [{caption, name, headers, columns}]}: columns hold numbers
// rounded to 4 significant digits (null for a gap, text for an infinity or a category), as `chart_text.column`.
// Numbers are written as Python writes them ("{:.3g}", round half to even), not as JavaScript's toPrecision does
// (half up): the two differ where a value lies exactly halfway, as 1.125 or a time step of 10.25 s.

const MAX_ROWS = 50;
const MAX_GRID_COLUMNS = 10;
const MAX_GRID_ROWS = 25;
const MAX_SERIES_SAID = 4;
const MAX_SUMMARY_CHARS = 320;
const FEW_POINTS = 4;
const SETTLE_BAND = 0.05;
const SETTLE_BEFORE = 0.8;
const UNIT = /^(.*?)\s*\(([^()\s:,]{1,6})\)$/u;
const ASIDE = /\s*\([^()]*\)$/u;
const TAG = /<[^>]+>/gu;
// A drawing fitted to its runaway data says so after its title (sweep_figure.noted: " · ⚠ y-axis ×10⁶"): a note on
// the axes, not on what the chart shows (the words say the numbers themselves).
const RUNAWAY_NOTE = / · ⚠ [^·]*$/u;
const HOVER_Z = /(?:^|<br>)\s*([^<>%]*?[^\s<>%:=])\s*[:=]?\s*%\{z/u;
export const TYPED = { f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array, i2: Int16Array,
                u2: Uint16Array, i1: Int8Array, u1: Uint8Array };
const POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
               1e18, 1e19, 1e20, 1e21, 1e22];

// --- numbers as Python writes them ------------------------------------------------------------------------------
// Python's format(x, f".{p}g") for a finite x ≠ 0.
function pythonG(x, p) {
  let [mantissa, exp] = Math.abs(x).toExponential(p - 1).split("e");
  let e = Number(exp);
  // exactly halfway between two p-digit numbers: to the even one. Such an x has nothing after a 5 in digit p + 1,
  // so its (p + 1)-digit form ends in 5; only then is its whole expansion (100 digits: exact for a short one) read
  if (Math.abs(x).toExponential(p).split("e")[0].endsWith("5")) {
    const [full, fullExp] = Math.abs(x).toExponential(99).split("e");
    const all = full.replace(".", "");
    if (all[p] === "5" && /^0*$/.test(all.slice(p + 1))) {
      let n = BigInt(all.slice(0, p));
      if (n % 2n === 1n) n += 1n;
      let text = n.toString();
      e = Number(fullExp);
      if (text.length > p) { text = text.slice(0, p); e += 1; }
      mantissa = text[0] + (p > 1 ? "." + text.slice(1) : "");
    }
  }
  const digits = mantissa.replace(".", "");
  const sign = x < 0 ? "-" : "";
  if (e >= -4 && e < p) {
    let text;
    if (e >= 0) text = digits.slice(0, e + 1).padEnd(e + 1, "0") + "." + digits.slice(e + 1);
    else text = "0." + "0".repeat(-e - 1) + digits;
    text = text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
    return sign + text;
  }
  let m = digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "");
  m = m.includes(".") ? m.replace(/0+$/, "").replace(/\.$/, "") : m;
  return `${sign}${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}

// chart_text.number: 3 significant digits, no signed zero, a plain exponent ("1e-5").
export function number(value) {
  const v = Number(value);
  if (!Number.isFinite(v)) return Number.isNaN(v) ? "undefined" : "infinite";
  if (v === 0) return "0";
  let text = pythonG(v, 3);
  if (text.includes("e")) {
    const [m, power] = text.split("e");
    text = `${m}e${Number(power)}`;
  }
  return text === "-0" || text === "-0.0" ? "0" : text;
}

function spoken(value) {
  return typeof value === "number" ? number(value) : String(value);
}

// chart_text.shown: a cell as the table writes it ("{:.4g}").
export function shown(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (value === 0) return "0";
  if (!Number.isFinite(value)) return Number.isNaN(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  return pythonG(value, 4);
}

function roundHalfEven(x) {                  // numpy's round
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : r;
}

// chart_text._rounded: each value k·10ᵉ with k an integer of 4 digits, made as numpy makes it.
function rounded(data) {
  const out = new Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!Number.isFinite(v)) { out[i] = Number.isNaN(v) ? null : (v > 0 ? "∞" : "-∞"); continue; }
    const power = 3 - Math.floor(Math.log10(v !== 0 ? Math.abs(v) : 1));
    if (Math.abs(power) > 22) { out[i] = Number(pythonG(v, 4)); continue; }
    const scale = POW10[Math.abs(power)];
    out[i] = power >= 0 ? roundHalfEven(v * scale) / scale : roundHalfEven(v / scale) * scale;
    if (Object.is(out[i], -0)) out[i] = 0;
  }
  return out;
}

function column(data) {
  return isNumeric(data) ? rounded(data) : Array.from(data, String);
}

// --- numpy's pairwise sum (np.sum of a float64 array), for a mean written as numpy writes it --------------------
function pairwiseSum(a, start, n) {
  if (n < 8) {
    let res = 0;                                       // numpy starts from -0.0 only for an empty array
    for (let i = start; i < start + n; i++) res += a[i];
    return res;
  }
  if (n <= 128) {
    const r = [];
    for (let j = 0; j < 8; j++) r.push(a[start + j]);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += a[start + i + j];
    let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) res += a[start + i];
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwiseSum(a, start, n2) + pairwiseSum(a, start + n2, n - n2);
}

// --- reading the figure -----------------------------------------------------------------------------------------
function isNumeric(array) {
  return array instanceof Float64Array;
}

function plainWords(text) {
  if (typeof text !== "string") return "";
  return text.replace(/<br>/g, " ").replace(TAG, " ").split(/\s+/u).filter(Boolean).join(" ");
}

function textOf(title) {
  return title && typeof title === "object" ? title.text : title;
}

// A typed-array spec's bytes (instrument.js decodes a family's shared arrays with this too).
export function bytesOf(spec) {
  const text = atob(spec.bdata);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes.buffer;
}

function decoded(spec) {                     // plotly 7's {dtype, bdata[, shape]}: the values and the shape
  const values = Float64Array.from(new TYPED[spec.dtype](bytesOf(spec)));
  const shape = spec.shape === undefined ? null
    : (typeof spec.shape === "string" ? spec.shape.split(",") : spec.shape).map(Number);
  return { values, shape };
}

// chart_text.values: numbers as a Float64Array (a 2-D array as {grid: [rows, cols], values}), anything else as text.
function values(value) {
  if (value === null || value === undefined) return null;
  if (ArrayBuffer.isView(value)) return Float64Array.from(value);
  if (typeof value === "object" && !Array.isArray(value) && value.bdata !== undefined) {
    const { values: data, shape } = decoded(value);
    return shape && shape.length === 2 ? { grid: shape, values: data } : data;
  }
  if (!Array.isArray(value)) return typeof value === "number" ? Float64Array.of(value) : [String(value)];
  if (value.length && value.every((row) => Array.isArray(row) || ArrayBuffer.isView(row))) {
    const rows = value.map((row) => values(Array.from(row)));
    const cols = rows[0].length;
    if (!rows.every((row) => isNumeric(row) && row.length === cols)) return { text: true };
    const data = new Float64Array(rows.length * cols);
    rows.forEach((row, r) => data.set(row, r * cols));
    return { grid: [rows.length, cols], values: data };
  }
  if (value.every((v) => v === null || typeof v === "number" || typeof v === "boolean")) {
    return Float64Array.from(value, (v) => (v === null ? NaN : Number(v)));   // None is NaN to numpy
  }
  return value.map((v) => (v === null ? "None" : typeof v === "boolean" ? (v ? "True" : "False") : String(v)));
}

class Axis {
  constructor(title) {
    this.title = title;
    const found = UNIT.exec(title);
    [this.name, this.unit] = found ? [found[1], found[2]] : [title.replace(ASIDE, ""), ""];
  }

  at(value) {
    const said = spoken(value);
    if (!this.name) return said;
    return `${this.name} = ${said}` + (this.unit ? ` ${this.unit}` : "");
  }
}

function axisOf(layout, ref) {
  const spec = layout[ref[0] + "axis" + ref.slice(1)] || {};
  let title = plainWords(textOf(spec.title));
  if (!title && typeof spec.matches === "string") {
    const matched = layout[spec.matches[0] + "axis" + spec.matches.slice(1)] || {};
    title = plainWords(textOf(matched.title));
  }
  return new Axis(title);
}

function panelTitle(layout, xref, yref) {
  const xs = (layout["xaxis" + xref.slice(1)] || {}).domain, ys = (layout["yaxis" + yref.slice(1)] || {}).domain;
  if (!xs || !ys || !xs.length || !ys.length || (xs[0] === 0 && xs[1] === 1 && ys[0] === 0 && ys[1] === 1)) return "";
  for (const note of layout.annotations || []) {
    if (note.xref === "paper" && note.yref === "paper" && note.yanchor === "bottom"
        && Math.abs(Number(note.x === undefined ? -1 : note.x) - (xs[0] + xs[1]) / 2) < 0.01
        && Math.abs(Number(note.y === undefined ? -1 : note.y) - ys[1]) < 0.01) return plainWords(note.text);
  }
  return "";
}

function arange(n) {
  return Float64Array.from({ length: n }, (_, i) => i);
}

function readSeries(trace, n, layout, axes) {
  if (trace.hoverinfo === "skip" || trace.visible === false) return null;
  let kind = trace.type || "scatter";
  const xref = trace.xaxis || "x", yref = trace.yaxis || "y";
  const key = `${xref} ${yref}`;
  if (!axes.has(key)) axes.set(key, [axisOf(layout, xref), axisOf(layout, yref), panelTitle(layout, xref, yref)]);
  const [xAxis, yAxis, panel] = axes.get(key);
  const label = plainWords(trace.name);
  let x = values(trace.x), y = values(trace.y);
  if (x && x.grid) x = x.values;
  if (y && y.grid) y = y.values;
  let series;
  if (kind === "heatmap" || kind === "contour") {
    const z = values(trace.z);
    if (!z || !z.grid || !z.values.length) return null;
    const [rows, cols] = z.grid;
    x = x && x.length === cols ? x : arange(cols);
    y = y && y.length === rows ? y : arange(rows);
    const hover = HOVER_Z.exec(trace.hovertemplate || "");
    const zName = (hover ? plainWords(hover[1]) : "") || plainWords(textOf((trace.colorbar || {}).title)) || "value";
    series = { label: label || panel || "heat map", kind: "grid", xAxis, yAxis, x, y, z, zName };
  } else if (kind === "histogram") {
    const data = x !== null ? x : y;
    if (data === null || !data.length || !isNumeric(data)) return null;
    series = { label: label || xAxis.title || `series ${n + 1}`, kind: "histogram", xAxis, yAxis, x: data, y: null };
  } else if (kind === "scatter" || kind === "scattergl" || kind === "bar") {
    if (y === null || !y.length || !isNumeric(y)) return null;
    x = x !== null && x.length === y.length ? x : arange(y.length);
    const mode = String(trace.mode || "");
    const points = mode.includes("markers") && !mode.includes("lines");
    kind = kind === "bar" ? "bars" : (points || y.length <= FEW_POINTS ? "points" : "line");
    series = { label: label || yAxis.title || panel || `series ${n + 1}`, kind, xAxis, yAxis, x, y };
  } else {
    return null;
  }
  series.panel = panel && panel !== series.label ? panel : "";
  return series;
}

function distinguish(series) {
  const counts = new Map();
  for (const s of series) counts.set(s.label, (counts.get(s.label) || 0) + 1);
  for (const s of series) if (counts.get(s.label) > 1 && s.panel) s.label = `${s.label}, ${s.panel}`;
}

// --- the sentence -----------------------------------------------------------------------------------------------
function finiteIndices(array) {
  const out = [];
  for (let i = 0; i < array.length; i++) if (Number.isFinite(array[i])) out.push(i);
  return out;
}

function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

function argmin(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] < values[best]) best = i;
  return best;
}

function nanExtreme(values, pick) {           // np.nanmin / np.nanmax
  let found = NaN;
  for (const v of values) if (!Number.isNaN(v) && (Number.isNaN(found) || pick(v, found))) found = v;
  return found;
}

function median(sorted) {
  const n = sorted.length, h = Math.floor(n / 2);
  return n % 2 ? sorted[h] : (sorted[h - 1] + sorted[h]) / 2;
}

function sortedNumbers(values) {
  return Float64Array.from(values).sort();
}

function phrase(s) {
  if (s.kind === "grid") return gridPhrase(s);
  if (s.kind === "histogram") {
    const data = s.x.filter(Number.isFinite);
    if (!data.length) return `${s.label}: no finite values`;
    const sorted = sortedNumbers(data);
    return `${s.label}: ${data.length} values from ${number(sorted[0])} to ${number(sorted[sorted.length - 1])}, `
      + `median ${number(median(sorted))}`;
  }
  const finite = finiteIndices(s.y);
  if (!finite.length) return `${s.label}: no finite values`;
  if ((s.kind === "points" || s.kind === "bars") && s.y.length <= FEW_POINTS) return pointsPhrase(s);
  if (s.kind === "points") {
    const x = finite.map((i) => s.x[i]), y = finite.map((i) => s.y[i]);
    const spread = isNumeric(s.x) && x.length
      ? `${s.xAxis.name || "x"} from ${number(Math.min(...x))} to ${number(Math.max(...x))}, ` : "";
    return `${s.label}: ${y.length} points, ${spread}${s.yAxis.name || "y"} from ${number(Math.min(...y))} to `
      + `${number(Math.max(...y))}`;
  }
  return curvePhrase(s);
}

function briefly(series) {
  let short = series.map((s) => s.label.replace(ASIDE, "") || s.label);
  if (new Set(short).size < short.length) short = series.map((s) => s.label);
  const said = [];
  let where = null;
  series.forEach((s, n) => {
    const label = short[n];
    const finite = s.y !== null && isNumeric(s.y) ? finiteIndices(s.y) : [];
    if (s.kind === "bars" && finite.length > FEW_POINTS) {
      const top = finite[argmax(finite.map((i) => s.y[i]))];
      said.push(`${label} highest ${number(s.y[top])} at ${s.xAxis.at(s.x[top])}`);
    } else if (s.kind === "line" && finite.length > FEW_POINTS) {
      const last = finite[finite.length - 1];
      const end = s.xAxis.at(s.x[last]);
      const low = Math.min(...finite.map((i) => s.y[i]));
      const dips = number(low) !== number(s.y[last]) ? `, lowest ${number(low)}` : "";
      said.push(`${label} ends at ${number(s.y[last])}` + (end !== where ? ` at ${end}` : "") + dips);
      where = end;
    } else {
      said.push(phrase(s));
    }
  });
  return said;
}

function pointsPhrase(s) {
  const said = Array.from(s.y, (y, i) => {
    const x = s.x[i];
    return s.kind === "points" && isNumeric(s.x) ? `(${number(x)}, ${number(y)})` : `${s.xAxis.at(x)}: ${number(y)}`;
  });
  const joined = said.length === 1 ? said[0] : said.slice(0, -1).join(", ") + " and " + said[said.length - 1];
  return s.kind === "points" ? `${s.label} at ${joined}` : `${s.label}: ${joined}`;
}

function curvePhrase(s) {
  const finite = finiteIndices(s.y);
  const y = finite.map((i) => s.y[i]);
  const top = argmax(y), bottom = argmin(y), last = y.length - 1;
  const numericX = isNumeric(s.x);
  if (numericX) {
    const x = finite.map((i) => s.x[i]);
    let back = false;
    for (let i = 1; i < x.length; i++) if (x[i] - x[i - 1] < 0) back = true;
    if (back) {
      return `${s.label}: a path from (${number(x[0])}, ${number(y[0])}) to (${number(x[last])}, ${number(y[last])}),`
        + ` ${s.xAxis.name || "x"} from ${number(nanExtreme(x, (a, b) => a < b))} to `
        + `${number(nanExtreme(x, (a, b) => a > b))}, ${s.yAxis.name || "y"} from ${number(y[bottom])} to `
        + `${number(y[top])}`;
    }
  }
  const xs = finite.map((i) => s.x[i]);
  const at = (i) => s.xAxis.at(xs[i]);
  if (number(y[top]) === number(y[bottom])) return `${s.label}: stays at ${number(y[0])} from ${at(0)} to ${at(last)}`;
  let said;
  if (top === 0 && bottom === last) said = [`falls from ${number(y[0])} at ${at(0)} to ${number(y[last])} at ${at(last)}`];
  else if (bottom === 0 && top === last) said = [`rises from ${number(y[0])} at ${at(0)} to ${number(y[last])} at ${at(last)}`];
  else {
    said = [`highest ${number(y[top])} at ${at(top)}`];
    if (y[bottom] < y[top]) said.push(`lowest ${number(y[bottom])} at ${at(bottom)}`);
    if (![number(y[top]), number(y[bottom])].includes(number(y[last]))) said.push(`ends at ${number(y[last])} at ${at(last)}`);
  }
  const settled = s.kind === "line" && numericX ? settlesAt(xs, y) : null;
  if (settled !== null) said.push(`settles by ${at(settled)}`);
  return `${s.label}: ` + said.join(", ");
}

function settlesAt(x, y) {
  const span = Math.max(...y) - Math.min(...y);
  if (span <= 0 || y.length < 3) return null;
  let lastAway = -1;
  for (let i = 0; i < y.length; i++) if (Math.abs(y[i] - y[y.length - 1]) > SETTLE_BAND * span) lastAway = i;
  if (lastAway < 0) return null;
  const k = lastAway + 1;
  if (k >= y.length || x[k] > x[0] + SETTLE_BEFORE * (x[x.length - 1] - x[0])) return null;
  return k;
}

function gridPhrase(s) {
  const z = s.z.values;
  const [rows, cols] = s.z.grid;
  let low = -1, high = -1, count = 0;
  const zeroed = new Float64Array(z.length);
  for (let i = 0; i < z.length; i++) {
    if (!Number.isFinite(z[i])) continue;
    count += 1;
    zeroed[i] = z[i];
    if (low < 0 || z[i] < z[low]) low = i;
    if (high < 0 || z[i] > z[high]) high = i;
  }
  if (!count) return `${s.label}: no finite values`;
  const where = (index) => {
    const col = s.x[index % cols], row = s.y[Math.floor(index / cols)];
    return `${s.xAxis.name ? s.xAxis.at(col) : "column " + spoken(col)}, `
      + `${s.yAxis.name ? s.yAxis.at(row) : "row " + spoken(row)}`;
  };
  const mean = pairwiseSum(zeroed, 0, zeroed.length) / count;
  return `${s.label}: ${rows} by ${cols} grid of ${s.zName}, lowest ${number(z[low])} at ${where(low)}, `
    + `highest ${number(z[high])} at ${where(high)}, mean ${number(mean)}`;
}

// --- the table --------------------------------------------------------------------------------------------------
function thinned(n, most) {
  if (n <= most) return Array.from({ length: n }, (_, i) => i);
  const step = (n - 1) / (most - 1);
  const picked = new Set();
  for (let i = 0; i < most; i++) picked.add(roundHalfEven(i === most - 1 ? n - 1 : i * step));
  return [...picked].sort((a, b) => a - b);
}

function pick(array, indices) {
  return isNumeric(array) ? Float64Array.from(indices, (i) => array[i]) : indices.map((i) => array[i]);
}

function table(s) {
  const xTitle = s.xAxis.title || "x", yTitle = s.yAxis.title || "y";
  if (s.kind === "grid") {
    const [, cols] = s.z.grid;
    const rows = thinned(s.y.length, MAX_GRID_ROWS), picked = thinned(s.x.length, MAX_GRID_COLUMNS);
    return {
      caption: `${s.label} (${s.zName}; rows: ${yTitle}, columns: ${xTitle})`,
      headers: [`${yTitle} \\ ${xTitle}`, ...column(pick(s.x, picked)).map(shown)],
      columns: [column(pick(s.y, rows)),
        ...picked.map((c) => column(Float64Array.from(rows, (r) => s.z.values[r * cols + c])))],
    };
  }
  if (s.kind === "histogram") {
    const data = sortedNumbers(s.x.filter(Number.isFinite));
    const picked = thinned(data.length, MAX_ROWS);
    return { caption: `${s.label} (the values, sorted)`, headers: ["n", xTitle],
             columns: [picked.map((i) => i + 1), column(pick(data, picked))] };
  }
  const picked = thinned(s.y.length, MAX_ROWS);
  return {
    caption: s.label + (picked.length < s.y.length ? ` (${picked.length} of ${s.y.length} points)` : ""),
    headers: [xTitle, s.yAxis.title || s.label || yTitle],
    columns: [column(pick(s.x, picked)), column(pick(s.y, picked))],
  };
}

function codePoints(text) {
  return [...text].length;
}

// chart_text.chart_text: the summary (the chart's accessible name) and its series' tables.
export function chartText(figure, note = "", name = "") {
  const layout = figure.layout || {};
  const title = plainWords(textOf(layout.title)).replace(RUNAWAY_NOTE, "") || name;
  const axes = new Map();
  const series = (figure.data || []).map((trace, n) => readSeries(trace, n, layout, axes)).filter((s) => s !== null);
  distinguish(series);
  const room = MAX_SUMMARY_CHARS - codePoints(title) - codePoints(note);
  const length = (words) => words.reduce((sum, w) => sum + codePoints(w) + 2, 0);
  let said = series.length <= MAX_SERIES_SAID ? series.map(phrase) : [];
  if (length(said) > room || series.length > MAX_SERIES_SAID) {
    said = [];
    for (const words of briefly(series)) {
      if (said.length && length(said) + codePoints(words) > room) break;
      said.push(words);
    }
  }
  if (series.length > said.length) {
    const rest = series.length - said.length;
    said.push(rest > 1 ? `${rest} more series in the data table` : "one more series in the data table");
  }
  const frames = figure.frames || [];
  if (frames.length > 1) said.push(`${frames.length} frames to play`);
  const parts = [note.trim().replace(/\.+$/, ""), ...said].filter(Boolean);
  const summary = parts.length ? `${title}: ` + parts.join("; ") + "." : `${title}: no data.`;
  const short = title.replace(ASIDE, "").trim() || title;
  return { summary, tables: series.map(table).map((t) => ({ ...t, name: `${short}: ${t.caption}` })) };
}
