// Times the dashboard of a 100,000-position journal in headless Chromium:
// from the navigation's start to the statistics tiles and the equity curve's
// canvas laid out and painted. The stack is the end-to-end tests' (stack.mjs:
// PostgreSQL, bin/local, nginx from web/docker/start.sh serving web/dist);
// the journal is journaltest.Seed's (infra/bench/seedjournal), converted into
// USD with two exchange rates. Not a test: a measurement, run by
//
//   make bench-web            (or: node web/e2e/bench-dashboard.mjs [positions] [runs] [--profile])
//
// It prints each run and the median; docs/performance.md keeps the figures.
// --profile samples the page's JavaScript during one more load and prints
// the functions that took the most time.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { artifacts, launchBrowser, repo, startStack } from './stack.mjs';

const args = process.argv.slice(2).filter((a) => a !== '--profile');
const profile = process.argv.includes('--profile');
const positions = Number(args[0] ?? 100_000);
const runs = Number(args[1] ?? 7);
const email = `bench-${Date.now()}@example.com`;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Resolves with performance.now() at the first animation frame in which the
 * tiles and the chart's canvas are laid out (checked every frame: uPlot
 * sizes its canvas after inserting it, with no further DOM mutation).
 */
function markReady() {
  window.__dashboardReady = new Promise((resolve) => {
    // Layout is forced only once both exist: the probe must not add layouts of its own.
    const frame = (now) => {
      const tiles = document.querySelector('[aria-label="Statistics"]');
      const chart = document.querySelector('.chart canvas');
      if (tiles && chart && tiles.getBoundingClientRect().height > 0 && chart.getBoundingClientRect().height > 0) resolve(now);
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
}

const stack = await startStack();
let browser;
try {
  const post = async (pathname, body, cookie) => {
    const res = await fetch(stack.url + pathname, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`POST ${pathname}: ${res.status} ${await res.text()}`);
    return res;
  };
  const registered = await post('/api/auth/register', { email, password: 'benchmark password' });
  const session = registered.headers.get('set-cookie').split(';')[0];

  for (const [base, rate] of [
    ['EUR', '1.0850'],
    ['GBP', '1.2700'],
  ]) {
    await post('/api/exchange-rates', { baseCurrency: base, quoteCurrency: 'USD', effectiveDate: '2020-01-01', rate }, session);
  }


  const seedStart = Date.now();
  const seeded = execFileSync('go', ['run', './infra/bench/seedjournal', '-database', stack.db.url, '-email', email, '-positions', String(positions)], {
    cwd: repo,
    encoding: 'utf8',
  });
  console.log(`${seeded.trim()} (with go run: ${((Date.now() - seedStart) / 1000).toFixed(1)} s)`);
  browser = await launchBrowser();
  const [name, value] = [session.slice(0, session.indexOf('=')), session.slice(session.indexOf('=') + 1)];
  const context = await browser.newContext({ baseURL: stack.url, viewport: { width: 1280, height: 900 } });
  await context.addCookies([{ name, value, url: stack.url }]);
  // The app asks for nothing authenticated until this browser remembers a sign-in (src/session.ts).
  await context.addInitScript(() => localStorage.setItem('tj-signed-in', '1'));
  await context.addInitScript(markReady);

  const total = [];
  const perfDone = [];
  for (let i = 0; i < runs; i++) {
    // A new page each run; the first one also starts with a cold HTTP cache.
    const page = await context.newPage();
    await page.goto('/', { timeout: 60_000 });
    const ready = await page.evaluate(() => window.__dashboardReady);
    // Where the time went, from the page's own Resource Timing entries.
    const perf = await page.evaluate(() => {
      const r = performance.getEntriesByType('resource').find((e) => new URL(e.name).pathname === '/api/performance');
      return { start: r.requestStart, end: r.responseEnd, json: r.decodedBodySize, wire: r.encodedBodySize };
    });
    const dom = await page.evaluate(() => ({
      elements: document.getElementsByTagName('*').length,
      rows: [...document.querySelectorAll('section[aria-label]')].map((s) => `${s.getAttribute('aria-label')}: ${s.querySelectorAll('tbody tr').length} rows`),
    }));
    total.push(ready);
    perfDone.push(perf.end);
    const trades = await page.getByLabel('Statistics', { exact: true }).getByText(/\(\d+W/).innerText();
    console.log(
      `run ${i + 1}: tiles and equity curve painted at ${ready.toFixed(0)} ms; GET /api/performance sent at ${perf.start.toFixed(0)} ms, ` +
        `answered by ${perf.end.toFixed(0)} ms (${(perf.json / 1e6).toFixed(2)} MB of JSON, ${(perf.wire / 1e6).toFixed(2)} MB gzipped); ` +
        `${(ready - perf.end).toFixed(0)} ms from its answer to the painted frame; trades tile ${trades}; ` +
        `${dom.elements} elements (${dom.rows.join(', ')})`,
    );
    if (i === 0) await page.screenshot({ path: path.join(artifacts, 'dashboard-100k.png') });
    await page.close();
  }
  console.log(
    `median of ${runs}: ${median(total).toFixed(0)} ms to tiles and chart (cold first run ${total[0].toFixed(0)} ms); ` +
      `/api/performance answered by ${median(perfDone).toFixed(0)} ms (median)`,
  );

  if (profile) {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
    await page.goto('/', { timeout: 60_000 });
    const ready = await page.evaluate(() => window.__dashboardReady);
    const { profile: p } = await cdp.send('Profiler.stop');
    // Self time per function, from the samples' time deltas.
    const byNode = new Map(p.nodes.map((n) => [n.id, n]));
    const self = new Map();
    p.samples.forEach((id, i) => {
      const f = byNode.get(id).callFrame;
      const where = f.url ? `${f.url.replace(/^.*\//, '')}:${f.lineNumber + 1}` : '';
      const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
      self.set(key, (self.get(key) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
    });
    console.log(`profiled load: painted at ${ready.toFixed(0)} ms; JavaScript self time by function:`);
    for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${key}`);
    await page.close();
  }
} finally {
  await browser?.close();
  await stack.stop();
}
