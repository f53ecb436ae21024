// The tierroute parameter dashboard: polls /api/v1/status every 2 s and redraws when the history's
// revision changes. Charts: uPlot, served from the jar's WebJar under vendor/uplot/.
'use strict';

const POLL_MS = 2000;
// window: the newest versions the table and timelines show (0: as many as one read gives, /versions' maxPerRead).
// The page re-reads them at every new snapshot, about once a second in a demo; the history grows ~5 KB a version.
const WINDOW = 300;
const state = { scope: null, revision: -1, charts: {}, scopes: [], pending: null, timer: null, active: null, window: WINDOW, writes: true };
window.tierrouteDashboard = state; // for the browser test and for curious operators

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...kids) => {
  const e = Object.assign(document.createElement(tag), props);
  kids.forEach((k) => e.append(k));
  return e;
};
const num = (v) => (typeof v === 'number' && isFinite(v) ? v : null);
const fmt = (v) => {
  if (typeof v !== 'number') return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 1e6 || a < 1e-3 ? v.toExponential(2) : v.toPrecision(4).replace(/\.?0+$/, '');
};
const time = (ms) => (ms ? new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '') : '—');
const enc = encodeURIComponent;

async function api(path, opts) {
  const r = await fetch(path, opts);
  let body;
  try { body = await r.json(); } catch (e) { body = { error: r.status + ' ' + r.statusText }; }
  return { ok: r.ok, status: r.status, body };
}

function say(text, ok) {
  const m = $('message');
  m.textContent = text;
  m.className = ok ? 'ok' : 'error';
}

async function poll() {
  try {
    const r = await api('api/v1/status');
    $('live').classList.toggle('stale', !r.ok || r.body.kafkaConnected === false);
    if (r.ok) {
      // A Kafka outage: the history stops at what was read (the reader says since when); said again when it is over.
      if (r.body.kafkaConnected === false) {
        say(r.body.lastError || 'no connection to Kafka', false);
        state.kafkaDown = true;
      } else if (state.kafkaDown) {
        say('Kafka answers again', true);
        state.kafkaDown = false;
      }
      state.scopes = r.body.scopes;
      state.writes = r.body.writesEnabled !== false;
      renderScopes(r.body);
      // The revision is taken only once every read of it succeeded: taken before, a failed read left the old figures
      // up until the next snapshot came (never, on a pinned or stalled scope).
      // A read that keeps failing is retried every 10 s, not at every poll (each retry re-reads every view).
      if (r.body.revision !== state.revision && state.scope && Date.now() >= (state.retryAt || 0)) {
        // null: the scope was switched while reading; nothing is stored, so the next poll reads the new scope.
        const shown = await refresh();
        if (shown) {
          state.revision = r.body.revision;
          state.retryAt = 0;
          document.body.dataset.revision = String(state.revision);
        } else if (shown === false) {
          state.retryAt = Date.now() + 10000;
        }
      }
      // Not over a Kafka error said above: a reader that never reached Kafka is not ready either. What keeps it from
      // being ready (a topic that does not exist yet) is said, not hidden behind a green "reading".
      if (!r.body.ready && r.body.kafkaConnected !== false) {
        if (r.body.lastError) say(r.body.lastError, false);
        else say('reading the snapshot history…', true);
        state.notReadySaid = true;
      } else if (r.body.ready && state.notReadySaid) {
        say('', true); // what kept it from being ready is over
        state.notReadySaid = false;
      }
    }
  } catch (e) {
    $('live').classList.add('stale');
  }
  state.timer = setTimeout(poll, POLL_MS);
}

