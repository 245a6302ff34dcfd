// Times the dashboard of a 100,000-position journal in headless Chromium:
// from the navigation's start to the statistics tiles and the equity curve's
// canvas laid out and painted. The stack is the end-to-end tests' (stack.mjs:
// PostgreSQL, bin/local, nginx from web/docker/start.sh serving web/dist);
// the journal is journaltest.Seed's (infra/bench/seedjournal), converted into
// USD with two exchange rates. Not a test: a measurement, run by
//
//   make bench-web            (or: node web/e2e/bench-dashboard.mjs [positions] [runs])
//
// It prints each run and the median; docs/performance.md keeps the figures.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { artifacts, launchBrowser, repo, startStack } from './stack.mjs';

const positions = Number(process.argv[2] ?? 100_000);
const runs = Number(process.argv[3] ?? 7);
const email = `bench-${Date.now()}@example.com`;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Resolves with performance.now() at the first animation frame in which the
 * tiles and the chart's canvas are laid out (checked every frame: uPlot
 * sizes its canvas after inserting it, with no further DOM mutation).
 */
function markReady() {
  window.__dashboardReady = new Promise((resolve) => {
    const laidOut = (el) => el !== null && el.getBoundingClientRect().height > 0;
    const frame = (now) => {
      if (document.body && laidOut(document.querySelector('[aria-label="Statistics"]')) && laidOut(document.querySelector('.chart canvas'))) resolve(now);
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
  await context.addInitScript(markReady);

  const total = [];
  const perfAPI = [];
  for (let i = 0; i < runs; i++) {
    // A new page each run; the first one also starts with a cold HTTP cache.
    const page = await context.newPage();
    const perf = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/performance', { timeout: 60_000 });
    await page.goto('/', { timeout: 60_000 });
    const ready = await page.evaluate(() => window.__dashboardReady);
    const timing = (await perf).request().timing();
    total.push(ready);
    perfAPI.push(timing.responseEnd - timing.requestStart);
    const trades = await page.getByLabel('Statistics', { exact: true }).getByText(/\(\d+W/).innerText();
    console.log(`run ${i + 1}: tiles and equity curve painted at ${ready.toFixed(0)} ms; GET /api/performance ${perfAPI.at(-1).toFixed(0)} ms; trades tile ${trades}`);
    if (i === 0) await page.screenshot({ path: path.join(artifacts, 'dashboard-100k.png'), fullPage: true });
    await page.close();
  }
  console.log(`median of ${runs}: ${median(total).toFixed(0)} ms to tiles and chart (cold first run ${total[0].toFixed(0)} ms); GET /api/performance median ${median(perfAPI).toFixed(0)} ms`);
} finally {
  await browser?.close();
  await stack.stop();
}
