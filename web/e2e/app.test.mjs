// End to end: a trader's first session in headless Chromium, against the
// real stack (stack.mjs): PostgreSQL, the api and nginx as the web container
// configures it. The steps run in order and build on each other. Each main
// screen is saved under web/e2e/artifacts/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { artifacts, launchBrowser, startStack } from './stack.mjs';

const email = `trader-${Date.now()}@example.com`;
const password = 'correct horse battery staple';
const timezone = 'Europe/Berlin';

let stack;
let browser;
let page;
/** Console errors and uncaught exceptions (a CSP refusal is one), per step. */
let problems = [];

before(async () => {
  stack = await startStack({ SEED_ADMIN_EMAIL: email });
  browser = await launchBrowser();
  const context = await browser.newContext({ baseURL: stack.url, timezoneId: timezone, viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  // Chromium logs every 4xx as a console error; the api's 401s and 4xx
  // answers are the app's business, judged by the steps. A server error, a
  // missing file of the app, a CSP refusal or an exception is a problem.
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('response', (res) => {
    const { pathname } = new URL(res.url());
    if (res.status() >= 500 || (res.status() >= 400 && !pathname.startsWith('/api/'))) problems.push(`${res.status()} ${pathname}`);
  });
});

after(async () => {
  await browser?.close();
  await stack?.stop();
});

let failed = '';

/**
 * step is one test that must leave no console error behind. The steps build
 * on each other: after a failure the rest are skipped, naming it.
 */
function step(name, fn) {
  test(name, async (t) => {
    if (failed) {
      t.skip(`an earlier step failed: ${failed}`);
      return;
    }
    problems = [];
    try {
      await fn();
      assert.deepEqual(problems, [], `${name}: the page reported errors`);
    } catch (err) {
      failed = name;
      await screenshot(`failed-${name.replace(/[^a-z0-9]+/gi, '-')}`).catch(() => {});
      throw err;
    }
  });
}

async function screenshot(name) {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

/** api calls the api through nginx with the page's session. */
async function api(pathname) {
  const res = await page.request.get(pathname);
  assert.equal(res.status(), 200, `GET ${pathname}: ${res.status()} ${await res.text()}`);
  return res.json();
}

step('a visitor is sent to sign in, and signs up with the browser time zone', async () => {
  await page.goto('/');
  await page.waitForURL('**/signin');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await screenshot('signin');

  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByRole('heading', { name: 'Create your account' }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await screenshot('signup');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL('**/accounts?welcome=1');
  await page.getByRole('status').filter({ hasText: 'Create your first trading account' }).waitFor();

  const me = await api('/api/auth/me');
  assert.equal(me.user.email, email);
  assert.equal(me.user.timezone, timezone);
});

step('signs out and back in', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL('**/signin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();

  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
});

step('creates an account', async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounts' }).click();
  const form = page.getByRole('form', { name: 'New account' });
  await form.getByLabel('Account name').fill('Swing');
  await form.getByLabel('Currency').fill('USD');
  await form.getByLabel('Trading-day time zone').fill('America/New_York');
  await form.getByLabel('Starting balance').fill('25000');
  await form.getByLabel('Default risk %').fill('1');
  await form.getByRole('button', { name: 'Create account' }).click();
  const row = page.getByRole('row', { name: /Swing/ });
  await row.waitFor();
  assert.match(await row.innerText(), /USD/);
  assert.match(await row.innerText(), /25,000\.00/);
  await screenshot('accounts');
});

step('adds a position with an entry and an exit fill, and sees its P&L', async () => {
  await page.goto('/positions/new');
  await page.getByRole('heading', { name: 'New position' }).waitFor();
  await page.getByLabel('Symbol', { exact: true }).fill('AAPL');
  await page.getByLabel('Stop loss').fill('95');
  await page.getByLabel('Target price').fill('120');
  await page.getByLabel('Entry price').fill('100');
  await page.getByLabel('Quantity', { exact: true }).fill('10');
  await page.getByLabel('Fees', { exact: true }).fill('1');
  await page.getByLabel('Filled at', { exact: true }).fill('2026-11-02T10:00');
  await page.getByRole('button', { name: 'Add exit' }).click();
  await page.getByLabel('Exit price (fill 2)').fill('110');
  await page.getByLabel('Quantity (fill 2)').fill('10');
  await page.getByLabel('Fees (fill 2)').fill('1');
  await page.getByLabel('Filled at (fill 2)').fill('2026-11-03T15:30');
  await page.getByLabel('Notes').fill('Breakout over the range high.');
  await screenshot('position-new');
  await page.getByRole('button', { name: 'Save position' }).click();
  await page.waitForURL(/\/positions\/[0-9a-f-]{36}$/);
  await page.getByRole('heading', { name: /AAPL/ }).waitFor();
  // (110 - 100) x 10 - 2 in fees; risk (100 - 95) x 10 = 50, so 98 / 50 = 1.96 R.
  await page.getByText('$98.00').first().waitFor();
  await page.getByText(/1\.96\s*R/).first().waitFor();
  await screenshot('position');

  const { items } = await api('/api/positions');
  assert.equal(items.length, 1);
  assert.equal(items[0].symbol, 'AAPL');
});

step('sees the trade on the dashboard: total, tiles, calendar and equity curve', async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  // The starting balance plus the trade's net P&L, in the display currency.
  assert.equal((await page.getByTestId('dashboard-total').innerText()).trim(), '$25,098.00');
  const tiles = page.getByLabel('Statistics', { exact: true });
  await tiles.getByText('$98.00').first().waitFor();
  assert.match(await tiles.innerText(), /Win rate\s+100(\.0+)?%/);
  assert.match(await tiles.innerText(), /Average R\s+1\.96R/);
  // The trade closed on 3 November, a trading day in the account's New York zone.
  await page.getByRole('gridcell', { name: '2026-11-03: $98.00, 1 trades' }).waitFor();
  await page.getByRole('gridcell', { name: '2026-11-02: no trades' }).waitFor();
  await page.getByRole('img', { name: 'Equity curve of 1 points, ending at $98.00' }).locator('canvas').first().waitFor();
  await page.getByRole('region', { name: 'By symbol' }).getByRole('row', { name: /AAPL/ }).waitFor();
  await screenshot('dashboard');
});