function renderScopes(status) {
  const sel = $('scope');
  const names = status.scopes.map((s) => s.scope);
  if (!state.scope) {
    const wanted = new URLSearchParams(location.search).get('scope') || status.defaultScope;
    state.scope = names.includes(wanted) ? wanted : (names[0] || null);
  }
  if (sel.options.length !== names.length || names.some((n, i) => sel.options[i].value !== n)) {
    sel.replaceChildren(...names.map((n) => el('option', { value: n, textContent: n })));
  }
  if (state.scope) sel.value = state.scope;
  const s = status.scopes.find((x) => x.scope === state.scope);
  const st = $('scope-status');
  st.replaceChildren();
  if (s) {
    st.append(el('span', { className: 'badge active', textContent: 'active ' + (s.activeVersion ?? 'none') }));
    // An active version selectors cannot use (a record that never passed the job's gate): they serve another.
    if (s.activeVersion != null && s.servedVersion !== s.activeVersion) {
      st.append(el('span', { className: 'badge unusable', id: 'served-badge', textContent: s.servedVersion != null
        ? 'selectors serve ' + s.servedVersion + ': ' + s.activeVersion + ' cannot be used'
        : 'selectors keep the version they served: ' + s.activeVersion + ' cannot be used' }));
    }
    if (s.pinned) st.append(el('span', { className: 'badge pinned', textContent: 'pinned ' + s.pinnedVersion }));
    st.append(' ' + s.versions + ' versions, control sequence ' + s.controlSequence);
  }
  $('unpin-btn').disabled = !(s && s.pinned) || !state.writes;
  $('rollback-btn').disabled = !state.writes;
  // A dashboard without an operator token refuses every write (403): its buttons say so rather than ask for a token.
  for (const b of [$('unpin-btn'), $('rollback-btn')]) {
    b.title = state.writes ? '' : 'read-only: this dashboard was started without operator tokens';
  }
  state.active = s ? s.activeVersion : null;
}

// True when every view of the scope was read, false when a read failed, null when the scope was switched meanwhile:
// then nothing is drawn (the old scope's rows, whose Pin buttons would act on the new one, stay off the page).
async function refresh() {
  const scope = state.scope;
  const base = 'api/v1/scopes/' + enc(scope);
  const last = state.window > 0 ? '?last=' + state.window : '';
  const [v, t, rho, cal] = await Promise.all([
    api(base + '/versions' + last), api(base + '/timelines' + last), api(base + '/rho'), api(base + '/calibration')]);
  if (state.scope !== scope) return null;
  if (v.ok) renderVersions(v.body, scope);
  if (t.ok) renderTimelines(t.body);
  if (rho.ok) renderHeatmap(rho.body);
  if (cal.ok) renderCalibration(cal.body);
  // A read the API refused (a 500 included) is said, not passed over with the previous figures left standing.
  const failed = [v, t, rho, cal].find((r) => !r.ok);
  if (failed) {
    say(failed.body.error || 'the dashboard answered ' + failed.status, false);
    state.readFailed = true;
  } else if (state.readFailed) {
    say('', true);
    state.readFailed = false;
  }
  if (v.ok && state.detail == null && v.body.activeVersion != null) showDetail(v.body.activeVersion);
  return !failed;
}

function renderVersions(d, scope) {
  const rows = d.versions.map((r) => {
    const markers = el('td');
    if (r.active) markers.append(el('span', { className: 'badge active', textContent: 'active' }));
    if (r.pinned) markers.append(el('span', { className: 'badge pinned', textContent: 'pinned' }));
    if (r.served && !r.active) markers.append(el('span', { className: 'badge served', textContent: 'served' }));
    if (r.unusable) markers.append(el('span', { className: 'badge unusable', textContent: 'unusable', title: r.unusable }));
    const act = el('td');
    if (r.status === 'ACCEPTED' && !r.pinned && !r.unusable) { // the API refuses a pin of a version selectors cannot use
      act.append(el('button', { type: 'button', className: 'pin-btn', textContent: 'Pin', disabled: !state.writes,
        title: state.writes ? '' : 'read-only: this dashboard was started without operator tokens',
        onclick: (e) => { e.stopPropagation(); ask('pin', r.version, scope); } })); // the row's scope, not the selected one
    }
    const tr = el('tr', { onclick: () => showDetail(r.version, scope) },
      el('td', { className: 'num', textContent: r.version }), el('td', { textContent: time(r.createdAtMs) }),
      el('td', { textContent: r.producer }),
      el('td', {}, el('span', { className: 'badge ' + r.status, textContent: r.status })),
      markers, el('td', { className: 'reasons', textContent: r.rejectReasons
        .concat(r.unusable ? ['selectors cannot use it: ' + r.unusable] : []).join('; ') }), act);
    tr.dataset.version = r.version;
    tr.dataset.status = r.status;
    tr.dataset.active = r.active;
    tr.dataset.served = r.served;
    tr.dataset.unusable = r.unusable != null;
    tr.dataset.pinned = r.pinned;
    return tr;
  });
  $('versions').tBodies[0].replaceChildren(...rows);
  const shown = $('versions-window');
  shown.replaceChildren();
  if (d.activeVersion != null && !d.versions.some((r) => r.version === d.activeVersion)) {
    shown.append('the active version ' + d.activeVersion + ' is older than the newest ' + d.versions.length + ' shown; ');
  }
  // window 0: as many as one read gives (the API's maxPerRead): all of them unless the history is longer.
  if (d.total > d.versions.length || state.window === 0) {
    const widest = d.total <= d.maxPerRead ? 'show all' : 'show the newest ' + d.maxPerRead;
    shown.append((d.total === d.versions.length ? 'all ' + d.total + ' versions ' : 'newest ' + d.versions.length
      + ' of ' + d.total + ' versions (table and timelines) '), el('button', { type: 'button', id: 'versions-window-btn',
      textContent: state.window === 0 ? 'show the newest ' + WINDOW : widest,
      onclick: () => { state.window = state.window === 0 ? WINDOW : 0; state.revision = -1; } }));
  }
  $('controls').textContent = d.controls.length === 0 ? 'no pin / unpin yet' : 'last control: ' + d.controls.slice(0, 3)
    .map((c) => '#' + c.sequence + ' ' + c.action + ' ' + (c.version ?? '') + ' by ' + c.actor + ' (' + c.reason + ') ' +
      time(c.timestampMs)).join(' · ');
}

