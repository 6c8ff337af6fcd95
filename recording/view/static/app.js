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
  /** The second run's path when the viewer compares two (null otherwise); whether its view was drawn. */
  compare: null,
  compared: false,
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
  { id: 'episode', label: 'episode', text: (r) => r.episode_id, title: (r) => `${r.episode_id}: ${r.file}, record ${r.index}` },
  { id: 'run', label: 'run', text: (r) => r.session, title: (r) => `${r.file} (written by ${r.created_by})` },
  { id: 'policy', label: 'policy', text: (r) => r.policy },
  { id: 'profile', label: 'profile', text: (r) => r.profile },
  { id: 'intent', label: 'intent', text: (r) => r.intent },
  { id: 'variant', label: 'variant', text: variantText, title: variantText },
  { id: 'outcome', label: 'outcome', text: (r) => r.outcome },
  {
    id: 'reward',
    label: 'reward',
    text: (r) => r.reward.toFixed(3) + (r.caps.length ? ' ⊓' : ''),
    title: (r) => (r.caps.length ? r.caps.join('\n') : 'not capped'),
    value: (r) => r.reward,
  },
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

// One histogram (10 bins over [0, 1]) per reward component, plus the total; each bar has its count above it.
function chart(name, values) {
  const bins = new Array(10).fill(0);
  for (const v of values) bins[Math.min(9, Math.max(0, Math.floor(v * 10)))]++;
  const peak = Math.max(1, ...bins);
  const W = 160,
    H = 60,
    TOP = 11;
  const s = svg('svg', { width: W, height: TOP + H + 14, viewBox: `0 0 ${W} ${TOP + H + 14}`, role: 'img' });
  s.append(Object.assign(svg('title', {}), { textContent: `${name}: ${values.length} episodes` }));
  bins.forEach((n, i) => {
    const h = Math.round((n / peak) * H);
    const r = svg('rect', { class: 'bar', x: i * 16 + 1, y: TOP + H - h, width: 14, height: h, 'data-bin': i, 'data-count': n });
    r.append(Object.assign(svg('title', {}), { textContent: `[${(i / 10).toFixed(1)}, ${((i + 1) / 10).toFixed(1)}): ${n}` }));
    s.append(r);
    if (n > 0) {
      const t = svg('text', { class: 'count', x: i * 16 + 8, y: TOP + H - h - 2, 'text-anchor': 'middle', 'font-size': 9, 'data-bin': i });
      t.textContent = String(n);
      s.append(t);
    }
  });
  const axis = svg('text', { x: 0, y: TOP + H + 12, 'font-size': 10 });
  axis.textContent = '0';
  const axis2 = svg('text', { x: W - 8, y: TOP + H + 12, 'font-size': 10 });
  axis2.textContent = '1';
  s.append(axis, axis2);
  const mean = values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
  return el(
    'div',
    { class: 'chart', 'data-component': name },
    el('div', { class: 'title', text: `${name} (n ${values.length}, mean ${mean.toFixed(3)})` }),
    s,
  );
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
  const tr = el('tr', { 'data-key': String(r.key), 'data-uid': r.uid });
  for (const c of COLUMNS) {
    // The episode cell is the episode's link (keyboard, new tab, copy link address).
    // The episode cell is the episode's link and names its file and index: ids repeat across runs.
    const td =
      c.id === 'episode'
        ? el(
            'td',
            { 'data-column': c.id },
            el('a', { href: linkOf(r), text: c.text(r) }),
            el('span', { class: 'uid', text: ` ${r.file} #${r.index}` }),
          )
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
  const comparing = location.hash === '#/compare' && state.compare !== null;
  document.querySelector('main').hidden = comparing;
  document.getElementById('compare-pane').hidden = !comparing;
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('current', (a.getAttribute('href') === '#/compare') === comparing);
  if (comparing) {
    showCompare();
    return;
  }
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

// ---- two runs compared: #/compare --------------------------------------------------------------------

/** A signed difference: +0.1234, -0.0500; an em dash when a side has no value. */
function signed(d) {
  return d === null ? '—' : `${d < 0 ? '-' : '+'}${Math.abs(d).toFixed(4)}`;
}

function num(x) {
  return x === null ? '—' : x.toFixed(4);
}

/** A table of figures (a component, an intent or a family per row): n, A's mean, B's mean and Δ with a bar. */
function figureTable(id, label, figures) {
  const peak = Math.max(1e-9, ...figures.map((f) => Math.abs(f.delta ?? 0)));
  return el(
    'table',
    { id, class: 'figures' },
    el('thead', null, el('tr', null, ...[label, 'n', 'A', 'B', 'Δ (B − A)', ''].map((t) => el('th', { text: t })))),
    el(
      'tbody',
      null,
      ...figures.map((f) => {
        const bar = el('span', { class: `delta-bar ${(f.delta ?? 0) < 0 ? 'down' : 'up'}` });
        bar.style.width = `${((Math.abs(f.delta ?? 0) / peak) * 100).toFixed(1)}%`;
        return el(
          'tr',
          { 'data-name': f.name },
          el('td', { class: 'name', text: f.name }),
          el('td', { class: 'n', text: String(f.n) }),
          el('td', { class: 'a', text: num(f.a) }),
          el('td', { class: 'b', text: num(f.b) }),
          el('td', { class: 'delta', text: signed(f.delta) }),
          el('td', { class: 'bar-cell' }, bar),
        );
      }),
    ),
  );
}

/** Mean reward of A and B per group, as paired bars with their values above. */
function pairedChart(id, title, figures) {
  const G = 46,
    H = 90,
    TOP = 12,
    BOTTOM = 30;
  const W = Math.max(200, figures.length * G + 10);
  const s = svg('svg', { id, width: W, height: TOP + H + BOTTOM, viewBox: `0 0 ${W} ${TOP + H + BOTTOM}`, role: 'img' });
  s.append(Object.assign(svg('title', {}), { textContent: title }));
  figures.forEach((f, i) => {
    [
      ['a', f.a],
      ['b', f.b],
    ].forEach(([side, v], j) => {
      const h = Math.round((v ?? 0) * H);
      const x = 6 + i * G + j * 19;
      s.append(svg('rect', { class: `pair-bar ${side}`, x, y: TOP + H - h, width: 17, height: h, 'data-group': f.name, 'data-side': side }));
      const t = svg('text', { class: 'count', x: x + 8.5, y: TOP + H - h - 2, 'text-anchor': 'middle', 'font-size': 8, 'data-group': f.name, 'data-side': side });
      t.textContent = v === null ? '' : v.toFixed(2);
      s.append(t);
    });
    const label = svg('text', { x: 6 + i * G + 18, y: TOP + H + 12, 'text-anchor': 'middle', 'font-size': 9 });
    label.textContent = f.name.length > 9 ? f.name.slice(0, 8) + '…' : f.name;
    label.append(Object.assign(svg('title', {}), { textContent: `${f.name}: A ${num(f.a)}, B ${num(f.b)}, n ${f.n}` }));
    s.append(label);
  });
  return el('figure', { class: 'pair-chart' }, el('figcaption', { text: title }), s);
}

function movedRows(m, rank) {
  const link = `#/episode/${encodeURIComponent(m.a.file)}/${m.a.index}`;
  const head = el(
    'tr',
    { class: 'moved', 'data-rank': String(rank), 'data-uid': `${m.a.file}/${m.a.index}` },
    el('td', null, el('a', { href: link, text: m.episode_id }), el('span', { class: 'uid', text: ` ${m.a.file} #${m.a.index}` })),
    el('td', { text: String(m.seed) }),
    el('td', { text: m.intent }),
    el('td', { text: m.variant_id }),
    el('td', { class: 'a', text: m.a.reward.toFixed(4) }),
    el('td', { class: 'b', text: m.b.reward.toFixed(4) }),
    el('td', { class: 'delta', text: signed(m.delta) }),
  );
  const lines = [];
  for (const c of m.components) {
    if (c.delta === 0 && c.removed.length === 0 && c.added.length === 0) continue;
    lines.push(
      el(
        'div',
        { class: 'cdiff', 'data-component': c.name },
        el('strong', { text: `${c.name} ${num(c.a)} → ${num(c.b)} (${signed(c.delta)})` }),
        ...c.removed.map((x) => el('div', { class: 'removed', text: `− ${x}` })),
        ...c.added.map((x) => el('div', { class: 'added', text: `+ ${x}` })),
      ),
    );
  }
  const capsA = m.a.caps.join('; ');
  const capsB = m.b.caps.join('; ');
  if (capsA !== capsB) {
    lines.push(
      el(
        'div',
        { class: 'cdiff caps' },
        el('strong', { text: 'caps' }),
        el('div', { class: 'removed', text: `− ${capsA || '(none)'}` }),
        el('div', { class: 'added', text: `+ ${capsB || '(none)'}` }),
      ),
    );
  }
  if (m.a.outcome !== m.b.outcome) lines.push(el('div', { class: 'cdiff', text: `outcome ${m.a.outcome} → ${m.b.outcome}` }));
  const diff = el('tr', { class: 'diff' }, el('td', { colspan: '7' }, ...(lines.length ? lines : [el('span', { class: 'muted', text: 'no reason changed' })])));
  return [head, diff];
}

async function showCompare() {
  const pane = document.getElementById('compare-pane');
  if (state.compared) return;
  state.compared = true;
  const r = await (await fetch('/api/compare')).json();
  pane.replaceChildren(
    el('h2', { text: 'Two runs compared' }),
    el('p', { id: 'cmp-runs', text: `A ${r.a.path} (${r.a.episodes} episodes, profile ${r.a.profiles.join(', ')}) · B ${r.b.path} (${r.b.episodes} episodes, profile ${r.b.profiles.join(', ')})` }),
    el('p', { id: 'cmp-paired', text: `${r.paired} episodes paired by seed, variant and task; only in A: ${r.only_a}, only in B: ${r.only_b}` }),
    el('p', { id: 'cmp-reward', class: 'headline-top', text: `Reward mean A ${num(r.reward.a)} → B ${num(r.reward.b)} (Δ ${signed(r.reward.delta)})` }),
    el(
      'div',
      { class: 'cmp-grid' },
      el('div', null, el('h3', { text: 'Per component' }), figureTable('cmp-components', 'component', r.components)),
      el('div', null, el('h3', { text: 'Per intent' }), figureTable('cmp-intents', 'intent', r.intents)),
      el('div', null, el('h3', { text: 'Per variant family' }), figureTable('cmp-families', 'family', r.families)),
    ),
    el(
      'div',
      { class: 'cmp-charts' },
      pairedChart('cmp-chart-intent', 'Reward by intent (A left, B right)', r.intents),
      pairedChart('cmp-chart-family', 'Reward by variant family (A left, B right)', r.families),
    ),
    el('h3', { text: `The ${r.moved.length} episodes that moved most, with their reason diffs` }),
    el(
      'table',
      { id: 'cmp-moved' },
      el('thead', null, el('tr', null, ...['episode', 'seed', 'intent', 'variant', 'A', 'B', 'Δ'].map((t) => el('th', { text: t })))),
      el('tbody', null, ...r.moved.flatMap((m, i) => movedRows(m, i))),
    ),
  );
  document.body.dataset.compared = 'true';
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

/** The headline: the reward, the gates that capped it, and each component's weighted share of it. */
function headlineBox(h) {
  const capped = h.caps.length > 0;
  const shares = h.shares.filter((x) => x.share !== null && x.share > 0);
  return el(
    'div',
    { id: 'headline', class: capped ? 'capped' : '' },
    el(
      'p',
      { class: 'headline-top' },
      el('span', { id: 'headline-reward', text: `Reward ${h.reward.toFixed(4)}` }),
      el('span', { id: 'headline-cap-note', text: capped ? ` capped from ${h.weighted_mean.toFixed(4)}` : ' not capped' }),
      el('span', { id: 'headline-profile', class: 'muted', text: ` · profile ${h.profile}` }),
    ),
    capped ? el('ul', { id: 'headline-caps' }, ...h.caps.map((c) => el('li', { class: 'headline-cap', text: c }))) : null,
    // One bar: each component's share of the weighted mean, on a scale of 1.
    el(
      'div',
      { class: 'share-bar', title: `weighted mean ${h.weighted_mean.toFixed(4)} of 1` },
      ...shares.map((x, i) => {
        const seg = el('span', { class: `share-seg c${i % 6}`, title: `${x.name} ${x.share.toFixed(4)}` });
        seg.style.width = `${(x.share * 100).toFixed(2)}%`;
        return seg;
      }),
    ),
    el(
      'table',
      { id: 'shares' },
      el(
        'thead',
        null,
        el('tr', null, ...['component', 'value', 'weight', 'share of reward'].map((t) => el('th', { text: t }))),
      ),
      el(
        'tbody',
        null,
        ...h.shares.map((x, i) =>
          el(
            'tr',
            { 'data-component': x.name },
            el('td', null, el('span', { class: `swatch c${i % 6}` }), x.name),
            el('td', { class: 'value', text: x.value.toFixed(4) }),
            el('td', { class: 'weight', text: x.weight === null ? '—' : `${x.weight} / ${h.weight_sum}` }),
            el('td', { class: 'share', text: x.share === null ? '—' : x.share.toFixed(4) }),
          ),
        ),
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
    headlineBox(v.headline),
    el('p', { id: 'episode-meta', text: `policy ${v.source.policy} · written by ${v.source.created_by} · seed ${v.seed} · task ${v.task_id} · ${v.locale}` }),
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
  state.compare = data.compare;
  if (data.compare !== null) document.getElementById('nav').hidden = false;
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
