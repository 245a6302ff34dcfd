// Times moving inside the app against a full reload of the same screen, in
// headless Chromium on the end-to-end tests' stack (stack.mjs: PostgreSQL,
// bin/local, nginx from web/docker/start.sh serving web/dist), with the
// demo journal loaded so that every screen has something to show. Not a
// test: a measurement, run by
//
//   node web/e2e/bench-navigation.mjs [runs]      (after make build and npm run build --prefix web)
//
// A click is timed from the click to the first animation frame in which the
// screen's heading is up and nothing in it says Loading… (its data shown);
// a reload from the navigation's start to the same frame. It prints the
// median of each screen; docs/performance.md keeps the figures.
import { launchBrowser, startStack } from './stack.mjs';

const runs = Number(process.argv[2] ?? 7);
const email = `bench-nav-${Date.now()}@example.com`;
// Each screen: its menu link, its path and its heading.
const screens = [
  ['Dashboard', '/', 'Dashboard'],
  ['Positions', '/positions', 'Positions'],
  ['Strategies', '/strategies', 'Strategies'],
  ['Journal', '/journal', 'Journal'],
  ['Playbooks', '/playbooks', 'Playbooks'],
  ['Rules', '/rules', 'Trading rules'],
  ['Accounts', '/accounts', 'Accounts'],
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Installed in the page: __shown(heading) resolves with performance.now() at
 * the first frame in which main's heading reads heading and no Loading…
 * (a screen's fallback or its data's) is in main.
 */
function probe() {
  window.__shown = (heading) =>
    new Promise((resolve, reject) => {
      const deadline = performance.now() + 15_000;
      const frame = (now) => {
        const main = document.querySelector('main');
        const h1 = main?.querySelector('h1');
        if (h1 && h1.textContent.trim().startsWith(heading) && !main.querySelector('.loading')) resolve(now);
        else if (now > deadline) reject(new Error(`${heading} not shown in 15 s: ${location.pathname}, ${main?.innerText.slice(0, 200)}`));
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
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`POST ${pathname}: ${res.status} ${await res.text()}`);
    return res;
  };
  const registered = await post('/api/auth/register', { email, password: 'benchmark password' });
  const session = registered.headers.get('set-cookie').split(';')[0];
  await post('/api/demo-journal', undefined, session);

  browser = await launchBrowser();
  const [name, value] = [session.slice(0, session.indexOf('=')), session.slice(session.indexOf('=') + 1)];
  const context = await browser.newContext({ baseURL: stack.url, viewport: { width: 1366, height: 900 } });
  await context.addCookies([{ name, value, url: stack.url }]);
  // The app asks for nothing authenticated until this browser remembers a sign-in (src/session.ts).
  await context.addInitScript(() => localStorage.setItem('tj-signed-in', '1'));
  await context.addInitScript(probe);
  const page = await context.newPage();

  const clicks = new Map(screens.map(([label]) => [label, []]));
  const reloads = new Map(screens.map(([label]) => [label, []]));
  for (let i = 0; i < runs; i++) {
    // A fresh load of the app, then every screen in turn by its menu link;
    // the browser's HTTP cache is warm after the first run, as for a reload.
    await page.goto('/settings');
    await page.evaluate(() => window.__shown('Settings'));
    await page.waitForTimeout(500); // as a trader would: the app is up before the first click
    for (const [label, , heading] of screens) {
      const ms = await page.evaluate(
        ([label, heading]) => {
          const link = [...document.querySelectorAll('nav[aria-label="Main"] a')].find((a) => a.textContent.trim() === label);
          const start = performance.now();
          link.click();
          return window.__shown(heading).then((at) => at - start);
        },
        [label, heading],
      );
      clicks.get(label).push(ms);
    }
    for (const [label, path, heading] of screens) {
      await page.goto(path);
      reloads.get(label).push(await page.evaluate((heading) => window.__shown(heading), heading));
    }
  }
  console.log(`median of ${runs} (ms, to the frame that shows the screen with its data):`);
  console.log(`${'screen'.padEnd(12)} ${'click'.padStart(7)} ${'reload'.padStart(7)}`);
  for (const [label] of screens) {
    console.log(`${label.padEnd(12)} ${median(clicks.get(label)).toFixed(0).padStart(7)} ${median(reloads.get(label)).toFixed(0).padStart(7)}`);
  }
  const all = (m) => median([...m.values()].flat());
  console.log(`all screens: click ${all(clicks).toFixed(0)} ms, reload ${all(reloads).toFixed(0)} ms (medians)`);
} finally {
  await browser?.close();
  await stack.stop();
}