function markerPlugin(activeX, pinnedX) {
  const line = (u, x, color, dash) => {
    if (x == null) return;
    const cx = u.valToPos(x, 'x', true);
    const ctx = u.ctx;
    ctx.save();
    ctx.strokeStyle = color; ctx.lineWidth = 2; ctx.setLineDash(dash);
    ctx.beginPath(); ctx.moveTo(cx, u.bbox.top); ctx.lineTo(cx, u.bbox.top + u.bbox.height); ctx.stroke();
    ctx.restore();
  };
  return { hooks: { draw: [(u) => { line(u, activeX, '#2e7d32', []); line(u, pinnedX, '#ef6c00', [6, 4]); }] } };
}

function renderTimelines(d) {
  const box = $('timelines');
  Object.values(state.charts).forEach((c) => c.destroy());
  state.charts = {};
  box.replaceChildren();
  for (const [name, p] of Object.entries(d.params)) {
    const pts = p.points;
    const xs = pts.map((q) => q.createdAtMs / 1000);
    const accepted = pts.map((q) => (q.status === 'ACCEPTED' ? num(q.value) : null));
    const rejected = pts.map((q) => (q.status !== 'ACCEPTED' ? num(q.value) : null));
    const xOf = (v) => { const q = pts.find((x) => x.version === v); return q ? q.createdAtMs / 1000 : null; };
    const legend = (u, v, si, i) => {
      if (i == null || v == null) return '—';
      const q = pts[i];
      return fmt(v) + ' v' + q.version + ' (n=' + q.samples + ', ' + q.qualityKind + ' ' + fmt(q.quality) + ')';
    };
    const holder = el('div', { id: 'chart-' + name });
    holder.dataset.points = String(pts.length);
    box.append(el('div', { className: 'card' }, el('h3', { textContent: name + (p.unit ? ' [' + p.unit + ']' : '') }), holder));
    const opts = {
      width: 380, height: 170, legend: { live: true },
      scales: { x: { time: true } },
      series: [{ value: (u, v) => (v == null ? '—' : time(v * 1000)) },
        { label: 'accepted', stroke: '#1565c0', width: 1.5, points: { show: true, size: 6 }, spanGaps: true, value: legend },
        { label: 'rejected', stroke: '#c62828', width: 0, points: { show: true, size: 8, fill: '#c62828' }, value: legend }],
      axes: [{}, { size: 84, values: (u, vals) => vals.map(fmt) }],
      plugins: [markerPlugin(xOf(d.activeVersion), xOf(d.pinnedVersion))],
    };
    state.charts[name] = new uPlot(opts, [xs, accepted, rejected], holder);
  }
}

function heat(v) {
  const t = Math.max(0, Math.min(1, v));
  return 'hsl(' + Math.round(120 * (1 - t)) + ', 70%, ' + Math.round(85 - 30 * t) + '%)';
}

