// middlebench dashboard: draws the State the Go side sends over
// server-sent events (live), or the one inlined in a saved report.
(function () {
  'use strict';
  var COLORS = ['#9e9e9e', '#ff9800', '#9c27b0', '#03a9f4', '#e53935', '#43a047'];
  var state = window.MB_DATA;
  var report = !!state;
  var phasesPlot = null, ratesPlot = null;
  var $ = function (id) { return document.getElementById(id); };

  function fmt(v, digits) {
    if (v === null || v === undefined || isNaN(v)) { return '–'; }
    return Number(v).toFixed(digits === undefined ? 1 : digits);
  }

  function width() { return Math.max(400, document.body.clientWidth - 60); }

  // The stacked series hold running sums (blocked, blocked+connecting, …);
  // the legend shows each phase's own value.
  function phaseData(points) {
    var xs = [], stacks = [], server = [], apm = [];
    for (var i = 0; i < state.phaseNames.length; i++) { stacks.push([]); }
    points.forEach(function (p) {
      xs.push(p.t);
      var sum = 0;
      for (var i = 0; i < state.phaseNames.length; i++) {
        sum += (p.phases && p.requests > 0) ? p.phases[i] : 0;
        stacks[i].push(p.requests > 0 ? sum : null);
      }
      server.push(p.server === null || p.server === undefined ? null : p.server);
      apm.push(p.apm === null || p.apm === undefined ? null : p.apm);
    });
    // Drawn top first, so that each lower band paints over the one above.
    return [xs].concat(stacks.slice().reverse(), [server, apm]);
  }

  function rateData(points) {
    var xs = [], rps = [], failed = [], apm = [];
    points.forEach(function (p) {
      xs.push(p.t);
      rps.push(state.hasLoad ? p.rps : null);
      var dt = p.requests > 0 && p.rps > 0 ? p.requests / p.rps : 1;
      failed.push(state.hasLoad ? p.failed / dt : null);
      apm.push(p.apmRps === undefined ? null : p.apmRps);
    });
    return [xs, rps, failed, apm];
  }

  function ownValue(idx) {
    return function (u, v, si, i) {
      if (i === null || i === undefined) { return '–'; }
      var p = state.points[i];
      return p && p.requests > 0 ? fmt(p.phases[idx], 2) : '–';
    };
  }

  // A legend value, "–" where the second has none (uPlot leaves it blank).
  function orDash(digits) {
    return function (u, v) { return fmt(v, digits); };
  }

  function makeCharts() {
    var n = state.phaseNames.length;
    var series = [{ label: 's' }];
    for (var k = n - 1; k >= 0; k--) {
      series.push({ label: state.phaseNames[k], stroke: COLORS[k], fill: COLORS[k] + 'cc', width: 1, value: ownValue(k) });
    }
    series.push({ label: 'server_time (Server-Timing)', stroke: '#000', width: 2, dash: [6, 4], value: orDash(2) });
    series.push({ label: "server's own (APM)", stroke: '#795548', width: 2, value: orDash(2) });
    phasesPlot = new uPlot({
      width: width(), height: 300, series: series,
      axes: [{ label: 'seconds' }, { label: 'ms per request' }],
      scales: { x: { time: false } },
      hooks: { draw: [function (u) { document.body.dataset.drawnSeconds = String(u.data[0].length); }],
        setCursor: [showLast] },
    }, phaseData(state.points), $('phases'));
    ratesPlot = new uPlot({
      width: width(), height: 200,
      series: [{ label: 's' },
        { label: 'requests/s', stroke: '#1e88e5', width: 2, value: orDash(1) },
        { label: 'failed/s', stroke: '#e53935', width: 2, value: orDash(1) },
        { label: 'server requests/s (APM)', stroke: '#795548', width: 1, dash: [4, 3], value: orDash(1) }],
      axes: [{ label: 'seconds' }, { label: 'per second' }],
      scales: { x: { time: false } },
      hooks: { setCursor: [showLast] },
    }, rateData(state.points), $('rates'));
  }

  // Without a pointer over the chart, the legend shows the last second
  // drawn (uPlot shows "--" until hovered otherwise).
  function showLast(u) {
    var n = u.data[0].length;
    if ((u.cursor.idx === null || u.cursor.idx === undefined) && n > 0) { u.setLegend({ idx: n - 1 }); }
  }

  function rows(tbody, list) {
    tbody.innerHTML = '';
    list.forEach(function (cells) {
      var tr = document.createElement('tr');
      if (cells.attr) { tr.setAttribute(cells.attr[0], cells.attr[1]); }
      cells.cols.forEach(function (c, i) {
        var td = document.createElement('td');
        td.textContent = c;
        if (i > 0) { td.className = 'n'; }
        tr.appendChild(td);
      });
      tbody.appendChild(tr);
    });
  }

  function apmAvg(t) {
    var st = t.apm && t.apm.server_time;
    return st && st.count > 0 ? st.avg : null;
  }

  function renderNumbers() {
    var t = state.totals || {};
    var last = state.points.length ? state.points[state.points.length - 1] : null;
    // Without the engine on this page (a mystery, a server), the requests
    // are the server's count.
    var fromServer = !state.hasLoad && t.apm;
    $('requests').textContent = fromServer ? t.apm.requests : (state.hasLoad ? (t.requests || 0) : '–');
    $('requestslabel').textContent = fromServer ? "requests (the server's count)" : 'requests';
    // The engine's own figures exist only where the engine runs.
    $('failed').textContent = state.hasLoad ? (t.failed || 0) : '–';
    $('rps').textContent = !state.hasLoad && !fromServer ? '–' : (last ? fmt(fromServer ? last.apmRps : last.rps, 0) : '0');
    $('duration').textContent = state.hasLoad ? fmt(t.durationAvg, 2) : '–';
    $('statuses').parentNode.hidden = !state.hasLoad;
    $('phasetable').parentNode.hidden = !state.hasLoad;
    $('server').textContent = fmt(t.serverAvg, 2);
    $('apm').textContent = fmt(apmAvg(t), 2);
    $('seconds').textContent = state.points.filter(function (p) { return p.requests > 0 || p.apmRps > 0; }).length;
    $('secondslabel').textContent = state.tail ? 'seconds drawn (the last ' + fmt(state.tail, 2) + ' s: in the totals, not drawn)' : 'seconds drawn';
    renderPhaseHelp(t, last);
    renderServer(t);
    var codes = Object.keys(t.status || {}).sort();
    rows($('statuses').tBodies[0], codes.map(function (c) {
      return { attr: ['data-status', c], cols: [c === '0' ? '0 (no response)' : c, t.status[c]] };
    }));
    rows($('phasetable').tBodies[0], state.phaseNames.map(function (name, i) {
      return { attr: ['data-phase', name], cols: [name, fmt(t.phaseAvg ? t.phaseAvg[i] : null, 2)] };
    }).concat([{ cols: ['duration', fmt(t.durationAvg, 2)] }, { cols: ['server_time', fmt(t.serverAvg, 2)] }]));
  }

  // One line per quantity the chart draws: its colour, its value in the
  // last second and over the run, and what it is.
  function renderPhaseHelp(t, last) {
    var help = state.phaseHelp || {};
    var lastOK = last && last.requests > 0;
    var list = state.phaseNames.map(function (name, i) {
      return { color: COLORS[i], name: name, last: lastOK ? last.phases[i] : null, run: t.phaseAvg ? t.phaseAvg[i] : null };
    });
    var outLast = lastOK && last.server !== null && last.server !== undefined ? last.phases[4] - last.server : null;
    var outRun = t.phaseAvg && t.serverAvg !== null && t.serverAvg !== undefined ? t.phaseAvg[4] - t.serverAvg : null;
    list.push({ color: '#000', name: 'server_time', last: last ? last.server : null, run: t.serverAvg });
    list.push({ color: '#fff', name: 'outside', last: outLast, run: outRun });
    list.push({ color: '#795548', name: 'apm', last: last ? last.apm : null, run: apmAvg(t) });
    var tbody = $('phasehelp').tBodies[0];
    tbody.innerHTML = '';
    list.forEach(function (q) {
      var tr = document.createElement('tr');
      tr.dataset.quantity = q.name;
      var sw = document.createElement('td');
      var span = document.createElement('span');
      span.className = 'swatch';
      span.style.background = q.color;
      span.style.border = '1px solid #999';
      sw.appendChild(span);
      tr.appendChild(sw);
      [q.name === 'apm' ? "server's own (APM)" : q.name, fmt(q.last, 2), fmt(q.run, 2), help[q.name] || ''].forEach(function (c, i) {
        var td = document.createElement('td');
        td.textContent = c;
        if (i === 1 || i === 2) { td.className = 'n'; }
        tr.appendChild(td);
      });
      tbody.appendChild(tr);
    });
  }

  function renderServer(t) {
    var v = t.apm;
    $('serverbox').hidden = !v;
    if (!v) { return; }
    var st = v.server_time || {}, q = v.queue_time || {};
    var codes = Object.keys(v.statuses || {}).sort().map(function (c) { return c + ': ' + v.statuses[c]; }).join(', ');
    rows($('serverview').tBodies[0], [
      { attr: ['data-row', 'requests'], cols: ['requests', v.requests] },
      { cols: ['in flight', v.inFlight] },
      { cols: ['statuses', codes || '–'] },
      { cols: ['server_time avg / p95 / max (ms)', st.count > 0 ? fmt(st.avg, 2) + ' / ' + fmt(st['p(95)'], 2) + ' / ' + fmt(st.max, 2) : '–'] },
      { cols: ['queue avg (ms, waiting for a worker)', q.count > 0 ? fmt(q.avg, 2) : '–'] },
      { cols: ['workers', v.workers || 'unlimited'] },
    ]);
  }

  function renderStages() {
    var boxes = state.stages && state.stages.boxes;
    $('stagebox').hidden = !boxes;
    if (!boxes) { return; }
    var list = [];
    boxes.forEach(function (b) {
      (b.stages || []).forEach(function (s) {
        var rej = 0;
        Object.keys(s.rejected || {}).forEach(function (k) { rej += s.rejected[k]; });
        var extra = Object.keys(s.extra || {}).sort().map(function (k) { return k + ' ' + s.extra[k]; }).join(', ');
        list.push({ cols: [b.name, s.kind, s.seen, s.passed, rej, s.delay ? fmt(s.delay.avg, 2) : '–', extra || '–'] });
      });
    });
    rows($('stages').tBodies[0], list);
  }

  function renderFindings() {
    var ol = $('findings');
    ol.innerHTML = '';
    $('findingbox').hidden = !state.hasLoad;
    $('findingtitle').textContent = state.final ? 'Findings (the analyzer, on the whole run)' :
      'Findings (provisional, from the averages so far; the analyzer\u2019s own at the end)';
    (state.findings || []).forEach(function (f) {
      var li = document.createElement('li');
      var code = document.createElement('code');
      code.textContent = f.code;
      li.appendChild(code);
      li.appendChild(document.createTextNode(' (' + f.severity + ', explains ' + fmt(f.explains_ms, 1) + ' ms) ' + f.summary));
      ol.appendChild(li);
    });
  }

  function render() {
    state.points = state.points || [];
    window.mbState = state; // for the curious (and the browser test)
    $('title').textContent = state.title;
    var badge = $('status');
    badge.textContent = state.final ? (report ? 'report' : 'run ended — save the report') : 'live';
    badge.className = 'badge ' + (state.final ? 'final' : 'live');
    $('save').hidden = report;
    renderNumbers();
    renderStages();
    renderFindings();
    $('formbox').hidden = !state.form || report;
    renderCodePick();
    $('answers').textContent = state.form ? state.answers + ' answer(s) kept so far (revisions included)' : '';
    if (!phasesPlot) { makeCharts(); } else {
      phasesPlot.setData(phaseData(state.points));
      ratesPlot.setData(rateData(state.points));
    }
    showLast(phasesPlot);
    showLast(ratesPlot);
  }

  function connect() {
    var es = new EventSource('events');
    es.addEventListener('state', function (e) { state = JSON.parse(e.data); render(); });
    es.addEventListener('final', function (e) { state = JSON.parse(e.data); render(); });
    es.addEventListener('point', function (e) {
      var m = JSON.parse(e.data);
      state.points = state.points || [];
      state.points.push(m.point);
      state.totals = m.totals;
      state.stages = m.stages;
      state.findings = m.findings;
      state.answers = m.answers;
      render();
    });
    es.onerror = function () { $('status').textContent = state && state.final ? 'run ended' : 'reconnecting…'; };
  }

  // The form's pick-list: one box per finding code (built once).
  function renderCodePick() {
    var box = $('codepick');
    if (!state.form || box.dataset.built) { return; }
    box.dataset.built = '1';
    (state.codes || []).forEach(function (c) {
      var label = document.createElement('label');
      var input = document.createElement('input');
      input.type = 'checkbox';
      input.value = c;
      label.appendChild(input);
      label.appendChild(document.createTextNode(' ' + c));
      box.appendChild(label);
    });
  }

  var form = $('answer');
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var body = new URLSearchParams(new FormData(form));
    var picked = [].slice.call(document.querySelectorAll('#codepick input:checked')).map(function (i) { return i.value; });
    if (!picked.length) { $('answerstatus').textContent = 'tick at least one code'; return; }
    body.set('codes', picked.join(','));
    // A token is one name's in one mystery (the page's title names it).
    var who = 'mb-token:' + state.title + ':' + (body.get('name') || '').trim().toLowerCase();
    var saved = window.localStorage ? localStorage.getItem(who) : null;
    if (saved) { body.set('token', saved); }
    fetch('answer', { method: 'POST', body: body }).then(function (r) { return r.text(); })
      .then(function (t) {
        var m = /^token: (\S+)/m.exec(t);
        if (m && window.localStorage) { localStorage.setItem(who, m[1]); }
        $('answerstatus').textContent = t.split('\n')[0];
      });
  });
  window.addEventListener('resize', function () {
    if (phasesPlot) { phasesPlot.setSize({ width: width(), height: 300 }); ratesPlot.setSize({ width: width(), height: 200 }); }
  });
  if (report) { render(); } else { connect(); }
})();
