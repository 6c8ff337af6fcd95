// harness-gym record viewer: plain DOM, no framework, no build step. Text goes in with textContent only.
//
// The table's row elements are made once and nothing is redrawn when the rows shown do not change: a
// reward filter's `change` fires on the mousedown of the next click (the input loses focus), and a
// redraw then, even one re-inserting the same elements, took the row from under the click and lost it.
'use strict';

const state = {
  rows: [],
  /** key -> <tr>, made once. */
  trs: new Map(),
  selected: null,
  /** The column sorted by (null: record order) and the direction (1 ascending, -1 descending). */
  sort: { column: null, dir: 1 },
  /** Keys shown, in order, and the keys the charts were drawn for: a redraw that changes neither is skipped. */
  shown: '',
  charted: '',
  /** Which collapsible sections of the detail pane are open, kept from one episode to the next. */
  open: new Map(),
  /** Counts detail requests, so that only the latest one is drawn. */
  opening: 0,
};

function el(tag, props, ...children) {
  const e = document.createElement(tag);
  if (props)
    for (const [k, v] of Object.entries(props)) {
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else e.setAttribute(k, v);
    }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function fillSelect(id, values) {
  const s = document.getElementById(id);
  for (const v of values) s.append(el('option', { value: v, text: v }));
}

function uniq(xs) {
  return [...new Set(xs)].sort();
}

function families(row) {
  return row.variant_families.length ? row.variant_families : ['identity'];
}

// Numeric-aware, so that vec-2 sorts before vec-16.
const collator = new Intl.Collator('en', { numeric: true });

function variantText(r) {
  return r.variant_label === r.variant_id ? r.variant_id : `${r.variant_label} ${r.variant_id}`;
}

/** The table's columns: header, cell text (and title), and the value sorted by when not the text. */
const COLUMNS = [
  { id: 'episode', label: 'episode', text: (r) => r.episode_id },
  { id: 'session', label: 'session', text: (r) => r.session, title: (r) => `${r.file}, record ${r.index}` },
  { id: 'intent', label: 'intent', text: (r) => r.intent },
  { id: 'variant', label: 'variant', text: variantText, title: variantText },
  { id: 'outcome', label: 'outcome', text: (r) => r.outcome },
  { id: 'reward', label: 'reward', text: (r) => r.reward.toFixed(3), value: (r) => r.reward },
  { id: 'turns', label: 'turns', text: (r) => String(r.turns), value: (r) => r.turns },
  { id: 'hooks', label: 'hooks', text: (r) => r.hooks_violated.join(', '), title: (r) => r.hooks_violated.join(', ') },
];

/** Rows in the order of the sort column, ties in record order; the other direction is the exact reverse. */
function sorted(rows) {
  const col = COLUMNS.find((c) => c.id === state.sort.column);
  if (!col) return rows;
  const value = col.value ?? col.text;
  const cmp = (a, b) => {
    const x = value(a),
      y = value(b);
    const c = typeof x === 'number' ? x - y : collator.compare(x, y);
    return c || a.key - b.key;
  };
  return rows.slice().sort((a, b) => state.sort.dir * cmp(a, b));
}

function filtered() {
  const f = (id) => document.getElementById(id).value;
  // An emptied bound is no bound (Number('') would be 0).
  const bound = (id, dflt) => (f(id).trim() === '' || Number.isNaN(Number(f(id))) ? dflt : Number(f(id)));
  const min = bound('f-min', -Infinity),
    max = bound('f-max', Infinity);
  return state.rows.filter(
    (r) =>
      (!f('f-intent') || r.intent === f('f-intent')) &&
      (!f('f-family') || families(r).includes(f('f-family'))) &&
      (!f('f-outcome') || r.outcome === f('f-outcome')) &&
      (!f('f-hook') || r.hooks_violated.includes(f('f-hook'))) &&
      r.reward >= min &&
      r.reward <= max,
  );
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

// One histogram (10 bins over [0, 1]) per reward component, plus the total.
function chart(name, values) {
  const bins = new Array(10).fill(0);
  for (const v of values) bins[Math.min(9, Math.max(0, Math.floor(v * 10)))]++;
  const peak = Math.max(1, ...bins);
  const W = 160,
    H = 60;
  const s = svg('svg', { width: W, height: H + 14, viewBox: `0 0 ${W} ${H + 14}`, role: 'img' });
  s.append(Object.assign(svg('title', {}), { textContent: `${name}: ${values.length} episodes` }));
  bins.forEach((n, i) => {
    const h = Math.round((n / peak) * H);
    const r = svg('rect', { class: 'bar', x: i * 16 + 1, y: H - h, width: 14, height: h });
    r.append(Object.assign(svg('title', {}), { textContent: `[${(i / 10).toFixed(1)}, ${((i + 1) / 10).toFixed(1)}): ${n}` }));
    s.append(r);
  });
  const axis = svg('text', { x: 0, y: H + 12, 'font-size': 10 });
  axis.textContent = '0';
  const axis2 = svg('text', { x: W - 8, y: H + 12, 'font-size': 10 });
  axis2.textContent = '1';
  s.append(axis, axis2);
  const mean = values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
  return el('div', { class: 'chart', 'data-component': name }, el('div', { class: 'title', text: `${name} (mean ${mean.toFixed(3)})` }), s);
}

function drawCharts(rows) {
  const charts = document.getElementById('charts');
  charts.replaceChildren(
    chart(
      'reward',
      rows.map((r) => r.reward),
    ),
  );
  const names = uniq(state.rows.flatMap((r) => Object.keys(r.components)));
  for (const n of names)
    charts.append(
      chart(
        n,
        rows.filter((r) => n in r.components).map((r) => r.components[n]),
      ),
    );
}

function makeRow(r) {
  const tr = el('tr', { 'data-key': String(r.key) });
  for (const c of COLUMNS) {
    // The episode cell is the episode's link (keyboard, new tab, copy link address).
    const td =
      c.id === 'episode'
        ? el('td', { 'data-column': c.id }, el('a', { href: linkOf(r), text: c.text(r) }))
        : el('td', { 'data-column': c.id, text: c.text(r) });
    if (c.title) td.title = c.title(r);
    tr.append(td);
  }
  return tr;
}

function render() {
  const rows = filtered();
  const keys = rows.map((r) => r.key).join(',');
  if (keys !== state.charted) {
    state.charted = keys;
    document.getElementById('count').textContent = `${rows.length} of ${state.rows.length} episodes`;
    drawCharts(rows);
  }
  const order = sorted(rows);
  const shown = order.map((r) => r.key).join(',');
  if (shown === state.shown) return;
  state.shown = shown;
  document.querySelector('#episodes tbody').replaceChildren(...order.map((r) => state.trs.get(r.key)));
}

function drawHeader() {
  const tr = document.querySelector('#episodes thead tr');
  tr.replaceChildren(
    ...COLUMNS.map((c) => {
      const th = el('th', { 'data-column': c.id }, el('button', { type: 'button', class: 'sort', text: c.label }));
      if (state.sort.column === c.id) th.setAttribute('aria-sort', state.sort.dir > 0 ? 'ascending' : 'descending');
      return th;
    }),
  );
}

function sortBy(column) {
  if (state.sort.column === column) state.sort.dir = -state.sort.dir;
  else state.sort = { column, dir: 1 };
  drawHeader();
  render();
}

// ---- links: #/episode/<file>/<index> --------------------------------------------------------------

function linkOf(row) {
  return `#/episode/${encodeURIComponent(row.file)}/${row.index}`;
}

/** The file and record index an episode link names; null when the hash is no episode link. */
function parseLink(hash) {
  const m = /^#\/episode\/([^/]+)\/(\d+)$/.exec(hash);
  if (!m) return null;
  try {
    return { file: decodeURIComponent(m[1]), index: Number(m[2]) };
  } catch {
    return null;
  }
}

function followHash() {
  const link = parseLink(location.hash);
  if (link === null) return;
  const row = state.rows.find((r) => r.file === link.file && r.index === link.index);
  if (!row) {
    const why = state.rows.some((r) => r.file === link.file)
      ? `${link.file} has no record ${link.index}.`
      : `No record file ${link.file} in ${state.path}.`;
    document.getElementById('detail-pane').replaceChildren(el('p', { class: 'hook', id: 'not-found', text: why }));
    return;
  }
  if (row.key !== state.selected) open(row.key, { reveal: true });
}

// ---- the detail pane ---------------------------------------------------------------------------------

/** A collapsible section; whether it is open is remembered by id across episodes. */
function section(id, title, open, ...children) {
  const d = el('details', { id, class: 'section' }, el('summary', { text: title }), ...children);
  d.open = state.open.get(id) ?? open;
  d.addEventListener('toggle', () => state.open.set(id, d.open));
  return d;
}

function pair(x) {
  return x.canonical === null ? `${x.surface} (decoy)` : x.canonical === x.surface ? x.surface : `${x.surface} = ${x.canonical}`;
}

function callText(c) {
  return `${c.name} ${JSON.stringify(c.arguments)}`;
}

function factsText(fs) {
  return fs.length ? fs.map((f) => `${f.key} = ${f.values.join(' | ')}`).join('; ') : '(none)';
}

function listText(xs) {
  return xs.length ? xs.join(', ') : '(none)';
}

function segmentText(x) {
  return x === null ? 'not scored' : x.toFixed(4);
}

function definitions(pairs) {
  return el(
    'dl',
    null,
    ...pairs.flatMap(([k, v]) => [el('dt', { text: k }), v instanceof Node ? el('dd', null, v) : el('dd', { text: v })]),
  );
}

function answerKeySection(k) {
  const changes = Object.entries(k.expected_state).filter(([, xs]) => Array.isArray(xs) && xs.length > 0);
  return section(
    'answer-key',
    'Answer key',
    true,
    definitions([
      ['expect', k.expect],
      ['call to action', k.cta ? 'expected' : 'not expected'],
      ['reply skills', listText(k.reply_skills)],
      ['strategy skills', listText(k.strategy_skills)],
      [
        'required calls',
        k.required_calls.length
          ? el('ul', null, ...k.required_calls.map((r) => el('li', { class: 'mono', text: r.any_of.map(callText).join(' or ') })))
          : '(none)',
      ],
      ['solution', k.solution.length ? el('ol', null, ...k.solution.map((c) => el('li', { class: 'mono', text: callText(c) }))) : '(none)'],
      ['optional tools', listText(k.optional_tools)],
      ['required facts', factsText(k.required_facts)],
      ['forbidden facts', factsText(k.forbidden_facts)],
      ['expected state', changes.length ? changes.map(([n, xs]) => `${n} ${JSON.stringify(xs)}`).join('; ') : 'unchanged'],
      ['reference reply', el('div', { class: 'reply', id: 'reference-reply', text: k.reference_reply })],
    ]),
  );
}

function toolsSection(v) {
  const lists = v.tool_lists.map((l) =>
    el(
      'div',
      { class: 'tool-list', 'data-after-turn': String(l.after_turn) },
      el('h4', { text: l.after_turn === 0 ? `At reset: ${l.tools.length} tools` : `After turn ${l.after_turn}: ${l.tools.length} tools` }),
      ...l.tools.map((t) =>
        el(
          'details',
          { class: 'tool', 'data-surface': t.surface },
          el(
            'summary',
            null,
            el('code', { class: 'tool-name', text: pair(t) }),
            t.description ? el('span', { class: 'description', text: ` ${t.description}` }) : null,
          ),
          el('pre', { class: 'schema', text: JSON.stringify(t.parameters, null, 2) }),
        ),
      ),
    ),
  );
  return section(
    'tools',
    'Tools offered (schemas as the model saw them)',
    false,
    ...(lists.length ? lists : [el('p', { text: '(not recorded)' })]),
  );
}

function variantSection(v) {
  const t = v.variant.tables;
  const items = [
    [
      'variant',
      `${v.variant.id} (${v.variant.label}${v.variant.families.length ? ': ' + v.variant.families.join(', ') : ''}), variant seed ${v.variant.variant_seed}`,
    ],
    ['applied operators', listText(v.variant.applied)],
    ['tools', v.tools.map(pair).join(', ')],
    ['skills', v.skills.map(pair).join(', ')],
  ];
  if (t === null) items.push(['map', '(the variant could not be rebuilt)']);
  else {
    const entries = (o) => Object.entries(o).map(([c, s]) => `${c} = ${s}`);
    items.push(['renamed fields (canonical = surface)', listText(entries(t.fields))]);
    items.push(['arguments wrapped (tool: wrapper)', listText(Object.entries(t.nest).map(([c, w]) => `${c}: ${w}`))]);
    items.push(['surface-only parameters', listText(Object.entries(t.extra_params).map(([c, ps]) => `${c}: ${ps.join(', ')}`))]);
    items.push(['decoys', listText(t.decoys)]);
  }
  return section('variant', 'Harness variant and its map', false, definitions(items));
}

function turnBox(t) {
  const box = el('div', { class: 'turn' }, el('strong', { text: `turn ${t.index} (${t.kind})` }));
  if (t.thinking) box.append(el('div', { class: 'thinking', text: t.thinking }));
  if (t.content) box.append(el('div', { class: t.calls.length ? '' : 'reply', text: t.content }));
  for (const c of t.calls) {
    const names = c.decoy
      ? `${c.surface_name} (decoy)`
      : c.surface_name === c.canonical_name
        ? c.canonical_name
        : `${c.surface_name} → ${c.canonical_name}`;
    const lines = [
      `${names}(${c.surface_arguments ?? ''})`,
      `canonical: ${c.canonical_arguments === null ? '(unparseable)' : JSON.stringify(c.canonical_arguments)}`,
    ];
    for (const u of c.unmapped_arguments) lines.push(`not mapped: ${u.name} = ${JSON.stringify(u.value)} (${u.reason})`);
    lines.push(`${c.ok ? 'result' : 'error ' + c.error}: ${c.result ?? ''}`);
    box.append(el('div', { class: 'call', text: lines.join('\n') }));
  }
  for (const h of t.hook_violations) box.append(el('div', { class: 'hook', text: `hook ${h.hook} ${h.code}: ${h.message}` }));
  if (t.hook_feedback) box.append(el('div', { class: 'hook', text: `feedback: ${t.hook_feedback}` }));
  return box;
}

function rewardSection(v) {
  const r = v.reward;
  return section(
    'reward',
    'Reward',
    true,
    el('p', {
      id: 'reward-total',
      text: `Reward ${r.total.toFixed(4)} (profile ${r.profile}; tool segment: ${segmentText(r.segments.tool)}, reply segment: ${segmentText(r.segments.reply)})`,
    }),
    ...(r.caps ?? []).map((cap) => el('p', { class: 'reward-cap', text: cap })),
    ...r.components.map((c) =>
      el(
        'div',
        { class: 'component', 'data-component': c.name },
        el('strong', {
          text: `${c.name}: ${c.value.toFixed(4)} (${c.weight === null ? 'not weighted' : 'weight ' + c.weight})${c.failed ? ' FAILED' : ''}`,
        }),
        el('ul', { class: 'reasons' }, ...c.reasons.map((x) => el('li', { text: x }))),
      ),
    ),
  );
}

function drawDetail(v) {
  const pane = document.getElementById('detail-pane');
  // Chinese episodes get Chinese glyph forms (the CJK fonts share code points across languages).
  pane.lang = v.locale;
  const parts = [
    el('h2', { id: 'episode-title', text: `${v.episode_id} · ${v.intent} · ${v.outcome}` }),
    el('p', { id: 'episode-source', text: `${v.source.session} · ${v.source.file}, record ${v.source.index}` }),
    el('p', { text: `seed ${v.seed} · task ${v.task_id} · ${v.locale}` }),
    el('h3', { text: 'Viewer' }),
    ...v.history.map((h) => el('div', { class: 'viewer', text: `[${h.role}] ${h.content}` })),
    el('div', { class: 'viewer', id: 'viewer-message', text: `${v.viewer_id}: ${v.viewer_message}` }),
    section(
      'system',
      'System prompt',
      false,
      el('pre', { id: 'system-prompt', class: 'prompt', text: v.system_prompt ?? '(not recorded)' }),
    ),
    toolsSection(v),
    variantSection(v),
    answerKeySection(v.answer_key),
    rewardSection(v),
    el('h3', { text: 'Turns' }),
  ];
  if (v.rebuild_error) parts.push(el('p', { class: 'hook', text: `transcript not rebuilt: ${v.rebuild_error}` }));
  parts.push(...v.turns.map(turnBox));
  parts.push(el('h3', { text: 'Final reply' }), el('div', { class: 'reply', id: 'final-reply', text: v.final_reply ?? '(none)' }));
  pane.replaceChildren(...parts);
  pane.scrollTop = 0;
}

/** Select an episode, show it, and make the page's address its link. */
async function open(key, { reveal = false } = {}) {
  state.selected = key;
  for (const tr of document.querySelectorAll('#episodes tbody tr.selected')) tr.classList.remove('selected');
  const tr = state.trs.get(key);
  tr?.classList.add('selected');
  if (reveal) tr?.scrollIntoView({ block: 'center' });
  const row = state.rows[key];
  if (location.hash !== linkOf(row)) location.hash = linkOf(row);
  const ticket = ++state.opening;
  const res = await fetch(`/api/episodes/${key}`);
  const v = await res.json();
  if (ticket !== state.opening) return;
  drawDetail(v);
  // What the pane shows, as its link (the tests wait for it).
  document.body.dataset.shown = linkOf(row);
}

async function main() {
  const res = await fetch('/api/episodes');
  const data = await res.json();
  state.rows = data.episodes;
  state.path = data.path;
  for (const r of state.rows) state.trs.set(r.key, makeRow(r));
  document.getElementById('source').textContent =
    `${data.path} · ${data.episodes.length} episodes` + (data.warnings.length ? ` · ${data.warnings.length} warnings` : '');
  fillSelect('f-intent', uniq(state.rows.map((r) => r.intent)));
  fillSelect('f-family', uniq(state.rows.flatMap(families)));
  fillSelect('f-outcome', uniq(state.rows.map((r) => r.outcome)));
  fillSelect('f-hook', uniq(state.rows.flatMap((r) => r.hooks_violated)));
  // Redraw as the filters are edited; `change` then finds the rows already drawn and changes nothing.
  document.getElementById('filters').addEventListener('input', render);
  document.getElementById('filters').addEventListener('change', render);
  document.getElementById('filters').addEventListener('submit', (e) => e.preventDefault());
  document.querySelector('#episodes thead').addEventListener('click', (e) => {
    const th = e.target.closest('th[data-column]');
    if (th) sortBy(th.dataset.column);
  });
  document.querySelector('#episodes tbody').addEventListener('click', (e) => {
    const tr = e.target.closest('tr[data-key]');
    if (tr) open(Number(tr.dataset.key));
  });
  window.addEventListener('hashchange', followHash);
  drawHeader();
  render();
  followHash();
  document.body.dataset.ready = 'true';
}

main();