// The newest snapshot held in full is shown; when no selector serves it (rejected, another version active, or one
// they cannot use), say so.
function servedNote(d) {
  if (d.version == null || d.version === d.servedVersion) return '';
  return ' (' + (d.status && d.status !== 'ACCEPTED' ? d.status.toLowerCase() + ', ' : '') + 'not served: '
    + (d.servedVersion != null ? 'selectors serve version ' + d.servedVersion
      : d.activeVersion != null ? 'the active version ' + d.activeVersion + ' cannot be used' : 'no version is active')
    + ')';
}

function renderHeatmap(d) {
  $('rho-version').textContent = d.version == null ? 'no snapshot yet'
    : 'latest snapshot: version ' + d.version + servedNote(d);
  const t = $('heatmap');
  const byKey = new Map(d.cells.map((c) => [c.worker + '\u0000' + c.tier, c]));
  const head = el('tr', {}, el('th', { textContent: 'worker' }), ...d.tiers.map((x) => el('th', { textContent: x })));
  const rows = d.workers.map((w) => el('tr', {}, el('th', { textContent: w }), ...d.tiers.map((tier) => {
    const c = byKey.get(w + '\u0000' + tier);
    if (!c) return el('td', { className: 'cell', textContent: '·', title: 'no value (0)' });
    const td = el('td', { className: 'cell', textContent: fmt(num(c.rho) ?? c.rho),
      title: w + ' ' + tier + ': ρ=' + c.rho
        + (c.referenceBytesPerSecond ? ' of ' + fmt(c.referenceBytesPerSecond / 1e9) + ' GB/s (its fastest rate seen)' : '')
        + ' (n=' + c.samples + ', ' + c.qualityKind + ' ' + fmt(c.quality) + ')' });
    td.style.background = heat(num(c.rho) ?? 1);
    return td;
  })));
  t.replaceChildren(el('thead', {}, head), el('tbody', {}, ...rows));
  t.dataset.cells = String(d.cells.length);
}

function renderCalibration(d) {
  $('calibration-version').textContent = d.version == null ? '' : 'version ' + d.version + servedNote(d);
  $('calibration-note').textContent = d.present ? d.coverageNote : ''; // without a forest: the message alone
  const box = $('calibration');
  const chart = $('calibration-chart');
  if (state.charts.__calibration) { state.charts.__calibration.destroy(); delete state.charts.__calibration; }
  chart.replaceChildren();
  chart.dataset.points = '0';
  if (!d.present) { box.textContent = d.message; return; }
  const cov = d.coverage;
  const shape = el('table', { id: 'forest-shape' }, el('tbody', {},
    ...[['target', d.target], ['published in version', d.modelVersion], ['training rows', d.trainingRows], ['trees', d.trees], ['leaves', d.leaves],
      ['samples per leaf ≤', d.maxSamplesPerLeaf], ['features', d.features.join(', ')],
      ...(d.targetQuantilesProblem ? [['leaf samples', 'malformed: ' + d.targetQuantilesProblem]] : [])]
      .map(([k, v]) => el('tr', {}, el('th', { textContent: k }), el('td', { textContent: v })))));
  const table = el('table', { id: 'coverage-table' },
    el('thead', {}, el('tr', {}, ...['quantile', 'coverage', 'held-out rows'].map((h) => el('th', { textContent: h })))),
    el('tbody', {}, ...cov.map((c) => {
      const tr = el('tr', {}, el('td', { className: 'num', textContent: c.q.toFixed(2) }),
        el('td', { className: 'num', textContent: c.coverage.toFixed(3) }),
        el('td', { className: 'num', textContent: c.rows }));
      tr.dataset.q = String(c.q);
      return tr;
    })));
  box.replaceChildren(table, shape);
  if (!cov.length) return;
  chart.dataset.points = String(cov.length);
  state.charts.__calibration = new uPlot({
    width: 380, height: 200, scales: { x: { time: false, range: [0, 1] }, y: { range: [0, 1] } },
    series: [{ label: 'nominal quantile' },
      { label: 'coverage (held out)', stroke: '#6a1b9a', points: { show: true, size: 6 } },
      { label: 'ideal', stroke: '#9e9e9e', dash: [4, 4], points: { show: false } }],
    axes: [{ values: (u, v) => v.map((x) => x.toFixed(2)) }, { size: 50, values: (u, v) => v.map((x) => x.toFixed(2)) }],
  }, [cov.map((c) => c.q), cov.map((c) => c.coverage), cov.map((c) => c.q)], chart);
}

