// harness-gym record viewer: plain DOM, no framework, no build step. Text goes in with textContent only.
'use strict';

const state = { rows: [], selected: null };

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

function filtered() {
  const f = (id) => document.getElementById(id).value;
  const min = Number(f('f-min')),
    max = Number(f('f-max'));
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

function render() {
  const rows = filtered();
  document.getElementById('count').textContent = `${rows.length} of ${state.rows.length} episodes`;
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
  const body = document.querySelector('#episodes tbody');
  body.replaceChildren(
    ...rows.map((r) => {
      const tr = el(
        'tr',
        { 'data-key': String(r.key) },
        el('td', { text: r.episode_id }),
        el('td', { text: r.intent }),
        el('td', { text: `${r.variant_label} ${r.variant_id}` }),
        el('td', { text: r.outcome }),
        el('td', { text: r.reward.toFixed(3) }),
        el('td', { text: String(r.turns) }),
        el('td', { text: r.hooks_violated.join(', ') }),
      );
      if (state.selected === r.key) tr.classList.add('selected');
      tr.addEventListener('click', () => open(r.key));
      return tr;
    }),
  );
}

async function open(key) {
  state.selected = key;
  for (const tr of document.querySelectorAll('#episodes tbody tr')) tr.classList.toggle('selected', tr.dataset.key === String(key));
  const res = await fetch(`/api/episodes/${key}`);
  const v = await res.json();
  const pane = document.getElementById('detail-pane');
  const parts = [
    el('h2', { id: 'episode-title', text: `${v.episode_id} · ${v.intent} · ${v.outcome}` }),
    el('p', { text: `seed ${v.seed} · task ${v.task_id} · ${v.locale}` }),
    el('h3', { text: 'Viewer' }),
    ...v.history.map((h) => el('div', { class: 'viewer', text: `[${h.role}] ${h.content}` })),
    el('div', { class: 'viewer', id: 'viewer-message', text: `${v.viewer_id}: ${v.viewer_message}` }),
    el('h3', { text: 'Harness' }),
    el('p', {
      text: `variant ${v.variant.id} (${v.variant.label}${v.variant.families.length ? ': ' + v.variant.families.join(', ') : ''}); applied: ${v.variant.applied.join(', ') || 'none'}`,
    }),
    el('p', {
      text:
        'tools: ' +
        v.tools
          .map((t) =>
            t.canonical === null ? `${t.surface} (decoy)` : t.canonical === t.surface ? t.surface : `${t.surface} = ${t.canonical}`,
          )
          .join(', '),
    }),
    el('p', {
      text:
        'skills: ' +
        v.skills
          .map((t) =>
            t.canonical === null ? `${t.surface} (decoy)` : t.canonical === t.surface ? t.surface : `${t.surface} = ${t.canonical}`,
          )
          .join(', '),
    }),
    el('h3', { text: 'Turns' }),
  ];
  if (v.rebuild_error) parts.push(el('p', { class: 'hook', text: `transcript not rebuilt: ${v.rebuild_error}` }));
  for (const t of v.turns) {
    const box = el('div', { class: 'turn' }, el('strong', { text: `turn ${t.index} (${t.kind})` }));
    if (t.thinking) box.append(el('div', { class: 'thinking', text: t.thinking }));
    if (t.content) box.append(el('div', { class: t.calls.length ? '' : 'reply', text: t.content }));
    for (const c of t.calls) {
      const names = c.surface_name === c.canonical_name ? c.canonical_name : `${c.surface_name} → ${c.canonical_name}`;
      box.append(
        el('div', {
          class: 'call',
          text: `${names}(${c.surface_arguments ?? ''})\ncanonical: ${JSON.stringify(c.canonical_arguments)}\n${c.ok ? 'result' : 'error ' + c.error}: ${c.result ?? ''}`,
        }),
      );
    }
    for (const h of t.hook_violations) box.append(el('div', { class: 'hook', text: `hook ${h.hook} ${h.code}: ${h.message}` }));
    if (t.hook_feedback) box.append(el('div', { class: 'hook', text: `feedback: ${t.hook_feedback}` }));
    parts.push(box);
  }
  parts.push(el('h3', { text: 'Final reply' }), el('div', { class: 'reply', id: 'final-reply', text: v.final_reply ?? '(none)' }));
  parts.push(el('h3', { id: 'reward-total', text: `Reward ${v.reward.total.toFixed(4)} (profile ${v.reward.profile})` }));
  for (const c of v.reward.components) {
    parts.push(
      el(
        'div',
        { class: 'component', 'data-component': c.name },
        el('strong', { text: `${c.name}: ${c.value.toFixed(4)} (weight ${c.weight ?? '-'})${c.failed ? ' FAILED' : ''}` }),
        el('ul', null, ...c.reasons.map((r) => el('li', { text: r }))),
      ),
    );
  }
  pane.replaceChildren(...parts);
}

async function main() {
  const res = await fetch('/api/episodes');
  const data = await res.json();
  state.rows = data.episodes;
  document.getElementById('source').textContent =
    `${data.path} · ${data.episodes.length} episodes` + (data.warnings.length ? ` · ${data.warnings.length} warnings` : '');
  fillSelect('f-intent', uniq(state.rows.map((r) => r.intent)));
  fillSelect('f-family', uniq(state.rows.flatMap(families)));
  fillSelect('f-outcome', uniq(state.rows.map((r) => r.outcome)));
  fillSelect('f-hook', uniq(state.rows.flatMap((r) => r.hooks_violated)));
  document.getElementById('filters').addEventListener('input', render);
  document.getElementById('filters').addEventListener('change', render);
  render();
  document.body.dataset.ready = 'true';
}

main();
