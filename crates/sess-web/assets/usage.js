// sess: the usage view (tokens and cost by day or month, drawn as stacked
// bars, with the table of the same numbers) and the usage line of a session's
// header. A module that app.js imports; app.js hands it its DOM and API
// helpers (`kit`). The charts are SVG built here with createElementNS, every
// label set as text; colours come from classes in app.css.
//
// Route: #/usage?period=7|30|90|all|month&split=agent|model&source=&project=&machine=
//
// data-testid attributes, for end-to-end tests:
//   usage-view (data-by: daily|monthly; data-since, data-until: the days asked for, when a period has them)
//   usage-period (select), usage-split (data-split) with usage-split-agent and usage-split-model (aria-pressed)
//   usage-project (select: "" and every project), source-filter, machine-filter (as on the home page)
//   usage-summary (data-total-tokens, data-cost), usage-empty, usage-error
//   usage-chart (data-metric: cost|tokens; data-slots: the days or months on its axis)
//   usage-bar (data-key: a day or month; data-value), usage-segment (data-series, data-value),
//   usage-unknown (a cost bar's mark: calls of that day or month have no price), axis-label (data-axis: x|y)
//   usage-legend, legend-item (data-series)
//   usage-table, usage-row (data-key), usage-total; their cells have data-col and data-value
//   unpriced-note, prices-note
//   session-usage (a session's header; data-total-tokens, data-cost, data-cost-complete)

const SVG_NS = 'http://www.w3.org/2000/svg';

/// The periods the view offers: the last days up to today, every day, or every month.
const PERIODS = [
  { value: '7', label: 'Last 7 days', days: 7 },
  { value: '30', label: 'Last 30 days', days: 30 },
  { value: '90', label: 'Last 90 days', days: 90 },
  { value: 'all', label: 'All days' },
  { value: 'month', label: 'By month' },
];

/// How many colours the series cycle through (`series-0` … in app.css).
const COLOURS = 10;

const DAY_MS = 86_400_000;

// ---- Numbers -------------------------------------------------------------

const integer = new Intl.NumberFormat('en-US');

/// `1234567` as `1,234,567`.
export function count(n) {
  return integer.format(Number(n) || 0);
}

function dollars(value, digits = 2) {
  return `$${Number(value).toFixed(digits)}`;
}

/// A sum's cost as `sess usage` prints it: `$1.23`; `≥ $1.23` when some calls have no price; `unknown` when none has.
export function costText(sum) {
  if (sum.costComplete) return dollars(sum.totalCost);
  if (sum.totalCost > 0) return `≥ ${dollars(sum.totalCost)}`;
  return 'unknown';
}

/// The cost of a part's calls that have one (`knownCost`; all of `cost` when that is known).
function knownCost(part) {
  if (typeof part.knownCost === 'number') return part.knownCost;
  return typeof part.cost === 'number' ? part.cost : 0;
}

/// A part's cost to the hundredth of a cent: `$0.0123`; `≥ $0.0123` when some of its calls have no price;
/// `cost unknown` when none has.
function exactCost(part) {
  if (typeof part.cost === 'number') return dollars(part.cost, 4);
  return knownCost(part) > 0 ? `≥ ${dollars(knownCost(part), 4)}` : 'cost unknown';
}

/// Tokens of each kind, in words.
function tokenDetail(t) {
  return `${count(t.inputTokens)} input, ${count(t.outputTokens)} output, `
    + `${count(t.cacheCreationTokens)} cache write, ${count(t.cacheReadTokens)} cache read`;
}

/// An axis tick: `12k`, `3.5M`, `$0.25`.
function tickText(value, metric, step) {
  if (metric === 'cost') {
    const digits = Math.max(0, Math.min(6, -Math.floor(Math.log10(step))));
    return dollars(value, digits);
  }
  const units = [[1e9, 'B'], [1e6, 'M'], [1e3, 'k']];
  for (const [size, unit] of units) {
    if (Math.abs(value) >= size) return `${Number((value / size).toFixed(2))}${unit}`;
  }
  return String(value);
}