async function showDetail(version, scope = state.scope) {
  state.detail = version;
  const r = await api('api/v1/scopes/' + enc(scope) + '/versions/' + version);
  if (state.scope !== scope) return; // switched meanwhile: not the selected scope's version
  if (!r.ok) { say(r.body.error, false); return; }
  const d = r.body;
  $('detail-version').textContent = 'version ' + d.version + ' · ' + d.status + (d.rejectReasons.length ? ' · ' +
    d.rejectReasons.join('; ') : '') + (d.unusable ? ' · selectors cannot use it: ' + d.unusable : '') + ' · parent ' + (d.parentVersion ?? '—') + ' · ' + d.producer;
  $('detail').tBodies[0].replaceChildren(...Object.entries(d.params).map(([n, p]) => el('tr', {},
    el('td', { textContent: n }), el('td', { className: 'num', textContent: fmt(p.value) }), el('td', { textContent: p.unit }),
    el('td', { className: 'num', textContent: p.samples }),
    el('td', { textContent: p.qualityKind === 'NONE' ? '—' : p.qualityKind + ' ' + fmt(p.quality) }),
    el('td', { className: 'num', textContent: p.stdError == null ? '—' : fmt(p.stdError) }),
    el('td', { textContent: time(p.windowStartMs) + ' → ' + time(p.windowEndMs) }))));
}

function ask(action, version, scope = state.scope) {
  // A rollback names the version it rolls back from: if another operator moved the scope meanwhile, it is refused.
  state.pending = { action, version, from: state.active, scope };
  const what = action === 'pin' ? 'Pin version ' + version + ' of scope "' + scope + '"'
    : action === 'rollback' ? 'Roll scope "' + scope + '" back from version ' + state.active
      + ' to the accepted version before it'
      : 'Unpin scope "' + scope + '"';
  $('confirm-title').textContent = action === 'pin' ? 'Pin' : action === 'rollback' ? 'Roll back' : 'Unpin';
  $('confirm-text').textContent = what + '. This changes what every selector serves.';
  $('reason').value = ''; // the last action's reason is no reason for this one
  $('confirm-dialog').showModal();
}

async function confirmAction() {
  const p = state.pending;
  const token = $('token').value.trim();
  $('confirm-dialog').close();
  // No actor: the server records the operator the token belongs to (a body cannot choose the audit name).
  const body = { reason: $('reason').value };
  if (p.action === 'pin') body.version = p.version;
  if (p.action === 'rollback' && p.from != null) body.from = p.from;
  const headers = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = 'Bearer ' + token;
  const r = await api('api/v1/scopes/' + enc(p.scope) + '/' + p.action, { method: 'POST', headers, body: JSON.stringify(body) });
  if (r.status === 202) {
    // Committed but not read back in time (written: true), or a commit the broker did not confirm (written: null):
    // it stands, or may, so the page must not read as "refused, retry".
    say(p.action + (r.body.written ? ' written, not yet confirmed' : ' sent, not confirmed (it may have been written)')
      + ' (control sequence ' + r.body.sequence + '): ' + r.body.message, false);
  } else if (r.ok) {
    say(p.action + ' done: ' + r.body.action + (r.body.version != null ? ' version ' + r.body.version : '') +
      ' by ' + r.body.actor + ' (control sequence ' + r.body.sequence + ')', true);
  } else {
    say('refused (' + r.status + '): ' + r.body.error, false);
  }
  state.revision = -1; // redraw at the next poll
  state.retryAt = 0;
}

document.addEventListener('DOMContentLoaded', () => {
  $('scope').addEventListener('change', (e) => {
    state.scope = e.target.value; state.revision = -1; state.retryAt = 0; state.detail = null;
  });
  $('rollback-btn').addEventListener('click', () => ask('rollback'));
  $('unpin-btn').addEventListener('click', () => ask('unpin'));
  $('cancel').addEventListener('click', () => $('confirm-dialog').close());
  $('confirm').addEventListener('click', confirmAction);
  poll();
});