/// Ticks from 0 to at least `max`, at a round step (1, 2 or 5 times a power of ten), about five of them.
function ticks(max) {
  if (!(max > 0)) return { step: 1, values: [0, 1] };
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((f) => f * power).find((s) => s >= rough);
  const values = [];
  for (let i = 0; values.length === 0 || values[values.length - 1] < max - step * 1e-9; i += 1) {
    values.push(Number((i * step).toPrecision(12)));
  }
  return { step, values };
}

// ---- Days ----------------------------------------------------------------

const pad = (n) => String(n).padStart(2, '0');

/// Today in the browser's time zone, `YYYY-MM-DD`.
function today() {
  const now = new Date();
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

function dayNumber(iso) {
  const [y, m, d] = iso.split('-').map(Number);
  return Date.UTC(y, m - 1, d) / DAY_MS;
}

function dayOf(number) {
  const date = new Date(number * DAY_MS);
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

function addDays(iso, n) {
  return dayOf(dayNumber(iso) + n);
}

/// Every day from `first` to `last`.
function days(first, last) {
  const out = [];
  for (let n = dayNumber(first); n <= dayNumber(last); n += 1) out.push(dayOf(n));
  return out;
}

/// Every month (`YYYY-MM`) from `first` to `last`.
function months(first, last) {
  const out = [];
  let [y, m] = first.split('-').map(Number);
  const [ly, lm] = last.split('-').map(Number);
  while (y < ly || (y === ly && m <= lm)) {
    out.push(`${y}-${pad(m)}`);
    m += 1;
    if (m > 12) { m = 1; y += 1; }
  }
  return out;
}

// ---- SVG -----------------------------------------------------------------

/// Builds an SVG element: `class`, `testid`, `dataset` (object) or any attribute; children are nodes or text.
function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'testid') node.dataset.testid = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

const round = (n) => Number(n.toFixed(2));

/// One chart of stacked bars: a bar per report line at its slot (a day or a month), a segment per series.
/// `metric` is `cost` or `tokens`.
function barChart({ metric, slots, lines, keyOf, partsOf, series, slotLabel, axisTitle }) {
  const width = 960;
  const height = 260;
  const margin = { left: 72, right: 12, top: 16, bottom: 48 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const valueOf = (part) => (metric === 'cost' ? knownCost(part) : part.totalTokens);
  const bars = lines.map((line) => {
    const parts = partsOf(line);
    const known = parts.filter((p) => typeof valueOf(p) === 'number' && valueOf(p) > 0);
    return { line, parts, known, total: known.reduce((sum, p) => sum + valueOf(p), 0) };
  });
  const max = Math.max(0, ...bars.map((b) => b.total));
  const { step, values } = ticks(max);
  const top = values[values.length - 1];
  const y = (v) => margin.top + plotH - (v / top) * plotH;
  const slotW = plotW / Math.max(1, slots.length);
  const barW = Math.max(2, slotW * 0.72);
  const position = new Map(slots.map((slot, i) => [slot, i]));

  const root = svg('svg', {
    class: 'usage-svg', viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': `${axisTitle.y} by ${axisTitle.x.toLowerCase()}`,
  });
  const grid = svg('g', { class: 'usage-grid' });
  for (const value of values) {
    grid.append(svg('line', { x1: margin.left, x2: width - margin.right, y1: round(y(value)), y2: round(y(value)) }),
      svg('text', {
        class: 'usage-tick', x: margin.left - 6, y: round(y(value)), 'text-anchor': 'end',
        'dominant-baseline': 'middle', testid: 'axis-label', dataset: { axis: 'y' },
      }, tickText(value, metric, step)));
  }
  root.append(grid);

  // At most about twelve labels under the axis; the first slot always has one.
  const every = Math.max(1, Math.ceil(slots.length / 12));
  const labels = svg('g', { class: 'usage-labels' });
  let previous = null;
  slots.forEach((slot, i) => {
    if (i % every !== 0) return;
    labels.append(svg('text', {
      class: 'usage-tick', x: round(margin.left + (i + 0.5) * slotW), y: margin.top + plotH + 16,
      'text-anchor': 'middle', testid: 'axis-label', dataset: { axis: 'x' },
    }, slotLabel(slot, previous)));
    previous = slot;
  });
  root.append(labels,
    svg('text', { class: 'usage-axis-title', x: margin.left + plotW / 2, y: height - 6, 'text-anchor': 'middle' },
      axisTitle.x),
    svg('text', {
      class: 'usage-axis-title', x: 14, y: margin.top + plotH / 2, 'text-anchor': 'middle',
      transform: `rotate(-90 14 ${margin.top + plotH / 2})`,
    }, axisTitle.y),
    svg('line', {
      class: 'usage-axis', x1: margin.left, x2: width - margin.right,
      y1: margin.top + plotH, y2: margin.top + plotH,
    }));

  const order = new Map(series.map((s) => [s.name, s]));
  for (const bar of bars) {
    const key = keyOf(bar.line);
    const i = position.get(key);
    if (i === undefined) continue;
    const x = round(margin.left + i * slotW + (slotW - barW) / 2);
    const group = svg('g', { class: 'usage-bar', testid: 'usage-bar', dataset: { key, value: String(bar.total) } });
    let below = 0;
    const stacked = bar.known.slice().sort((a, b) => order.get(a.name).index - order.get(b.name).index);
    for (const part of stacked) {
      const value = valueOf(part);
      const s = order.get(part.name);
      const yTop = y(below + value);
      group.append(svg('rect', {
        class: `usage-segment series-${s.index % COLOURS}`, testid: 'usage-segment',
        x, y: round(yTop), width: round(barW), height: round(y(below) - yTop),
        dataset: { series: part.name, value: String(value) },
      }, svg('title', null, `${key} · ${s.label}: ${exactCost(part)}, ${count(part.totalTokens)} tokens `
        + `(${tokenDetail(part)}), ${count(part.calls)} call${part.calls === 1 ? '' : 's'}`)));
      below += value;
    }
    const unknown = bar.parts.filter((p) => metric === 'cost' && (p.cost === null || p.cost === undefined));
    if (unknown.length) {
      group.append(svg('text', {
        class: 'usage-unknown', testid: 'usage-unknown', x: round(x + barW / 2), y: round(y(below) - 4),
        'text-anchor': 'middle',
      }, '?', svg('title', null, `${key}: no price for some calls of ${unknown.map((p) => `${order.get(p.name).label} `
        + `(${count(p.totalTokens)} tokens)`).join(', ')}`)));
    }
    root.append(group);
  }
  return root;
}

// ---- The view ------------------------------------------------------------

/// Shows `#/usage` in `kit.app`: the filters, the two charts, the legend, the table and the notes.
export async function showUsage(params, stale, kit) {
  const { el, api, query, clear, errorBanner, agentSelect, machineSelect, machineList, agentName, app } = kit;
  const state = {
    period: PERIODS.some((p) => p.value === params.get('period')) ? params.get('period') : '30',
    split: params.get('split') === 'model' ? 'model' : 'agent',
    source: params.get('source') || '',
    project: params.get('project') || '',
    machine: params.get('machine') || '',
  };
  const period = PERIODS.find((p) => p.value === state.period);
  const monthly = state.period === 'month';
  const until = period.days ? today() : '';
  const since = period.days ? addDays(until, 1 - period.days) : '';
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || '';
  const asked = query({
    by: monthly ? 'monthly' : 'daily', source: state.source, project: state.project, machine: state.machine,
    since, until, tz: zone,
  });
  const [projects, machines, report] = await Promise.all([
    api('/api/projects').catch(() => []),
    machineList(),
    api(`/api/usage${asked}`).catch((error) => error),
  ]);
  if (stale()) return;
  document.title = 'Usage · sess';

  const go = (change) => { location.hash = `#/usage${query({ ...state, ...change })}`; };
  const periodSelect = el('select', { testid: 'usage-period', 'aria-label': 'Period' },
    PERIODS.map((p) => el('option', { value: p.value }, p.label)));
  periodSelect.value = state.period;
  periodSelect.addEventListener('change', () => go({ period: periodSelect.value }));
  const splitButton = (split, text) => el('button', {
    type: 'button', class: 'split-button', testid: `usage-split-${split}`,
    'aria-pressed': state.split === split ? 'true' : 'false',
    on: { click: () => { if (state.split !== split) go({ split }); } },
  }, text);
  const split = el('span', { class: 'split', role: 'group', 'aria-label': 'Split the bars by', testid: 'usage-split',
    dataset: { split: state.split } },
  splitButton('agent', 'By agent'), splitButton('model', 'By model'));
  const sourceFilter = agentSelect();
  sourceFilter.value = state.source;
  sourceFilter.addEventListener('change', () => go({ source: sourceFilter.value }));
  const cwds = projects.map((p) => p.cwd);
  if (state.project && !cwds.includes(state.project)) cwds.push(state.project);
  const projectFilter = el('select', { testid: 'usage-project', 'aria-label': 'Project', class: 'project-select' },
    el('option', { value: '' }, 'All projects'),
    cwds.map((cwd) => el('option', { value: cwd, title: cwd }, cwd)));
  projectFilter.value = state.project;
  projectFilter.addEventListener('change', () => go({ project: projectFilter.value }));
  const machineFilter = machineSelect(machines, state.machine);
  machineFilter?.addEventListener('change', () => go({ machine: machineFilter.value }));

  const view = el('section', {
    class: 'pane main usage', testid: 'usage-view',
    dataset: { by: monthly ? 'monthly' : 'daily', since, until },
  }, el('div', { class: 'toolbar' },
    el('h2', null, 'Usage'), periodSelect, split, sourceFilter, projectFilter, machineFilter));
  clear(app);
  app.className = 'layout single';
  app.append(view);
  if (report instanceof Error) {
    view.append(el('div', { testid: 'usage-error' }, errorBanner(report.message)));
    return;
  }

  const lines = (monthly ? report.monthly : report.daily) || [];
  const keyOf = (line) => (monthly ? line.month : line.date);
  const partsOf = (line) => (state.split === 'model'
    ? line.modelBreakdowns.map((b) => ({ ...b, name: b.modelName }))
    : line.sourceBreakdowns.map((b) => ({ ...b, name: b.source })));
  const totals = report.totals;
  const where = [period.days ? `${since} to ${until}` : (lines.length ? `${keyOf(lines[0])} to ${keyOf(lines[lines.length - 1])}` : ''),
    zone ? `days in ${zone}` : ''].filter(Boolean).join(', ');
  view.append(el('p', {
    class: 'usage-summary', testid: 'usage-summary',
    dataset: { totalTokens: String(totals.totalTokens), cost: String(totals.totalCost) },
  },
  el('strong', null, costText(totals)), ' · ',
  el('strong', null, `${count(totals.totalTokens)} tokens`), ` · ${count(totals.calls)} call${totals.calls === 1 ? '' : 's'}`,
  where ? el('span', { class: 'muted' }, ` · ${where}`) : null));
  if (!lines.length) {
    view.append(el('p', { class: 'empty', testid: 'usage-empty' }, 'No model calls in this period.'));
    view.append(notes(report, el));
    return;
  }

  // Series: the agents or models of the period, the most tokens first (their colours follow this order).
  const sums = new Map();
  for (const line of lines) {
    for (const part of partsOf(line)) {
      const sum = sums.get(part.name) || { tokens: 0, cost: 0, complete: true, calls: 0 };
      sum.tokens += part.totalTokens;
      sum.calls += part.calls;
      sum.cost += knownCost(part);
      if (typeof part.cost !== 'number') sum.complete = false;
      sums.set(part.name, sum);
    }
  }
  const series = [...sums.entries()]
    .sort((a, b) => b[1].tokens - a[1].tokens || a[0].localeCompare(b[0]))
    .map(([name, sum], index) => ({
      name, index, sum, label: state.split === 'agent' ? agentName(name) : name,
    }));

  const slots = monthly
    ? months(keyOf(lines[0]), keyOf(lines[lines.length - 1]))
    : days(since || keyOf(lines[0]), until || keyOf(lines[lines.length - 1]));
  // A day's label has its year when it is the first label, or the first of a new year.
  const slotLabel = (slot, previous) => (monthly || !previous || previous.slice(0, 4) !== slot.slice(0, 4)
    ? slot : slot.slice(5));
  const unit = monthly ? 'Month' : 'Day';
  for (const [metric, title, yTitle] of [['cost', 'Cost', 'US$'], ['tokens', 'Tokens', 'Tokens']]) {
    view.append(el('figure', {
      class: 'usage-chart', testid: 'usage-chart', dataset: { metric, slots: String(slots.length) },
    },
    el('figcaption', null, title),
    barChart({ metric, slots, lines, keyOf, partsOf, series, slotLabel, axisTitle: { x: unit, y: yTitle } })));
  }
  view.append(el('ul', { class: 'usage-legend', testid: 'usage-legend', 'aria-label': 'Legend' },
    series.map((s) => el('li', { class: 'legend-item', testid: 'legend-item', dataset: { series: s.name } },
      el('span', { class: `swatch series-${s.index % COLOURS}` }),
      el('span', { class: 'legend-name' }, s.label),
      el('span', { class: 'muted' }, ` ${count(s.sum.tokens)} tokens · `
        + `${costText({ totalCost: s.sum.cost, costComplete: s.sum.complete })}`)))));
  view.append(table(lines, keyOf, totals, unit, el), notes(report, el));
}

/// The report's lines, their tokens and cost, and the totals.
function table(lines, keyOf, totals, unit, el) {
  const columns = [
    ['input', 'Input', (s) => s.inputTokens],
    ['output', 'Output', (s) => s.outputTokens],
    ['cacheWrite', 'Cache write', (s) => s.cacheCreationTokens],
    ['cacheRead', 'Cache read', (s) => s.cacheReadTokens],
    ['total', 'Total tokens', (s) => s.totalTokens],
  ];
  const cells = (sum) => [
    ...columns.map(([col, , value]) => el('td', { class: 'number', dataset: { col, value: String(value(sum)) } },
      count(value(sum)))),
    el('td', {
      class: `number${sum.costComplete ? '' : ' incomplete'}`,
      dataset: { col: 'cost', value: String(sum.totalCost), complete: String(sum.costComplete) },
    }, costText(sum)),
  ];
  return el('table', { class: 'usage-table', testid: 'usage-table' },
    el('thead', null, el('tr', null, el('th', null, unit), columns.map(([, name]) => el('th', { class: 'number' }, name)),
      el('th', { class: 'number' }, 'Cost'), el('th', null, 'Models'))),
    el('tbody', null, lines.map((line) => el('tr', { testid: 'usage-row', dataset: { key: keyOf(line) } },
      el('th', { scope: 'row' }, keyOf(line)), cells(line), el('td', { class: 'models' }, line.modelsUsed.join(', '))))),
    el('tfoot', null, el('tr', { testid: 'usage-total' }, el('th', { scope: 'row' }, 'Total'), cells(totals),
      el('td', null))));
}

/// What the report could not price, and where its prices come from.
function notes(report, el) {
  const out = document.createDocumentFragment();
  if (report.unpricedModels.length) {
    out.append(el('p', { class: 'banner note', testid: 'unpriced-note' },
      `No price for ${report.unpricedModels.join(', ')}: tokens counted, cost unknown.`));
  }
  out.append(el('p', { class: 'muted usage-prices', testid: 'prices-note' },
    `Costs: the agents' own where they recorded one, else the bundled price table of ${report.pricesDate}.`));
  return out;
}

// ---- A session's line ----------------------------------------------------

/// The line a session's header shows of its calls; null when it made none.
export function sessionUsage(usage, el) {
  if (!usage) return null;
  const unpriced = (usage.modelBreakdowns || []).filter((b) => b.cost === null).map((b) => b.modelName);
  const cost = costText(usage);
  return el('p', {
    class: 'session-usage muted', testid: 'session-usage',
    dataset: {
      totalTokens: String(usage.totalTokens), cost: String(usage.totalCost), costComplete: String(usage.costComplete),
    },
  },
  el('strong', null, `${count(usage.totalTokens)} tokens`),
  ` (${tokenDetail(usage)})`, ' · ',
  el('strong', { title: unpriced.length ? `no price for ${unpriced.join(', ')}` : null },
    cost === 'unknown' ? 'cost unknown' : cost),
  ` · ${count(usage.calls)} call${usage.calls === 1 ? '' : 's'}`,
  usage.modelsUsed.length ? ` · ${usage.modelsUsed.join(', ')}` : null);
}
