// End to end: a trader's first session in headless Chromium, against the
// real stack (stack.mjs): PostgreSQL, the api and nginx as the web container
// configures it. The steps run in order and build on each other. Each main
// screen is saved under web/e2e/artifacts/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { request as playwrightRequest } from 'playwright-core';
import { artifacts, launchBrowser, startStack } from './stack.mjs';
import { contrastProblems } from './contrast.mjs';

const email = `trader-${Date.now()}@example.com`;
let password = 'correct horse battery staple';
const timezone = 'Europe/Berlin';

let stack;
let browser;
let page;
/** Console errors and uncaught exceptions (a CSP refusal is one), per step. */
let problems = [];

before(async () => {
  for (const f of fs.existsSync(artifacts) ? fs.readdirSync(artifacts) : []) {
    if (f.startsWith('failed-')) fs.rmSync(path.join(artifacts, f));
  }
  stack = await startStack();
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

/**
 * answer answers the app's own confirmation (a modal alert dialog, never the
 * browser's): its action, the button that is not Cancel, or Cancel. The
 * dialog must sit inside the window.
 */
async function answer(p, accept) {
  const dialog = p.getByRole('alertdialog');
  await dialog.waitFor();
  const box = await dialog.boundingBox();
  const view = p.viewportSize();
  assert.ok(box && box.y >= 0 && box.y + box.height <= view.height, `the confirmation is drawn outside the window (${JSON.stringify(box)})`);
  const buttons = dialog.getByRole('button');
  await (accept ? buttons.filter({ hasNotText: /^Cancel$/ }).first() : dialog.getByRole('button', { name: 'Cancel', exact: true })).click();
  await dialog.waitFor({ state: 'detached' });
}

/** api calls the api through nginx with the page's session. */
async function api(pathname) {
  const res = await page.request.get(pathname);
  assert.equal(res.status(), 200, `GET ${pathname}: ${res.status()} ${await res.text()}`);
  return res.json();
}

step('a first visit is welcomed, asks nothing that answers 401, and signs up with the browser time zone', async () => {
  const refused = [];
  const on401 = (res) => res.status() === 401 && refused.push(new URL(res.url()).pathname);
  page.on('response', on401);
  try {
    await page.goto('/');
    await page.waitForURL('**/welcome');
    await page.getByRole('heading', { name: 'Welcome to Trade Journal' }).waitFor();
    await screenshot('welcome');
    await page.goto('/signin');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot('signin');
    // Email is off here: the page says what the operator can do, and promises no mail.
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByTestId('operator-reset').filter({ hasText: 'reset-password --email' }).waitFor();
    assert.equal(await page.getByText(/on its way/).count(), 0);
    await page.goto('/positions');
    await page.waitForURL('**/signin?next=%2Fpositions');
    await page.goto('/');
    await page.waitForURL('**/welcome');
    assert.deepEqual(refused, [], 'signed-out pages asked authenticated routes');
  } finally {
    page.off('response', on401);
  }

  await page.getByRole('link', { name: 'Create your account' }).click();
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

/** totp is the RFC 6238 code of a base32 secret at a time, as an authenticator app computes it. */
function totp(secret, at = Date.now()) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of secret) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30_000)));
  const mac = crypto.createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

step('turns on two-factor sign-in from the QR code set-up, and signs in with a code', async () => {
  await nav('Settings');
  const section = page.getByRole('region', { name: 'Two-factor sign-in' });
  await section.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  await section.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
  await section.getByText("Can't scan it? Enter the key by hand").click();
  const secret = (await section.getByLabel('Setup key').innerText()).trim();
  assert.match(secret, /^[A-Z2-7]{32}$/);
  await section.getByLabel('Code from the app').fill(totp(secret));
  await section.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
  const codes = section.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
  await codes.first().waitFor();
  assert.equal(await codes.count(), 10);
  const recovery = (await codes.first().innerText()).trim();
  await screenshot('two-factor');
  await section.getByRole('button', { name: 'I have saved them' }).click();
  await section.getByText('10 recovery codes are left').waitFor();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL('**/signin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
  // The code of the set-up is used up; the app's next one is within the accepted drift.
  await page.getByLabel('Code', { exact: true }).fill(totp(secret, Date.now() + 30_000));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
  await page.getByRole('navigation', { name: 'Main' }).waitFor();

  // Off again with the password and a recovery code (the app's codes of this minute are used up),
  // so that the later steps sign in other browsers with the password alone.
  await nav('Settings');
  await section.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
  const off = section.getByRole('form', { name: 'Turn off two-factor sign-in' });
  await off.getByLabel('Your password').fill(password);
  await off.getByLabel('Code from the app, or a recovery code').fill(recovery);
  await off.getByRole('button', { name: 'Turn off', exact: true }).click();
  await section.getByRole('button', { name: 'Set up two-factor sign-in' }).waitFor();
});

step('makes an API token, copies it once, reads with it from a script, and revokes it', async () => {
  await nav('Settings');
  const section = page.getByRole('region', { name: 'API tokens' });
  await section.getByLabel('Token name').fill('nightly export');
  await section.getByRole('button', { name: 'Create token' }).click();
  const token = (await section.getByLabel('Your new API token').innerText()).trim();
  assert.match(token, /^tj_[A-Za-z0-9_-]{43}$/);
  const script = await playwrightRequest.newContext({ baseURL: stack.url, extraHTTPHeaders: { Authorization: `Bearer ${token}` } });
  try {
    assert.equal((await script.get('/api/accounts')).status(), 200);
    assert.equal((await script.post('/api/accounts', { data: { name: 'Script', currency: 'USD', timezone: 'UTC' } })).status(), 403);
    await page.reload();
    const row = section.getByRole('row').filter({ hasText: 'nightly export' });
    await row.waitFor();
    assert.doesNotMatch(await row.innerText(), /Never/);
    await screenshot('api-tokens');
    await row.getByRole('button', { name: 'Revoke token nightly export' }).click();
    await answer(page, true);
    await section.getByText('No API tokens yet.').waitFor();
    assert.equal((await script.get('/api/accounts')).status(), 401);
  } finally {
    await script.dispose();
  }
});

step('loads the demo journal on the empty dashboard, and finds its day entry, playbook, rule and options strategy', async () => {
  await nav('Dashboard');
  await page.getByRole('button', { name: 'Load a demo journal' }).click();
  await page.getByRole('region', { name: 'Demo journal' }).filter({ hasText: 'looking at the demo journal' }).waitFor();
  await page.getByTestId('dashboard-total').waitFor();
  await screenshot('demo-dashboard');
  const { items } = await api('/api/positions?limit=200');
  assert.ok(items.length >= 60, `${items.length} demo positions`);
  // A reversal of the demo: its position says where the trade went.
  const reversed = items.find((p) => p.reversalOf);
  assert.ok(reversed, 'the demo has a reversal');
  await page.goto(`/positions/${reversed.reversalOf}`);
  await page.getByRole('link', { name: 'reversed into the next position' }).waitFor();
  await page.getByText('reversal: closed here').waitFor();
  await screenshot('demo-reversal');

  // The newer features, each on its own screen, reached from the demo's note.
  await nav('Dashboard');
  const note = page.getByRole('region', { name: 'Demo journal' });
  await note.getByRole('link', { name: 'Journal' }).click();
  await page.getByRole('heading', { level: 1, name: 'Journal' }).waitFor();
  await page.getByText(/a failed breakout means flat/).first().waitFor();
  await nav('Dashboard');
  await note.getByRole('link', { name: 'playbook' }).click();
  await page.getByText('Opening range breakout').first().waitFor();
  await page.getByText('Break on above-average volume').first().waitFor();
  await nav('Rules');
  await page.getByRole('row', { name: /At most 1 trade a day/ }).waitFor();
  await nav('Strategies');
  await page.getByRole('heading', { level: 1, name: 'Strategies' }).waitFor();
  await page.getByRole('link', { name: /SPY iron condor/ }).first().click();
  await page.getByText(/SPY .*515 put/).first().waitFor();
  await screenshot('demo-strategy');
});

step('sorts the positions by a heading: net P&L largest first, then smallest, kept in the address', async () => {
  await nav('Positions');
  await page.getByRole('heading', { level: 1, name: 'Positions' }).waitFor();
  const heading = page.getByRole('columnheader', { name: /Net P&L/ });
  assert.equal(await heading.getAttribute('aria-sort'), null);
  assert.equal(await page.getByRole('columnheader', { name: /Opened/ }).getAttribute('aria-sort'), 'descending');
  // The first rows are the API's first in that order (the server sorts: the list comes a page at a time).
  const firstSymbols = async (sort) => (await api(`/api/positions?sort=${sort}&limit=3`)).items.map((p) => p.symbol.replace(/\s+/g, ' ')).join(' ');
  const shownSymbols = async () => (await page.locator('table tbody tr th a').allInnerTexts()).slice(0, 3).join(' ');
  const rowsIn = async (sort) => {
    const want = await firstSymbols(sort);
    for (let i = 0; i < 50 && (await shownSymbols()) !== want; i++) await page.waitForTimeout(100);
    assert.equal(await shownSymbols(), want, `the first rows in ${sort}`);
  };
  await heading.getByRole('button').click();
  await page.waitForURL(/[?&]sort=-netPnl/);
  await page.locator('th[aria-sort="descending"]').filter({ hasText: 'Net P&L' }).waitFor();
  await rowsIn('-netPnl');
  await screenshot('positions-sorted');
  await heading.getByRole('button').click();
  await page.waitForURL(/[?&]sort=netPnl/);
  await page.locator('th[aria-sort="ascending"]').filter({ hasText: 'Net P&L' }).waitFor();
  await rowsIn('netPnl');
  // A reload keeps the order: it is in the address.
  await page.reload();
  await page.locator('th[aria-sort="ascending"]').filter({ hasText: 'Net P&L' }).waitFor();
});

step('moves between screens on scripts already loaded: a click fetches no chunk', async () => {
  await page.goto('/settings');
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
  // The app loads the other screens' chunks when the browser is first idle:
  // wait until they (and what they import) are here, and nothing more comes.
  await page.waitForFunction(() => {
    const names = performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname);
    return ['Playbooks', 'RulesPage', 'JournalList', 'Strategies', 'Accounts', 'Calculator', 'CsvImport', 'Dashboard'].every((c) => names.some((n) => n.startsWith(`/assets/${c}-`)));
  });
  await page.evaluate(
    () =>
      new Promise((resolve) => {
        let seen = -1;
        const check = () => {
          const now = performance.getEntriesByType('resource').length;
          if (now === seen) return resolve();
          seen = now;
          setTimeout(check, 500);
        };
        check();
      }),
  );
  const scripts = [];
  const onRequest = (req) => req.resourceType() === 'script' && scripts.push(new URL(req.url()).pathname);
  page.on('request', onRequest);
  try {
    for (const [link, heading] of [
      ['Playbooks', 'Playbooks'],
      ['Rules', 'Trading rules'],
      ['Journal', 'Journal'],
      ['Strategies', 'Strategies'],
      ['Accounts', 'Accounts'],
      ['Calculator', 'Position size calculator'],
      ['Import', /Import/],
      ['Dashboard', 'Dashboard'],
    ]) {
      await nav(link);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    }
  } finally {
    page.off('request', onRequest);
  }
  assert.deepEqual(scripts, [], 'scripts fetched on a click between screens');
});

step('removes the demo journal in one click, with its playbook, rule, strategy and day entry', async () => {
  await nav('Dashboard');
  await page.getByRole('button', { name: 'Remove the demo journal' }).click();
  await answer(page, true);
  await page.getByRole('button', { name: 'Load a demo journal' }).waitFor();
  assert.deepEqual((await api('/api/positions')).items, []);
  assert.deepEqual((await api('/api/accounts')).items, []);
  assert.deepEqual((await api('/api/playbooks')).items, []);
  assert.deepEqual((await api('/api/rules')).items, []);
  assert.deepEqual((await api('/api/strategies')).items, []);
  assert.equal((await api('/api/journal/days')).items.filter((d) => d.hasEntry).length, 0);
});

step('the theme follows the system until the toggle picks one, which the server keeps: the first paint has it before any script runs, and the sign-in page after signing out', async () => {
  const background = (p = page) => p.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = 'rgb(247, 248, 250)';
  const dark = 'rgb(15, 18, 23)';
  await page.emulateMedia({ colorScheme: 'light' });
  assert.equal(await background(), light);
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.equal(await background(), dark);
  // The equity chart reads palette colours from the custom properties for
  // its canvas: they must hold a plain colour, not light-dark(…).
  const accent = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());
  assert.equal(accent, '#6d9cff');

  // A choice outlasts the system's: dark picked under a light system, then
  // light picked under a dark one, each stored on the server.
  const pick = async (name) => {
    const saved = page.waitForResponse((r) => r.url().endsWith('/api/users/me/theme') && r.request().method() === 'PUT');
    await page.getByRole('button', { name }).click();
    assert.equal((await saved).status(), 200);
  };
  await page.emulateMedia({ colorScheme: 'light' });
  await pick('Switch to dark theme');
  assert.equal(await background(), dark);
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.equal(await background(), dark);
  await pick('Switch to light theme');
  assert.equal(await background(), light);
  await page.emulateMedia({ colorScheme: 'light' });
  await pick('Switch to dark theme');
  assert.equal((await api('/api/auth/me')).user.theme, 'dark');

  // The first paint: in a browser with this one's cookies whose app
  // scripts never arrive, the page is dark already (the system is light).
  const cookies = await page.context().cookies();
  assert.ok(cookies.some((c) => c.name === 'tj_theme' && c.value === 'dark' && !c.httpOnly && c.sameSite === 'Lax'), 'no readable tj_theme cookie');
  const bare = await browser.newContext({ baseURL: stack.url, serviceWorkers: 'block', colorScheme: 'light' });
  try {
    await bare.addCookies(cookies);
    const p = await bare.newPage();
    await p.route('**/assets/*.js', (route) => route.abort());
    await p.goto('/positions');
    assert.equal(await p.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(await background(p), dark);
    assert.equal(await p.locator('#root').innerHTML(), '', 'the bundle ran');
  } finally {
    await bare.close();
  }

  // Signed out, the sign-in page keeps the last user's theme, also when loaded afresh.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL('**/signin');
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  assert.equal(await background(), dark);
  await page.reload();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  assert.equal(await background(), dark);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
  await page.getByRole('navigation', { name: 'Main' }).waitFor();

  // Back to the system's in Settings.
  await nav('Settings');
  const form = page.getByRole('form', { name: 'Theme' });
  await form.getByRole('combobox', { name: 'Theme' }).selectOption('system');
  await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  assert.equal(await background(), light);
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.equal(await background(), dark);
  await page.emulateMedia({ colorScheme: 'light' });
  assert.equal((await api('/api/auth/me')).user.theme, 'system');
});

step('a new user finds the onboarding checklist on the dashboard, and a screen\'s coach mark once', async () => {
  await nav('Dashboard');
  // The demo journal came and went: it did none of the steps.
  const checklist = page.getByRole('region', { name: 'Get started' });
  await checklist.getByText('0 of 5 steps done').waitFor();
  assert.equal(await checklist.getByRole('link', { name: 'Add a trading account' }).getAttribute('href'), '/accounts');
  assert.equal(await checklist.getByRole('link', { name: 'Write a day plan' }).getAttribute('href'), '/journal');
  // The dashboard's tip, dismissed from the keyboard, stays dismissed: stored on the server, not in this browser.
  const tip = page.getByRole('complementary', { name: 'Tip' });
  await tip.filter({ hasText: 'Customize dashboard' }).waitFor();
  await tip.getByRole('button', { name: 'Got it, hide this tip' }).focus();
  await page.keyboard.press('Enter');
  await tip.waitFor({ state: 'detached' });
  await page.reload();
  await checklist.getByText('0 of 5 steps done').waitFor();
  assert.equal(await tip.count(), 0);
  assert.deepEqual((await api('/api/users/me/onboarding')).coachMarksSeen, ['dashboard']);
  // Each screen has its own, inside the window on a phone.
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.goto('/rules');
    await tip.filter({ hasText: 'Set the rules you trade by' }).waitFor();
    const box = await tip.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `the tip is outside a phone's window: ${JSON.stringify(box)}`);
    await screenshot('coach-mark-phone');
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

step('creates an account', async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounts' }).click();
  const form = page.getByRole('form', { name: 'New account' });
  await form.getByLabel('Account name').fill('Swing');
  await form.getByLabel('Currency').fill('USD');
  await form.getByLabel('Trading-day time zone').fill('America/New_York');
  // Typed as a person writes it.
  await form.getByLabel('Starting balance').fill('25,000');
  await form.getByLabel('Default risk %').fill('1');
  await form.getByRole('button', { name: 'Create account' }).click();
  const row = page.getByRole('row', { name: /Swing/ });
  await row.waitFor();
  assert.match(await row.innerText(), /USD/);
  assert.match(await row.innerText(), /25,000\.00/);
  await screenshot('accounts');

  // A second account of the same name is refused, in words, on its field.
  await form.getByLabel('Account name').fill('swing');
  await form.getByLabel('Currency').fill('USD');
  await form.getByRole('button', { name: 'Create account' }).click();
  await form.getByRole('alert').filter({ hasText: 'You already have an account with this name: choose another name.' }).waitFor();
  assert.equal(await form.getByLabel('Account name').getAttribute('aria-invalid'), 'true');
  await screenshot('accounts-duplicate');
  await form.getByLabel('Account name').fill('');
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
  // What is typed is read in the browser's zone, and the field says which.
  await page.getByText(`Time in ${timezone}.`).first().waitFor();
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
  // Every time shown names its zone: the user's reporting zone (the browser's at sign-up).
  await page.getByText(/opened Nov 2, 2026, 10:00 AM (GMT\+1|CET)/).waitFor();
  await screenshot('position');

  const { items } = await api('/api/positions');
  assert.equal(items.length, 1);
  assert.equal(items[0].symbol, 'AAPL');
});

step('the onboarding checklist advances with the account and the trade, and goes for good when dismissed', async () => {
  await nav('Dashboard');
  const checklist = page.getByRole('region', { name: 'Get started' });
  await checklist.getByText('2 of 5 steps done').waitFor();
  assert.equal(await checklist.getByRole('link', { name: 'Add a trading account' }).count(), 0);
  assert.equal(await checklist.getByRole('link', { name: 'Record or import a trade' }).count(), 0);
  await checklist.getByRole('link', { name: 'Tag and review a trade' }).waitFor();
  await screenshot('onboarding');
  await checklist.getByRole('button', { name: 'Dismiss the checklist' }).click();
  await checklist.waitFor({ state: 'detached' });
  await page.reload();
  await page.getByTestId('dashboard-total').waitFor();
  assert.equal(await checklist.count(), 0);
  const onboarding = await api('/api/users/me/onboarding');
  assert.equal(onboarding.dismissed, true);
  assert.equal(onboarding.done, 2);
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
  await page.getByRole('gridcell', { name: '2026-11-03: $98.00, 1 trades, open the day in the journal' }).waitFor();
  await page.getByRole('gridcell', { name: '2026-11-02: no trades' }).waitFor();
  await page.getByRole('img', { name: 'Equity curve of 1 points, ending at $98.00' }).locator('canvas').first().waitFor();
  // By trade number: the same curve over which trade each point is.
  await page.getByRole('radiogroup', { name: 'Draw the equity curve by' }).getByLabel('By trade number').check();
  await page.getByRole('img', { name: 'Equity curve of 1 points by trade number, to trade 1, ending at $98.00' }).locator('canvas').first().waitFor();
  await page.getByRole('radiogroup', { name: 'Draw the equity curve by' }).getByLabel('By date').check();
  await page.getByRole('region', { name: 'By underlying' }).getByRole('row', { name: /AAPL/ }).waitFor();
  await screenshot('dashboard');
});

/** until polls fn until it returns true (a save that is on its way). */
async function until(fn, what) {
  for (let i = 0; i < 50; i++) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`never: ${what}`);
}

step('arranges the dashboard: removes a widget, moves two, resizes one, finds them kept after a reload, and resets it', async () => {
  await nav('Dashboard');
  const grid = page.getByRole('region', { name: 'Statistics', exact: true });
  await grid.getByText('$98.00').first().waitFor();
  const order = () => grid.locator('[data-widget]').evaluateAll((els) => els.map((e) => e.getAttribute('data-widget')));
  const stored = async () => (await api('/api/users/me/dashboard-layout')).widgets.map((w) => `${w.id}:${w.size}`);
  await page.getByRole('button', { name: 'Customize dashboard' }).click();
  await page.getByRole('region', { name: 'Customize dashboard' }).waitFor();
  await page.getByRole('button', { name: 'Remove SQN' }).click();
  await grid.locator('[data-widget="sqn"]').waitFor({ state: 'detached' });
  // Net P&L one place later, with the keyboard twice over: the focus stays on its button.
  await page.getByRole('button', { name: 'Move Net P&L later' }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await until(async () => (await order()).slice(0, 4).join() === 'total-balance,win-rate,profit-factor,net-pnl', 'Net P&L two places later');
  await page.getByRole('button', { name: 'Move P&L calendar earlier' }).click();
  await page.getByRole('combobox', { name: 'Width of Equity curve' }).selectOption('full');
  await grid.locator('[data-widget="equity-curve"].w-full').waitFor();
  await until(async () => {
    const w = await stored();
    return !w.some((x) => x.startsWith('sqn:')) && w.includes('equity-curve:full') && w.indexOf('net-pnl:quarter') === 3 && w.indexOf('calendar:full') === 14;
  }, 'the layout saved');
  await screenshot('dashboard-customize');
  await page.getByRole('button', { name: 'Done', exact: true }).click();
  await page.getByRole('region', { name: 'Customize dashboard' }).waitFor({ state: 'detached' });

  // Kept on the server: a reload (any device) shows the same.
  const before = await order();
  await page.reload();
  await grid.getByText('$98.00').first().waitFor();
  assert.deepEqual(await order(), before);
  assert.equal(await grid.locator('[data-widget="sqn"]').count(), 0);
  await grid.locator('[data-widget="equity-curve"].w-full').waitFor();
  await page.getByRole('img', { name: /^Equity curve of 1 points/ }).locator('canvas').first().waitFor();

  // Reset: every widget in its place again.
  await page.getByRole('button', { name: 'Customize dashboard' }).click();
  await page.getByRole('button', { name: 'Reset to default' }).click();
  await answer(page, true);
  await grid.locator('[data-widget="sqn"]').waitFor();
  assert.deepEqual((await order()).slice(0, 3), ['total-balance', 'net-pnl', 'win-rate']);
  assert.equal((await api('/api/users/me/dashboard-layout')).custom, false);
  await page.getByRole('button', { name: 'Done', exact: true }).click();
});

step('saves the dashboard\'s filter as a view and applies it in one click', async () => {
  await nav('Dashboard');
  const filters = page.getByRole('search', { name: 'Filter statistics' });
  await filters.getByLabel('Side').selectOption('long');
  await page.waitForURL(/[?&]side=long/);
  const views = page.getByRole('region', { name: 'Saved views' });
  await views.getByLabel('Name for these filters').fill('Longs');
  await views.getByRole('button', { name: 'Save view' }).click();
  const apply = views.getByRole('group', { name: 'Apply a saved view' });
  await apply.getByRole('button', { name: 'Longs' }).waitFor();
  assert.equal(await apply.getByRole('button', { name: 'Longs' }).getAttribute('aria-pressed'), 'true');
  await filters.getByRole('button', { name: 'Clear filters' }).click();
  await page.waitForURL((url) => url.pathname === '/' && url.search === '');
  await apply.getByRole('button', { name: 'Longs' }).click();
  await page.waitForURL(/[?&]side=long/);
  await page.getByRole('region', { name: 'By side' }).getByRole('row', { name: /Long/ }).waitFor();
  await filters.getByRole('button', { name: 'Clear filters' }).click();
  await page.waitForURL((url) => url.pathname === '/' && url.search === '');
});

/** nav follows a link of the main navigation. */
async function nav(name) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
}

step('runs the calculator from the account, and reads why a size is zero', async () => {
  await nav('Calculator');
  await page.getByRole('heading', { name: 'Position size calculator' }).waitFor();
  await page.getByLabel('Fill from account').selectOption({ label: 'Swing (USD)' });
  await page.getByLabel('Entry price').fill('100');
  await page.getByLabel('Stop loss').fill('95');
  await page.getByLabel('Target price (optional)').fill('110');
  // 1% of the $25,098.00 balance is $250.98 of risk: 50 shares at $5 each.
  await page.getByTestId('position-size').filter({ hasText: '50 shares' }).waitFor();
  const result = page.getByRole('region', { name: 'Result' });
  assert.match(await result.innerText(), /Reward : risk\s+2\.00 : 1/);
  assert.match(await result.innerText(), /Actual dollar risk\s+\$250\.00/);
  await screenshot('calculator');

  await page.getByLabel('Buying power (optional)').fill('0');
  await page.getByTestId('position-size').filter({ hasText: '0 shares' }).waitFor();
  assert.equal(
    await page.getByTestId('sizing-status').innerText(),
    'No buying power: with buying power of zero or less not a single share can be bought.',
  );
});

const csv = (rows) => ({ name: 'fills.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n') + '\n') });
const header = 'Date,Time,Symbol,Side,Quantity,Price,Fees';
const fills = [
  '2026-11-05,10:00:00,MSFT,Buy,20,400.00,1.00',
  '2026-11-05,14:00:00,MSFT,Sell,20,405.50,1.00',
  '2026-11-06,09:45:00,TSLA,Sell Short,5,250,0.50',
  '2026-11-06,11:00:00,TSLA,Buy to Cover,5,245,0.50',
];

step('imports a CSV through the wizard: located errors, preview, commit, duplicates', async () => {
  await nav('Import');
  await page.getByRole('heading', { name: 'Import a CSV' }).waitFor();
  await page.getByLabel('Preset', { exact: true }).selectOption({ label: 'Generic: one fill per row' });

  // A bad quantity: the preview names its row and column, and nothing can be imported.
  await page.getByLabel('CSV file').setInputFiles(csv([header, ...fills, '2026-11-07,10:00:00,NVDA,Buy,ten,100,0']));
  await page.getByRole('button', { name: 'Preview import' }).click();
  const errors = page.getByRole('region', { name: 'Errors' });
  await errors.waitFor();
  const errorRow = errors.getByRole('row').nth(1);
  assert.match(await errorRow.innerText(), /^6\s+5 \(Quantity\)\s+quantity/);
  // The readable rows can be imported, but only once that is confirmed.
  await page.getByLabel(/Import the rows that can be read, leaving out 1 row/).waitFor();
  assert.equal(await page.getByRole('region', { name: 'Preview' }).getByRole('button', { name: 'Import', exact: true }).count(), 0);
  await screenshot('import-errors');

  await page.getByLabel('CSV file').setInputFiles(csv([header, ...fills]));
  await page.getByRole('button', { name: 'Preview import' }).click();
  const preview = page.getByRole('region', { name: 'Preview' });
  await preview.getByRole('button', { name: 'Import' }).waitFor();
  const facts = await preview.innerText();
  assert.match(facts, /Fills to import\s+4 of 4/);
  assert.match(facts, /Positions\s+2 new, 0 continued, 0 left open/);
  // MSFT (405.50 - 400) x 20 - 2 and TSLA short (250 - 245) x 5 - 1.
  assert.match(facts, /Net P&L\s+\$132\.00/);
  await screenshot('import-preview');
  await preview.getByRole('button', { name: 'Import' }).click();
  const imported = page.getByRole('status').filter({ hasText: 'Imported' });
  await imported.waitFor();
  assert.match(await imported.innerText(), /4 fills in 2 new and 0 continued positions/);

  // The same file again: every fill is already in the journal.
  await page.getByRole('button', { name: 'Preview import' }).click();
  await preview.getByText('Already in the journal').waitFor();
  assert.match(await preview.innerText(), /Already in the journal\s+4 fills/);
  // The warnings in words, above the Import button.
  const warnings = preview.getByRole('group', { name: 'Warnings' });
  assert.match(await warnings.locator('summary').innerText(), /^4 warnings: Fills the journal already has \(4\)/);
  const [warningsBox, importBox] = await Promise.all([warnings.boundingBox(), preview.getByRole('button', { name: 'Import', exact: true }).boundingBox()]);
  assert.ok(warningsBox.y < importBox.y, 'the warnings come before the Import button');
  await preview.getByLabel('Also import the 4 fills the journal already has').waitFor();

  const { items } = await api('/api/positions');
  assert.deepEqual(items.map((p) => p.symbol).sort(), ['AAPL', 'MSFT', 'TSLA']);
});

step('imports a statement whose sale reverses a position, then an overlapping one: the reversal is a repeat, only the new rows are added', async () => {
  const first = [header, '2026-11-09,10:00:00,AMD,Buy,10,100,0', '2026-11-09,11:00:00,AMD,Sell,30,102,0']; // a long of 10 closed, a short of 20 opened
  await page.getByLabel('CSV file').setInputFiles(csv(first));
  await page.getByRole('button', { name: 'Preview import' }).click();
  const preview = page.getByRole('region', { name: 'Preview' });
  await preview.getByRole('button', { name: 'Import', exact: true }).waitFor();
  assert.match(await preview.innerText(), /Positions\s+2 new, 0 continued, 1 left open/);
  await preview.getByRole('button', { name: 'Import', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Imported' }).waitFor();
  const before = (await api('/api/positions?symbol=AMD')).items.length;

  // The next statement starts with the reversing sale again, then covers the short.
  await page.getByLabel('CSV file').setInputFiles(csv([header, first[2], '2026-11-10,10:00:00,AMD,Buy,20,99,0']));
  await page.getByRole('button', { name: 'Preview import' }).click();
  await preview.getByText('1 of 2', { exact: true }).waitFor();
  const facts = await preview.innerText();
  assert.match(facts, /Fills to import\s+1 of 2/);
  assert.match(facts, /Positions\s+0 new, 1 continued, 0 left open/);
  assert.match(facts, /Already in the journal\s+1 fill/);
  await preview.getByRole('button', { name: 'Import', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Imported' }).waitFor();
  const amd = (await api('/api/positions?symbol=AMD')).items;
  assert.equal(amd.length, before);
  assert.deepEqual(amd.map((p) => `${p.side} ${p.status}`).sort(), ['long closed', 'short closed']);

  // Out of the way of the later steps' totals.
  for (const p of amd.sort((a, b) => (a.reversalOf ? -1 : 1) - (b.reversalOf ? -1 : 1))) {
    const res = await page.request.delete(`/api/positions/${p.id}`);
    assert.equal(res.status(), 204, `DELETE ${p.symbol} ${p.side}: ${res.status()} ${await res.text()}`);
  }
});

step('filters the dashboard, sorts a breakdown, and opens a calendar day\'s positions from its journal page', async () => {
  await nav('Dashboard');
  const tiles = page.getByLabel('Statistics', { exact: true });
  await tiles.getByText('3 (3W / 0L / 0BE)').waitFor();
  // A filter goes into the address, and the figures follow it: only the TSLA short.
  const filters = page.getByRole('search', { name: 'Filter statistics' });
  await filters.getByLabel('Side').selectOption('short');
  await page.waitForURL(/[?&]side=short/);
  await tiles.getByText('1 (1W / 0L / 0BE)').waitFor();
  assert.match(await tiles.innerText(), /Net P&L\s+\$24\.00/);
  await page.getByRole('region', { name: 'By side' }).getByRole('row', { name: /Short/ }).waitFor();
  // The filter goes along to the positions list, and the back button undoes it.
  await nav('Positions');
  await page.waitForURL(/\/positions\?side=short$/);
  await page.getByRole('row', { name: /TSLA/ }).waitFor();
  assert.equal(await page.getByRole('row', { name: /MSFT/ }).count(), 0);
  await page.goBack();
  await page.goBack();
  await page.waitForURL((url) => url.pathname === '/' && url.search === '');
  await tiles.getByText('3 (3W / 0L / 0BE)').waitFor();

  // Sort the underlyings by net P&L: largest first, then smallest first.
  const underlyings = page.getByRole('region', { name: 'By underlying' });
  const header = underlyings.getByRole('columnheader', { name: /Net P&L/ });
  await header.getByRole('button').click();
  assert.equal(await header.getAttribute('aria-sort'), 'descending');
  assert.deepEqual(await underlyings.getByRole('rowheader').allInnerTexts(), ['MSFT', 'AAPL', 'TSLA']);
  await header.getByRole('button').click();
  assert.equal(await header.getAttribute('aria-sort'), 'ascending');
  assert.deepEqual(await underlyings.getByRole('rowheader').allInnerTexts(), ['TSLA', 'AAPL', 'MSFT']);
  await screenshot('dashboard-breakdowns');

  // The calendar's week total, then a day opens its journal page, which
  // links to the positions closed that day.
  await page.getByRole('gridcell', { name: 'Week of 2026-11-02: $230.00, 3 trades' }).waitFor();
  await page.getByRole('gridcell', { name: /^2026-11-05: \$108\.00, 1 trades/ }).click();
  await page.waitForURL((url) => url.pathname === '/journal/2026-11-05');
  await page.getByRole('link', { name: 'Open them in the positions list' }).click();
  await page.waitForURL((url) => url.pathname === '/positions' && url.search === '?from=2026-11-05&to=2026-11-05&dateBy=closed');
  await page.getByTestId('closed-day').waitFor();
  await page.getByRole('row', { name: /MSFT/ }).waitFor();
  assert.equal(await page.getByRole('row', { name: /AAPL|TSLA/ }).count(), 0);
  await screenshot('positions-closed-day');
});

step('filters the dashboard by result: winners keep every trade, losers none, and the positions list follows', async () => {
  await page.goto('/'); // the menu would carry the last step's filter
  const tiles = page.getByLabel('Statistics', { exact: true });
  await tiles.getByText('3 (3W / 0L / 0BE)').waitFor();
  const filters = page.getByRole('search', { name: 'Filter statistics' });
  await filters.getByText('Wins, losses and breakevens').click();
  await filters.getByRole('checkbox', { name: 'Winners' }).click(); // the address, then the box, follows
  await page.waitForURL(/[?&]result=win(&|$)/);
  await tiles.getByText('3 (3W / 0L / 0BE)').waitFor();
  await filters.getByRole('checkbox', { name: 'Winners' }).click();
  await filters.getByRole('checkbox', { name: 'Losers' }).click();
  await page.waitForURL(/[?&]result=loss(&|$)/);
  await page.getByRole('gridcell', { name: '2026-11-05: no trades' }).waitFor();
  assert.equal(await tiles.getByText('3 (3W / 0L / 0BE)').count(), 0);
  await screenshot('dashboard-losers');
  await nav('Positions');
  await page.waitForURL(/\/positions\?result=loss$/);
  await page.getByText('No positions match.').waitFor();
  await page.goto('/');
  await tiles.getByText('3 (3W / 0L / 0BE)').waitFor();
});

step('adds a EUR account, and previews and confirms exchange-rate changes', async () => {
  await nav('Accounts');
  const form = page.getByRole('form', { name: 'New account' });
  await form.getByLabel('Account name').fill('Euro swing');
  await form.getByLabel('Currency').fill('EUR');
  await form.getByLabel('Trading-day time zone').fill('Europe/Berlin');
  await form.getByLabel('Starting balance').fill('10000');
  await form.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('row', { name: /Euro swing/ }).waitFor();

  // The dashboard cannot add EUR to a USD total yet, and links the missing rate.
  await nav('Dashboard');
  await page.getByRole('status').filter({ hasText: 'add the exchange rate for' }).first().getByRole('link', { name: 'EUR/USD' }).click();
  await page.getByRole('heading', { name: 'Exchange rates' }).waitFor();
  assert.equal(await page.getByLabel('Base currency').inputValue(), 'EUR');
  assert.equal(await page.getByLabel('Quote currency').inputValue(), 'USD');
  await page.getByLabel('Effective date').fill('2026-01-01');

  // The first rate makes a total where there was none: nothing moves, nothing to confirm.
  await page.getByLabel('Rate', { exact: true }).fill('1.10');
  await page.getByRole('button', { name: 'Save rate' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved EUR/USD 1.1 from 2026-01-01.' }).waitFor();
  const confirm = page.getByRole('alertdialog', { name: 'Confirm a large change to your total' });
  assert.equal(await confirm.count(), 0);

  // A move over 5% asks again; cancelling saves nothing.
  await page.getByLabel('Rate', { exact: true }).fill('2.00');
  await page.getByRole('button', { name: 'Save rate' }).click();
  await confirm.waitFor();
  assert.equal(await confirm.getByTestId('preview-before').innerText(), '$36,230.00');
  assert.equal(await confirm.getByTestId('preview-after').innerText(), '$45,230.00');
  await screenshot('exchange-rate-confirm');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'detached' });

  // A small move is saved at once.
  await page.getByLabel('Rate', { exact: true }).fill('1.12');
  await page.getByRole('button', { name: 'Save rate' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved EUR/USD 1.12 from 2026-01-01.' }).waitFor();
  assert.equal(await confirm.count(), 0);
  const { items } = await api('/api/exchange-rates');
  assert.deepEqual(items.map((r) => [r.baseCurrency, r.quoteCurrency, r.effectiveDate, r.rate]), [['EUR', 'USD', '2026-01-01', '1.12']]);
  await screenshot('exchange-rates');

  await nav('Dashboard');
  await page.getByTestId('dashboard-total').filter({ hasText: '$36,430.00' }).waitFor();
});

step('becomes the first admin at a restart with SEED_ADMIN_EMAIL, and pages through the users', async () => {
  await page.goto('/admin');
  await page.getByRole('alert').filter({ hasText: 'This page is for administrators only.' }).waitFor();
  assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).count(), 0);

  // 30 more users, older than the trader, straight into the database.
  execFileSync('psql', [stack.db.url, '-qc', `INSERT INTO users (email, password_hash, created_at)
    SELECT 'user' || i || '@example.com', 'not a hash', now() - i * interval '1 hour' FROM generate_series(1, 30) AS i`]);
  await stack.restartAPI({ SEED_ADMIN_EMAIL: email.toUpperCase() });

  await page.reload();
  await nav('Admin');
  const table = page.getByRole('table', { name: 'Users, newest first' });
  await table.waitFor();
  const rows = table.locator('tbody tr');
  assert.equal(await rows.count(), 25);
  // The trader is the only admin: no button disables themselves; demoting is offered (and refused as the last).
  assert.match(await rows.first().innerText(), new RegExp(`^${email.replace(/[.]/g, '\\.')}\\s.*\\sadmin\\s+active\\s+Remove admin$`));
  await page.getByRole('region', { name: 'Usage' }).getByText('31 (1 admin, 0 disabled)').waitFor();
  await screenshot('admin');
  await page.getByRole('button', { name: 'Load more users' }).click();
  await page.getByText('31 users shown').waitFor();
  assert.equal(await rows.count(), 31);
  assert.match(await rows.last().innerText(), /^user30@example\.com\s/);
  assert.equal(await page.getByRole('button', { name: 'Load more users' }).count(), 0);
});

step('an admin opens a user detail page from the list, and reads the usage over a chosen period', async () => {
  const { accounts } = await api('/api/users/me/plan').then((p) => ({ accounts: p.limits.find((l) => l.name === 'accounts').used }));
  await page.getByRole('button', { name: `Details of ${email}` }).click();
  await page.getByRole('heading', { name: email, level: 1 }).waitFor();
  const usage = page.getByRole('region', { name: 'Usage and storage' });
  await usage.getByText(`${accounts} active, 0 archived`).waitFor();
  await usage.getByRole('table', { name: 'Free plan limits' }).getByRole('row', { name: /^Positions/ }).waitFor();
  const signIns = page.getByRole('region', { name: 'Sign-ins' });
  await signIns.getByRole('table', { name: 'Signed-in sessions' }).locator('tbody tr').first().waitFor();
  assert.doesNotMatch(await page.locator('main').innerText(), /password hash|token/i);
  await screenshot('admin-user-detail');
  await page.getByRole('button', { name: '← All users' }).click();

  const period = page.getByRole('region', { name: 'Usage' });
  await period.getByLabel('From (UTC day)').fill('2020-01-01');
  await period.getByLabel('To (UTC day, included)').fill('2019-12-31');
  await period.getByRole('alert').filter({ hasText: 'Choose a first day on or before the last day.' }).waitFor();
  await period.getByLabel('To (UTC day, included)').fill(new Date().toISOString().slice(0, 10));
  // Everyone signed up in the period: the 30 older users and the trader.
  await period.locator('dl[aria-label="Figures of the period"] dt:text-is("New users") + dd').filter({ hasText: /^31$/ }).waitFor();
  const top = period.getByRole('table', { name: 'Top users by positions recorded in the period' });
  await top.getByRole('button', { name: email }).waitFor();
  await screenshot('admin-usage-period');
  await top.getByRole('button', { name: email }).click();
  await page.getByRole('heading', { name: email, level: 1 }).waitFor();
  await page.getByRole('button', { name: '← All users' }).click();
});

step('a free user at the operator\'s account limit is told in words, and Settings shows the plan; nothing else changes', async () => {
  const before = await api('/api/users/me/plan');
  const accounts = before.limits.find((l) => l.name === 'accounts').used;
  assert.equal(before.plan, 'free');
  await stack.restartAPI({ FREE_MAX_ACCOUNTS: String(accounts) });
  try {
    await page.reload();
    await nav('Accounts');
    const form = page.getByRole('form', { name: 'New account' });
    await form.getByLabel('Account name').fill('One too many');
    await form.getByLabel('Currency').fill('USD');
    await form.getByRole('button', { name: 'Create account' }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: `The free plan allows ${accounts} active accounts and you have ${accounts}. Archive or delete an account, or ask this journal's administrator for a higher limit, to add another.` })
      .waitFor();
    await screenshot('plan-limit-reached');
    assert.equal(await page.getByRole('row', { name: /One too many/ }).count(), 0);
    await form.getByLabel('Account name').fill('');

    await nav('Settings');
    const plan = page.getByRole('region', { name: 'Your plan' });
    await plan.getByText('You are on the free plan.', { exact: true }).waitFor();
    await plan.getByRole('row', { name: /^Active accounts/ }).filter({ hasText: new RegExp(`${accounts}\\s*${accounts}\\s*no limit`) }).waitFor();
    await plan.getByRole('status').filter({ hasText: "You have reached the free plan's limit of active accounts." }).waitFor();
    await screenshot('settings-plan');
  } finally {
    await stack.restartAPI({});
    await page.reload();
  }
});

step('changes the password in Settings → Security, which signs out the other browsers, after signing out one from the list', async () => {
  // Two more browsers signed in as the trader: a phone and a tablet.
  const devices = {
    phone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
    tablet: 'Mozilla/5.0 (Linux; Android 14; Pixel Tablet) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  };
  const others = {};
  for (const [name, userAgent] of Object.entries(devices)) {
    others[name] = await browser.newContext({ baseURL: stack.url, userAgent });
    const res = await others[name].request.post('/api/auth/login', { data: { email, password } });
    assert.equal(res.status(), 200, `${name} sign-in: ${await res.text()}`);
  }
  const signedIn = async (name) => (await others[name].request.get('/api/auth/me')).status() === 200;
  try {
    await nav('Settings');
    await page.getByRole('link', { name: 'Security: password, email address and signed-in devices' }).click();
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    // The wrong password of an earlier step is told after the next sign-in, until dismissed.
    const notice = page.getByRole('alert').filter({ hasText: /failed sign-in attempts? since your last sign-in/ });
    await notice.waitFor();
    await screenshot('settings-security-failed-sign-ins');
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'detached' });
    const rows = page.getByRole('table', { name: 'Signed-in devices, most recently active first' }).locator('tbody tr');
    await page.getByRole('rowheader', { name: 'Safari on iPhone' }).waitFor();
    assert.equal(await rows.count(), 3);
    await page.getByRole('rowheader', { name: /this device/ }).waitFor();

    // Sign out the tablet, after the browser's confirmation.
    await page.getByRole('button', { name: /^Sign out Chrome on Android, signed in / }).click();
    await answer(page, true);
    await page.getByRole('status').filter({ hasText: 'That device is signed out.' }).waitFor();
    await page.getByRole('rowheader', { name: 'Chrome on Android' }).waitFor({ state: 'detached' });
    assert.equal(await rows.count(), 2);
    assert.equal(await signedIn('tablet'), false, 'the tablet is still signed in');
    assert.equal(await signedIn('phone'), true, 'the phone was signed out too');

    // A wrong current password is said under its field; then the change.
    const form = page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill('not my password');
    await form.getByLabel('New password').fill('a new correct horse battery');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('This is not your current password: check it and try again.').waitFor();
    // A token made for a script goes with the change when the form is asked to.
    const made = await page.request.post('/api/auth/tokens', { data: { name: 'script', scopes: ['read'] } });
    assert.equal(made.status(), 201, await made.text());
    const { secret } = await made.json();
    const script = await playwrightRequest.newContext({ baseURL: stack.url, extraHTTPHeaders: { Authorization: `Bearer ${secret}` } });
    const withToken = async () => (await script.get('/api/accounts')).status();
    assert.equal(await withToken(), 200);
    await form.getByLabel('Current password').fill(password);
    await form.getByRole('checkbox', { name: 'Also revoke my API tokens' }).check();
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByRole('status').filter({ hasText: 'Your password is changed. Your other signed-in device was signed out. 1 API token revoked.' }).waitFor();
    assert.equal(await withToken(), 401, 'the API token still works after the change revoked it');
    await script.dispose();
    password = 'a new correct horse battery';
    assert.equal(await signedIn('phone'), false, 'the phone is still signed in');
    await page.getByRole('rowheader', { name: 'Safari on iPhone' }).waitFor({ state: 'detached' });
    assert.equal(await rows.count(), 1);
    await api('/api/auth/me'); // this browser stays signed in
    await screenshot('settings-security');
  } finally {
    for (const c of Object.values(others)) await c.close();
  }
});

step('fits a phone: the menu opens the navigation, and no page scrolls sideways', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    for (const pathname of ['/', '/positions', '/journal', '/calculator', '/calculator/strategy', '/strategies', '/import', '/exchange-rates', '/admin']) {
      await page.goto(pathname);
      await page.getByRole('heading', { level: 1 }).waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `${pathname} is ${width} px wide at a 390 px viewport`);
    }
    // The positions list keeps net P&L and R in view; the optional columns give way.
    await page.goto('/positions');
    const head = page.getByRole('columnheader', { name: 'R', exact: true });
    const box = await head.boundingBox();
    assert.ok(box && box.x + box.width <= 390, `the R column is at ${box?.x} px on a 390 px phone`);
    await page.getByRole('columnheader', { name: 'Net P&L' }).waitFor();
    // The calendar's amounts are short enough for their cells.
    await page.goto('/');
    const cells = page.locator('.calendar .day.win, .calendar .day.loss');
    await cells.first().waitFor();
    const clipped = await cells.evaluateAll((els) => els.some((el) => [...el.querySelectorAll('div')].some((d) => d.scrollWidth > d.clientWidth + 1)));
    assert.equal(clipped, false, 'a calendar amount is cut off on a phone');
    await page.goto('/');
    const menu = page.getByRole('button', { name: 'Menu' });
    assert.equal(await menu.getAttribute('aria-expanded'), 'false');
    await menu.click();
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Calculator' }).click();
    await page.getByRole('heading', { name: 'Position size calculator' }).waitFor();
    await page.goto('/');
    await page.getByTestId('dashboard-total').waitFor();
    await screenshot('dashboard-phone');
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

step('fits a laptop: the navigation is one row at 1366 px, with every link of an admin', async () => {
  await page.setViewportSize({ width: 1366, height: 768 });
  try {
    await page.goto('/');
    await page.getByTestId('dashboard-total').waitFor();
    const links = page.getByRole('navigation', { name: 'Main' }).getByRole('link');
    assert.ok((await links.count()) >= 12, `${await links.count()} links`);
    const tops = new Set((await links.evaluateAll((as) => as.map((a) => Math.round(a.getBoundingClientRect().top)))));
    assert.equal(tops.size, 1, `the navigation wraps onto ${tops.size} rows at 1366 px`);
    await screenshot('navigation-1366');
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

step('records a futures position: the multiplier a root without a point value needs, then contract and P&L', async () => {
  await page.goto('/positions/new');
  await page.getByRole('heading', { name: 'New position' }).waitFor();
  await page.getByLabel('Account').selectOption({ label: 'Swing (USD)' });
  await page.getByLabel('Symbol', { exact: true }).fill('XYZZ26');
  await page.getByLabel('Asset type').selectOption('future');
  await page.getByLabel('Entry price').fill('42000');
  await page.getByLabel('Quantity', { exact: true }).fill('2');
  await page.getByLabel('Fees', { exact: true }).fill('0');
  await page.getByLabel('Filled at', { exact: true }).fill('2026-11-09T10:00');
  await page.getByRole('button', { name: 'Add exit' }).click();
  await page.getByLabel('Exit price (fill 2)').fill('42100');
  await page.getByLabel('Quantity (fill 2)').fill('2');
  await page.getByLabel('Fees (fill 2)').fill('0');
  await page.getByLabel('Filled at (fill 2)').fill('2026-11-09T11:00');
  await page.getByRole('button', { name: 'Save position' }).click();
  // XYZ has no built-in point value: the API asks for it on the multiplier field.
  const multiplier = page.getByLabel('Multiplier (point value)');
  await page.locator('.field-error').filter({ hasText: /root XYZ/ }).waitFor();
  assert.equal(await multiplier.getAttribute('aria-invalid'), 'true');
  await multiplier.fill('0.5');
  await screenshot('position-new-future');
  await page.getByRole('button', { name: 'Save position' }).click();
  await page.waitForURL(/\/positions\/[0-9a-f-]{36}$/);
  await page.getByRole('heading', { name: /XYZZ26/ }).waitFor();
  await page.getByText(/XYZ Dec 2026 · ×0\.5/).waitFor();
  // (42100 - 42000) x 2 contracts x 0.5 per point.
  assert.equal((await page.getByTestId('net-pnl').innerText()).trim(), '$100.00');
  await screenshot('position-future');

  await nav('Positions');
  const row = page.getByRole('row', { name: /XYZZ26/ });
  await row.waitFor();
  assert.match(await row.innerText(), /XYZ Dec 2026 · ×0\.5/);
  const { items } = await api('/api/positions?symbol=XYZZ26');
  assert.deepEqual(items.map((p) => [p.assetType, p.underlying, p.contractMonth, p.multiplier]), [['future', 'XYZ', '2026-12', 0.5]]);
});

step('records a futures option: the future\'s point value, its label and P&L', async () => {
  await page.goto('/positions/new');
  await page.getByRole('heading', { name: 'New position' }).waitFor();
  await page.getByLabel('Account').selectOption({ label: 'Swing (USD)' });
  await page.getByLabel('Symbol', { exact: true }).fill('/ESZ6 C6000');
  await page.getByLabel('Asset type').selectOption('future_option');
  await page.getByText(/Future, expiry \(YYMMDD\), C or P and strike/).waitFor();
  await page.getByLabel('Entry price').fill('50.25');
  await page.getByLabel('Quantity', { exact: true }).fill('1');
  await page.getByLabel('Fees', { exact: true }).fill('0');
  await page.getByLabel('Filled at', { exact: true }).fill('2026-11-09T10:00');
  await page.getByRole('button', { name: 'Add exit' }).click();
  await page.getByLabel('Exit price (fill 2)').fill('62.50');
  await page.getByLabel('Quantity (fill 2)').fill('1');
  await page.getByLabel('Fees (fill 2)').fill('0');
  await page.getByLabel('Filled at (fill 2)').fill('2026-11-09T11:00');
  await screenshot('position-new-future-option');
  await page.getByRole('button', { name: 'Save position' }).click();
  await page.waitForURL(/\/positions\/[0-9a-f-]{36}$/);
  await page.getByText(/ES Dec 2026 6000 call · ×50/).waitFor();
  // (62.50 - 50.25) x 1 contract x 50 a point.
  assert.equal((await page.getByTestId('net-pnl').innerText()).trim(), '$612.50');
  await screenshot('position-future-option');
  const { items } = await api('/api/positions?assetType=future_option');
  assert.deepEqual(items.map((p) => [p.symbol, p.optionExpiry, p.multiplier]), [['./ESZ26 261218C6000', '2026-12-18', 50]]);
});

step('records a USD/JPY trade through the form: 1 standard lot, its P&L in yen beside the dollars', async () => {
  await page.goto('/positions/new');
  await page.getByRole('heading', { name: 'New position' }).waitFor();
  await page.getByLabel('Account').selectOption({ label: 'Swing (USD)' });
  await page.getByLabel('Symbol', { exact: true }).fill('USDJPY');
  await page.getByLabel('Asset type').selectOption('forex');
  await page.getByText(/Currency pair, e\.g\. EUR\/USD/).waitFor();
  await page.getByLabel('Entry price').fill('150.00');
  // Lots, turned into units of the base as the API takes them.
  assert.equal(await page.getByLabel('Quantity in', { exact: true }).inputValue(), 'standard');
  await page.getByLabel('Quantity', { exact: true }).fill('1');
  await page.getByText('= 100,000 units of USD.').first().waitFor();
  await page.getByLabel('Fees', { exact: true }).fill('0');
  await page.getByLabel('Filled at', { exact: true }).fill('2026-11-10T10:00');
  // The rate, in words, is left to the journal: the account is in the pair's base, so 1 / the exit price.
  assert.equal(await page.getByLabel('Value of 1 JPY in USD', { exact: true }).inputValue(), '');
  await page.getByRole('button', { name: 'Add exit' }).click();
  await page.getByLabel('Exit price (fill 2)').fill('151.00');
  await page.getByLabel('Quantity (fill 2)').fill('1');
  await page.getByLabel('Fees (fill 2)').fill('0');
  await page.getByLabel('Filled at (fill 2)').fill('2026-11-10T11:00');
  await screenshot('position-new-forex');
  await page.getByRole('button', { name: 'Save position' }).click();
  await page.waitForURL(/\/positions\/[0-9a-f-]{36}$/);
  await page.getByRole('heading', { name: /USD\/JPY/ }).waitFor();
  // (151.00 - 150.00) x 100,000 = 100,000 JPY, at 1/151 USD a yen: 662.25 USD.
  assert.equal((await page.getByTestId('quote-pnl').innerText()).trim(), '+100,000 JPY · +662.25 USD');
  assert.equal((await page.getByTestId('net-pnl').innerText()).trim(), '$662.25');
  assert.equal(await page.getByTestId('awaiting-rate').count(), 0);
  await screenshot('position-forex');

  await nav('Positions');
  const row = page.getByRole('row', { name: /USD\/JPY/ });
  await row.waitFor();
  assert.match(await row.innerText(), /\$662\.25\s+\+100,000 JPY/);
  const { items } = await api('/api/positions?assetType=forex');
  assert.deepEqual(
    items.map((p) => [p.symbol, p.entryQuantity, p.quoteCurrency, p.quoteGrossPnl, p.netPnl, p.awaitingRate]),
    [['USD/JPY', '100000', 'JPY', '100000.0000', '662.2517', false]],
  );
});

/**
 * fakeProvider is an OpenAI-compatible chat-completions server on loopback
 * that streams the first piece of its answer, then holds the rest until
 * release() (or 15 s): the page can only show the first piece before the
 * rest if every hop streams it unbuffered.
 */
async function fakeProvider() {
  let release;
  const released = new Promise((resolve) => (release = resolve));
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      requests.push({ path: req.url, body: JSON.parse(body) });
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const send = (data) => res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
      send({ choices: [{ delta: { content: 'Your Monday trades ' } }] });
      await Promise.race([released, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      send({ choices: [{ delta: { content: 'lose on <b>wide</b> stops.' }, finish_reason: 'stop' }] });
      send({ choices: [], usage: { prompt_tokens: 1000, completion_tokens: 200 } });
      send('[DONE]');
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests, release, close: () => new Promise((resolve) => server.close(resolve)) };
}

step('asks the assistant: the answer streams in through nginx, then the credits charged', async () => {
  assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Assistant' }).count(), 0);
  const provider = await fakeProvider();
  try {
    await stack.restartAPI({
      ASSISTANT_API_KEY: 'test-key',
      ASSISTANT_MODEL: 'fake-model',
      ASSISTANT_BASE_URL: provider.url,
      ASSISTANT_INPUT_PRICE_PER_MTOK: '150000',
      ASSISTANT_OUTPUT_PRICE_PER_MTOK: '600000',
    });
    // Billing is off here: the credits a turn spends are granted straight into the wallet.
    execFileSync('psql', [stack.db.url, '-qc', `WITH u AS (SELECT id FROM users WHERE email = '${email}'),
      w AS (INSERT INTO wallets (user_id, balance) SELECT id, 1000000 FROM u RETURNING user_id)
      INSERT INTO wallet_transactions (user_id, kind, amount, balance_after) SELECT user_id, 'adjustment', 1000000, 1000000 FROM w`]);
    await page.goto('/');
    await nav('Assistant');
    await page.getByRole('heading', { name: 'New conversation' }).waitFor();
    await page.getByLabel('Your question').fill('Why do my Monday trades lose?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const messages = page.getByRole('list', { name: 'Messages' });
    await messages.getByText('Your Monday trades').waitFor();
    assert.equal(await messages.getByText(/wide/).count(), 0);
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    await page.waitForURL(/\/assistant\/[0-9a-f-]{36}$/);
    provider.release();
    // The model's markup stays text.
    await messages.getByText('Your Monday trades lose on <b>wide</b> stops.').waitFor();
    await page.getByText(/\d+ credits charged\./).waitFor();
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: 'Why do my Monday trades lose?' }).waitFor();
    await screenshot('assistant');
    assert.equal(provider.requests.length, 1);
    assert.equal(provider.requests[0].path, '/v1/chat/completions');
    assert.equal(provider.requests[0].body.stream, true);
    const { items } = await api('/api/assistant/conversations');
    assert.deepEqual(items.map((c) => c.title), ['Why do my Monday trades lose?']);

    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.reload();
      await page.getByRole('list', { name: 'Messages' }).getByText('Your Monday trades lose on <b>wide</b> stops.').waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the assistant is ${width} px wide at a 390 px viewport`);
      await screenshot('assistant-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  } finally {
    provider.release();
    await provider.close();
  }
});

/**
 * fakeModels speaks the Anthropic Messages API (streamed events): the first
 * request of a turn asks for the statistics tool, the next one answers in
 * text. It records each request's path, x-api-key and body.
 */
async function fakeModels() {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const parsed = JSON.parse(body);
      requests.push({ path: req.url, key: req.headers['x-api-key'], version: req.headers['anthropic-version'], body: parsed });
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      send('message_start', { message: { usage: { input_tokens: 800, output_tokens: 1 } } });
      const answered = parsed.messages.some((m) => m.content.some((b) => b.type === 'tool_result'));
      if (answered) {
        send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
        send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Your long trades carry the month.' } });
        send('content_block_stop', { index: 0 });
      } else {
        send('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_e2e', name: 'statistics', input: {} } });
        send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"side":' } });
        send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '"long"}' } });
        send('content_block_stop', { index: 0 });
      }
      send('message_delta', { delta: { stop_reason: answered ? 'end_turn' : 'tool_use' }, usage: { output_tokens: 40 } });
      send('message_stop', {});
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

step('picks a model, lets the assistant read the journal, attaches a chart, and sees the tool it called with its result', async () => {
  const provider = await fakeModels();
  try {
    await stack.restartAPI({
      ASSISTANT_API_KEY: 'test-key',
      ASSISTANT_ANTHROPIC_API_KEY: 'test-anthropic-key',
      ASSISTANT_MODELS: JSON.stringify([
        { id: 'fake-model', provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', inputPricePerMtok: 150000, outputPricePerMtok: 600000 },
        { id: 'claude-fake', provider: 'anthropic', baseUrl: provider.url, inputPricePerMtok: 3000000, outputPricePerMtok: 15000000, images: true },
      ]),
    });
    await page.goto('/');
    await nav('Assistant');
    await page.getByRole('link', { name: 'New conversation' }).click();
    await page.getByRole('heading', { name: 'New conversation' }).waitFor();
    const consent = page.getByRole('checkbox', { name: 'Let the assistant read my journal' });
    assert.equal(await consent.isChecked(), false, 'journal access is off until the trader turns it on');
    await consent.click(); // a controlled box: it turns checked once the server has stored the consent
    await page.getByText(/Your statistics, positions, notes and day journal are sent/).waitFor();
    await page.getByLabel('Model').selectOption('claude-fake');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d6e3f30000000049454e44ae426082', 'hex');
    await page.getByLabel(/Attach a chart or screenshot/).setInputFiles({ name: 'chart.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('list', { name: 'Attached images' }).getByText('chart.png').waitFor();
    await page.getByLabel('Your question').fill('Which side carries my month?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const messages = page.getByRole('list', { name: 'Messages' });
    await messages.getByText('Your long trades carry the month.').waitFor();
    const tool = messages.getByText('Read your statistics');
    await tool.waitFor();
    await tool.click();
    await messages.getByText(/Statistics over closed positions|No closed positions yet/).waitFor();
    await messages.getByText('Asked with: {"side":"long"}').waitFor();
    await screenshot('assistant-tools');

    assert.equal(provider.requests.length, 2);
    const [first, second] = provider.requests;
    assert.equal(first.path, '/v1/messages');
    assert.equal(first.key, 'test-anthropic-key');
    assert.equal(first.version, '2023-06-01');
    assert.equal(first.body.model, 'claude-fake');
    const question = first.body.messages.at(-1).content;
    assert.ok(question.some((b) => b.type === 'image' && b.source.media_type === 'image/png' && b.source.data === png.toString('base64')), 'the chart reached the model as an image part');
    assert.ok(first.body.tools.some((t) => t.name === 'statistics'), 'the journal tools are offered with consent');
    assert.ok(second.body.messages.some((m) => m.content.some((b) => b.type === 'tool_result' && b.tool_use_id === 'toolu_e2e')));

    // The stored conversation keeps the call: a reload shows it again.
    await page.reload();
    await page.getByRole('list', { name: 'Messages' }).getByText('Read your statistics').waitFor();
  } finally {
    await provider.close();
  }
});

step('creates a persona and picks it for a conversation, searches the conversations by title, and reviews a trade from its page', async () => {
  const provider = await fakeProvider();
  provider.release(); // every answer whole at once
  try {
    await stack.restartAPI({
      ASSISTANT_API_KEY: 'test-key',
      ASSISTANT_MODEL: 'fake-model',
      ASSISTANT_BASE_URL: provider.url,
      ASSISTANT_INPUT_PRICE_PER_MTOK: '150000',
      ASSISTANT_OUTPUT_PRICE_PER_MTOK: '600000',
    });
    await page.goto('/assistant');
    const personas = page.getByRole('region', { name: 'Personas' });
    await personas.getByRole('button', { name: 'New persona' }).click();
    await personas.getByLabel('Name').fill('Risk coach');
    await personas.getByLabel('Instructions').fill('E2E-PERSONA: be blunt about risk.');
    await personas.getByRole('button', { name: 'Add persona' }).click();
    await personas.getByText('E2E-PERSONA: be blunt about risk.').waitFor();

    const talk = page.getByRole('region', { name: 'New conversation' });
    await talk.getByLabel('Persona', { exact: true }).selectOption({ label: 'Risk coach' });
    await talk.getByLabel('Your question').fill('How big are my AAPL losses?');
    await talk.getByRole('button', { name: 'Ask' }).click();
    await page.waitForURL(/\/assistant\/[0-9a-f-]{36}$/);
    await page.getByText(/\d+ credits charged\./).waitFor();
    const system = () => provider.requests.at(-1).body.messages[0].content;
    assert.match(system(), /E2E-PERSONA: be blunt about risk\./);
    assert.equal(await page.getByRole('region', { name: 'How big are my AAPL losses?' }).getByLabel('Persona', { exact: true }).inputValue(),
      (await api('/api/assistant/personas')).items.find((p) => p.name === 'Risk coach').id);

    const list = page.getByRole('navigation', { name: 'Conversations' });
    await list.getByRole('link', { name: 'Why do my Monday trades lose?' }).waitFor();
    await list.getByLabel('Search conversations').fill('aapl');
    await list.getByRole('link', { name: 'Why do my Monday trades lose?' }).waitFor({ state: 'detached' });
    await list.getByRole('link', { name: 'How big are my AAPL losses?' }).waitFor();
    await screenshot('assistant-personas-search');

    const { items } = await api('/api/positions?limit=1');
    const trade = items[0];
    await page.goto(`/positions/${trade.id}`);
    await page.getByRole('button', { name: 'Review this trade' }).click();
    await page.waitForURL(/\/assistant\/[0-9a-f-]{36}$/);
    const messages = page.getByRole('list', { name: 'Messages' });
    await messages.getByText(/^Review this trade: /).waitFor();
    await page.getByText(/\d+ credits charged\./).waitFor();
    await page.getByText('A review of one trade.').waitFor();
    assert.match(system(), /Review request: the trader asked for a review of this position/);
    assert.ok(system().includes(`${trade.symbol} ${trade.side}`), 'the reviewed position reaches the provider');
    const id = new URL(page.url()).pathname.split('/').at(-1);
    const { conversation } = await api(`/api/assistant/conversations/${id}`);
    assert.deepEqual(conversation.review, { kind: 'position', positionId: trade.id });
  } finally {
    await provider.close();
  }
});

step('takes the journal out as CSV and as a backup, restores the backup into a new account, and deletes that account', async () => {
  await nav('Settings');
  await page.getByRole('heading', { name: 'Take your data out' }).waitFor();
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export positions (CSV)' }).click()]);
  const csvPath = path.join(artifacts, 'positions.csv');
  await csv.saveAs(csvPath);
  assert.match(fs.readFileSync(csvPath, 'utf8'), /^Account,Filled At,Symbol,Asset Type,Side,Quantity,Price,Fees,Fee Asset,Rate,Multiplier\n/);
  const [backup] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download backup' }).click()]);
  const backupPath = path.join(artifacts, 'backup.zip');
  await backup.saveAs(backupPath);
  await page.getByRole('status').filter({ hasText: 'Backup saved.' }).waitFor();
  assert.match(backup.suggestedFilename(), /^tradejournal-backup-\d{4}-\d{2}-\d{2}\.zip$/);
  const mine = await api('/api/positions');

  // A second person restores the backup into their new, empty journal.
  const other = await browser.newContext({ baseURL: stack.url, timezoneId: timezone, viewport: { width: 1280, height: 900 } });
  try {
    const p = await other.newPage();
    p.setDefaultTimeout(10_000);
    const otherEmail = `restorer-${Date.now()}@example.com`;
    await p.goto('/signup');
    await p.getByLabel('Email').fill(otherEmail);
    await p.getByLabel('Password').fill(password);
    await p.getByRole('button', { name: 'Sign up' }).click();
    await p.waitForURL('**/accounts?welcome=1');
    await p.goto('/settings');
    await p.getByLabel('Backup file').setInputFiles(backupPath);
    await p.getByRole('button', { name: 'Restore' }).click();
    await p.getByRole('status').filter({ hasText: /^Restored \d+ accounts/ }).waitFor({ timeout: 30_000 });
    const restored = await (await p.request.get('/api/positions')).json();
    assert.equal(restored.items.length, mine.items.length);
    assert.deepEqual(restored.items.map((x) => x.netPnl).sort(), mine.items.map((x) => x.netPnl).sort());
    // A second restore is refused in words, and writes nothing.
    await p.getByRole('button', { name: 'Restore' }).click();
    await p.getByRole('alert').filter({ hasText: 'only into an empty journal' }).waitFor();
    await p.screenshot({ path: path.join(artifacts, 'your-data.png'), fullPage: true });

    await p.getByLabel('Password', { exact: true }).fill(password);
    await p.getByLabel(/Type your email/).fill(otherEmail);
    await p.getByRole('button', { name: 'Delete my account' }).click();
    await answer(p, true);
    await p.waitForURL('**/signin');
    const login = await p.request.post('/api/auth/login', { data: { email: otherEmail, password } });
    assert.equal(login.status(), 401);
  } finally {
    await other.close();
  }
});

/** themeWalk opens each path in the light and the dark theme and gathers the texts below their contrast threshold. */
async function themeWalk(p, paths, ready) {
  const found = [];
  for (const scheme of ['light', 'dark']) {
    await p.emulateMedia({ colorScheme: scheme });
    for (const pathname of paths) {
      await p.goto(pathname);
      await ready(p, pathname);
      for (const line of await contrastProblems(p)) found.push(`${scheme} ${pathname}: ${line}`);
    }
  }
  await p.emulateMedia({ colorScheme: 'light' });
  return found;
}

step('splits a broker file of two accounts across two journal accounts in one import', async () => {
  await nav('Accounts');
  const form = page.getByRole('form', { name: 'New account' });
  await form.getByLabel('Account name').fill('Prop');
  await form.getByLabel('Currency').fill('USD');
  await form.getByLabel('Trading-day time zone').fill('America/New_York');
  await form.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('row', { name: /^Prop USD/ }).waitFor();

  await nav('Import');
  await page.getByLabel('Preset', { exact: true }).selectOption({ label: 'NinjaTrader 8: executions' });
  await page.getByLabel('CSV file').setInputFiles(
    csv([
      'Instrument,Action,Quantity,Price,Time,E/X,Commission,Account',
      'MES 03-25,Buy,1,6000,2/3/2025 9:31:05 AM,Entry,$0.62,Sim101',
      'MES 03-25,Sell,1,6004,2/3/2025 9:41:05 AM,Exit,$0.62,Sim101',
      'MES 03-25,Sell,2,6010,2/3/2025 9:45:00 AM,Entry,$1.24,APEX-22',
      'MES 03-25,Buy,2,6001,2/3/2025 9:55:00 AM,Exit,$1.24,APEX-22',
    ]),
  );
  await page.getByRole('button', { name: 'Preview import' }).click();
  // The file's accounts are listed; each goes to one of the journal's.
  const accountsInFile = page.getByRole('group', { name: 'Accounts in the file' });
  await accountsInFile.waitFor();
  await accountsInFile.getByLabel('Sim101 (2 rows)').selectOption({ label: 'Swing (USD)' });
  await accountsInFile.getByLabel('APEX-22 (2 rows)').selectOption({ label: 'Prop (USD)' });
  await page.getByRole('button', { name: 'Preview import' }).click();
  const preview = page.getByRole('region', { name: 'Preview' });
  await preview.getByRole('button', { name: 'Import' }).waitFor();
  // MES 4 points x 5 less 1.24, and a short of 9 points x 2 x 5 less 2.48.
  assert.match(await preview.innerText(), /Positions\s+2 new, 0 continued, 0 left open/);
  assert.match(await preview.innerText(), /Net P&L\s+\$106\.28/);
  await screenshot('import-accounts');
  await preview.getByRole('button', { name: 'Import' }).click();
  const imported = page.getByRole('status').filter({ hasText: 'Imported' });
  await imported.waitFor();
  assert.match(await imported.innerText(), /Swing: 1 new and 0 continued positions, 2 fills/);
  assert.match(await imported.innerText(), /Prop: 1 new and 0 continued positions, 2 fills/);

  const { items: accounts } = await api('/api/accounts');
  const prop = accounts.find((a) => a.name === 'Prop');
  const { items } = await api(`/api/positions?accountId=${prop.id}`);
  assert.deepEqual(items.map((p) => [p.symbol, p.side, p.netPnl]), [['MESH25', 'short', '87.5200']]);
});

step('writes a day\'s journal from the calendar: the plan saves itself, leaving unsaved text asks first, and the Journal finds it', async () => {
  await nav('Dashboard');
  await page.getByRole('gridcell', { name: /^2026-11-05: \$108\.00, 1 trades/ }).click();
  await page.waitForURL((url) => url.pathname === '/journal/2026-11-05');
  await page.getByLabel('Figures in USD').getByText('$108.00').first().waitFor();
  await page.getByRole('region', { name: 'Positions' }).getByRole('link', { name: 'MSFT' }).waitFor();
  const plan = page.getByLabel('Pre-market plan');
  await plan.fill('Only the **opening range** breakout on MSFT.');
  await page.getByText('All changes saved.').waitFor();

  // Unsaved text: leaving asks first; staying keeps it, and it saves.
  await page.getByLabel('Notes', { exact: true }).pressSequentially('Held the runner.', { delay: 20 });
  await nav('Positions');
  const ask = page.getByRole('alertdialog', { name: 'Unsaved notes' });
  await ask.waitFor();
  assert.equal(new URL(page.url()).pathname, '/journal/2026-11-05');
  await ask.getByRole('button', { name: 'Stay and keep them' }).click();
  await page.getByText('All changes saved.').waitFor();
  await page.getByRole('button', { name: 'Preview the pre-market plan' }).click();
  await page.getByLabel('Pre-market plan, as it reads').locator('strong', { hasText: 'opening range' }).waitFor();
  await screenshot('journal-day');

  await page.reload();
  await page.getByLabel('Notes', { exact: true }).waitFor();
  assert.equal(await page.getByLabel('Notes', { exact: true }).inputValue(), 'Held the runner.');
  assert.equal(await page.getByLabel('Pre-market plan').inputValue(), 'Only the **opening range** breakout on MSFT.');

  // The Journal lists the day and searches every note: the day's plan, a position's notes.
  await nav('Journal');
  await page.waitForURL(/\/journal$/);
  await page.getByRole('heading', { level: 1, name: 'Journal', exact: true }).waitFor();
  await page.getByRole('row', { name: /Nov 5, 2026.*\$108\.00.*Held the runner/ }).waitFor();
  await page.getByLabel('Search your notes').fill('OPENING range');
  await page.waitForURL(/\?q=OPENING\+range$/);
  const found = page.getByRole('row', { name: /Nov 5, 2026/ });
  await found.locator('mark', { hasText: 'opening' }).waitFor();
  assert.equal(await page.getByRole('row').count(), 2);
  await page.getByLabel('Search your notes').fill('breakout over');
  await page.getByRole('row', { name: /Nov 3, 2026/ }).getByRole('link', { name: 'AAPL' }).waitFor();
  await screenshot('journal-search');
});

step('builds an iron condor in the options strategy builder, and reads its max profit and loss and the payoff', async () => {
  await nav('Calculator');
  await page.getByRole('navigation', { name: 'Calculators' }).getByRole('link', { name: 'Options strategy' }).click();
  await page.getByRole('heading', { level: 1, name: 'Options strategy' }).waitFor();
  await page.getByLabel('Strategy', { exact: true }).selectOption({ label: 'Iron condor' });
  await page.getByRole('group', { name: 'Template' }).getByLabel('Expiry').fill('2027-01-15');
  for (const [n, strike, price] of [
    [1, '90', '1.00'],
    [2, '95', '2.50'],
    [3, '105', '2.40'],
    [4, '110', '0.90'],
  ]) {
    const leg = page.getByRole('group', { name: new RegExp(`^Leg ${n}:`) });
    await leg.getByLabel('Strike').fill(strike);
    await leg.getByLabel('Price per share').fill(price);
  }
  // A credit of 2.50 + 2.40 - 1.00 - 0.90 = 3.00 a share: 300 kept between the short strikes, 500 - 300 lost past a wing.
  await page.getByTestId('strategy-name').filter({ hasText: 'Short iron condor' }).waitFor();
  assert.equal(await page.getByTestId('net-debit').innerText(), '300.00');
  assert.equal(await page.getByTestId('max-profit').innerText(), '300.00');
  assert.equal(await page.getByTestId('max-loss').innerText(), '200.00');
  assert.equal(await page.getByTestId('breakevens').innerText(), '92.00 and 108.00');
  await page.getByTestId('payoff-chart').locator('canvas').waitFor();
  await screenshot('calculator-strategy');
  // Recorded as a trade: four positions and one strategy, with the same figures.
  const { items: accounts } = await api('/api/accounts');
  const record = page.getByRole('form', { name: 'Record this trade' });
  await record.getByLabel('Account').selectOption({ label: accounts.find((a) => a.currency === 'USD').name });
  await record.getByLabel('Underlying').fill('SPY');
  await record.getByRole('button', { name: 'Record the trade' }).click();
  await page.getByRole('heading', { level: 1, name: /Short iron condor/ }).waitFor();
  assert.match(await page.getByLabel('Figures').innerText(), /Max loss\s+\$200\.00/);
});

step('groups four option positions into a strategy, and reads what the legs make as one trade', async () => {
  const { items: accounts } = await api('/api/accounts');
  const account = accounts.find((a) => a.currency === 'USD');
  // A short iron condor on SPY, June 2027: puts 90/95 and calls 105/110 for a credit of 2.00 a share.
  for (const [symbol, side, price] of [
    ['SPY   270618P00095000', 'short', '2.00'],
    ['SPY   270618P00090000', 'long', '1.00'],
    ['SPY   270618C00105000', 'short', '2.00'],
    ['SPY   270618C00110000', 'long', '1.00'],
  ]) {
    const res = await page.request.post('/api/positions', {
      data: { accountId: account.id, symbol, assetType: 'option', side, fills: [{ type: 'entry', price, quantity: '1', fees: '0', filledAt: '2026-06-01T14:00:00Z' }] },
    });
    assert.equal(res.status(), 201, await res.text());
  }
  await nav('Strategies');
  await page.getByRole('heading', { level: 1, name: 'Strategies' }).waitFor();
  const form = page.getByRole('form', { name: 'Group positions as a strategy' });
  await form.getByLabel('Account').selectOption({ label: account.name });
  await form.getByLabel('Underlying').fill('SPY');
  for (const leg of ['SPY   270618P00095000', 'SPY   270618P00090000', 'SPY   270618C00105000', 'SPY   270618C00110000']) {
    await form.getByRole('checkbox', { name: new RegExp(leg.replace(/ +/, '\\s+')) }).check();
  }
  await form.getByRole('button', { name: 'Group as a strategy' }).click();
  await page.getByRole('heading', { level: 1, name: /Short iron condor/ }).waitFor();
  // 200 kept between the short strikes, 500 - 200 lost past a wing, breakevens 95 - 2 and 105 + 2.
  const facts = page.getByLabel('Figures');
  assert.match(await facts.innerText(), /Net credit\s+\$200\.00/);
  assert.match(await facts.innerText(), /Max loss\s+\$300\.00/);
  assert.match(await facts.innerText(), /Breakevens\s+93\.00, 107\.00/);
  await page.getByTestId('payoff-chart').locator('canvas').waitFor();
  await screenshot('strategy');
});

step('reviews the AAPL trade: a captioned screenshot, the full-size viewer, a confirmed delete, and the review figures', async () => {
  const { items } = await api('/api/positions?symbol=AAPL');
  // The trade of the step that added it: stop 95, target 120.
  const trade = items.find((p) => p.stopLoss === '95' && p.targetPrice === '120');
  assert.ok(trade, 'the AAPL trade with a stop of 95 and a target of 120');
  await page.goto(`/positions/${trade.id}`);
  await page.getByRole('heading', { name: 'Screenshots' }).waitFor();
  // Held 2026-11-02 10:00 to 11-03 15:30; reward 20 over risk 5 from the entry of 100.
  await page.getByText('1 d 5 h').waitFor();
  await page.getByText('4.00 : 1').waitFor();
  // A real 1x1 PNG, chosen with the file picker and captioned at upload.
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
  await page.getByLabel('Caption for the next screenshot').fill('Daily chart');
  await page.getByLabel('Choose screenshot').setInputFiles({ name: 'daily.png', mimeType: 'image/png', buffer: png });
  await page.getByRole('button', { name: 'View Daily chart full size' }).waitFor();
  await page.getByLabel('Choose screenshot').setInputFiles({ name: 'entry.png', mimeType: 'image/png', buffer: png });
  await page.getByRole('button', { name: 'View screenshot 2 full size' }).waitFor();
  // Caption the second in place.
  await page.getByRole('button', { name: 'Edit caption of screenshot 2' }).click();
  await page.getByRole('textbox', { name: 'Caption of screenshot 2' }).fill('Entry on the retest');
  await page.getByRole('button', { name: 'Save caption' }).click();
  const second = page.getByRole('button', { name: 'View Entry on the retest full size' });
  await second.waitFor();
  // The viewer: opens on the second, the arrow moves on, Escape closes and gives focus back.
  await second.click();
  await page.getByRole('dialog', { name: 'Entry on the retest (2 of 2)' }).waitFor();
  await screenshot('position-screenshot-viewer');
  await page.keyboard.press('ArrowRight');
  await page.getByRole('dialog', { name: 'Daily chart (1 of 2)' }).waitFor();
  await page.keyboard.press('Escape');
  await page.getByRole('dialog').waitFor({ state: 'detached' });
  assert.equal(await second.evaluate((el) => el === document.activeElement), true, 'focus went back to the screenshot');
  // Delete asks first: dismissed, the screenshot stays; accepted, it goes.
  await page.getByRole('button', { name: 'Delete Daily chart' }).click();
  await answer(page, false);
  await page.getByRole('button', { name: 'View Daily chart full size' }).waitFor();
  await page.getByRole('button', { name: 'Delete Daily chart' }).click();
  await answer(page, true);
  await page.getByRole('button', { name: 'View Daily chart full size' }).waitFor({ state: 'detached' });
  const images = await api(`/api/positions/${trade.id}/images`);
  assert.deepEqual(images.items.map((i) => i.caption), ['Entry on the retest']);
  // An MAE above the long's lowest fill (the entry at 100) cannot be: the form says so before sending it.
  const excursions = page.getByRole('form', { name: 'Excursions' });
  await excursions.getByLabel('MAE price (worst price against the trade)').fill('100.5');
  await excursions.getByRole('button', { name: 'Save MAE and MFE' }).click();
  await excursions.getByText(/The worst price of a long is at or below its lowest fill, 100\.00/).waitFor();
  await excursions.getByLabel('MAE price (worst price against the trade)').fill('98');
  await excursions.getByRole('button', { name: 'Save MAE and MFE' }).click();
  await page.getByRole('region', { name: 'Review' }).getByText(/^98\.00 ·/).waitFor();
  assert.equal((await api(`/api/positions/${trade.id}`)).position.maePrice, '98');
  await screenshot('position-review');
});

/**
 * fakeCandles is the quote provider (Finnhub's /stock/candle) on loopback: for any symbol a bar every
 * `resolution` from `from` to before `to`, each rising 0.25 an hour from 100 at 2026-11-02 09:00 UTC
 * (the AAPL trade's entry), with wicks of 0.5 each side; the bars asked for are recorded.
 */
async function fakeCandles() {
  const requests = [];
  const entry = Date.UTC(2026, 10, 2, 9) / 1000;
  const seconds = { 1: 60, 5: 300, 15: 900, 30: 1800, 60: 3600, D: 86400, W: 604800 };
  const price = (t) => Math.max(1, 100 + ((t - entry) / 3600) * 0.25);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://finnhub');
    res.setHeader('Content-Type', 'application/json');
    if (req.headers['x-finnhub-token'] !== 'e2e-quote-key') {
      res.statusCode = 401;
      return res.end('{"error":"Invalid API key"}');
    }
    if (url.pathname !== '/stock/candle') {
      res.statusCode = 404;
      return res.end('{}');
    }
    const q = url.searchParams;
    requests.push({ resolution: q.get('resolution'), from: Number(q.get('from')), to: Number(q.get('to')) });
    const step = seconds[q.get('resolution')];
    const out = { s: 'ok', t: [], o: [], h: [], l: [], c: [], v: [] };
    for (let t = Number(q.get('from')); t < Number(q.get('to')); t += step) {
      const o = price(t);
      const c = price(t + step);
      out.t.push(t);
      out.o.push(Number(o.toFixed(4)));
      out.c.push(Number(c.toFixed(4)));
      out.h.push(Number((Math.max(o, c) + 0.5).toFixed(4)));
      out.l.push(Number((Math.min(o, c) - 0.5).toFixed(4)));
      out.v.push(1000 + (t % 7) * 100);
    }
    res.end(JSON.stringify(out));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** colourPixels counts the chart canvas's opaque pixels near the colour CSS paints `cssColour` in now. */
async function colourPixels(cssColour) {
  return page.evaluate((css) => {
    const probe = document.createElement('span');
    probe.style.color = css;
    document.body.appendChild(probe);
    const [r, g, b] = getComputedStyle(probe).color.match(/\d+/g).map(Number);
    probe.remove();
    const canvas = document.querySelector('.candles canvas');
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] > 200 && Math.abs(data[i] - r) < 40 && Math.abs(data[i + 1] - g) < 40 && Math.abs(data[i + 2] - b) < 40) n++;
    }
    return n;
  }, cssColour);
}

step('sees the AAPL trade on its candles with the fills, stop and target, switches to hourly bars, and replays it bar by bar to the running P&L', async () => {
  const { items } = await api('/api/positions?symbol=AAPL');
  const trade = items.find((p) => p.stopLoss === '95' && p.targetPrice === '120');
  const provider = await fakeCandles();
  try {
    await stack.restartAPI({ STOCK_QUOTE_API_KEY: 'e2e-quote-key', STOCK_QUOTE_BASE_URL: provider.url });
    await page.goto(`/positions/${trade.id}`);
    const chart = page.getByRole('figure', { name: 'Price around the trade' });
    // Held 29.5 hours: the route picks 15-minute bars.
    await chart.getByRole('option', { name: 'Fitting the trade (15-minute)' }).waitFor({ state: 'attached' });
    await chart.getByText(/^15-minute candles, delayed/).waitFor();
    const entry = chart.getByRole('button', { name: /^Entry: bought 10 at 100\.00, Nov 2, 2026, 10:00 AM (GMT\+1|CET)$/ });
    const exit = chart.getByRole('button', { name: /^Exit: sold 10 at 110\.00, Nov 3, 2026, 3:30 PM (GMT\+1|CET)$/ });
    await entry.waitFor();
    await exit.waitFor();
    // Hovering a fill names it; so does focusing one from the keyboard.
    await entry.hover();
    await entry.locator('.fill-tip').waitFor({ state: 'visible' });
    await exit.focus();
    await exit.locator('.fill-tip').waitFor({ state: 'visible' });
    const key = chart.getByRole('list', { name: 'Lines on the chart' });
    for (const line of ['Stop 95.00', 'Target 120.00', 'Average entry 100.00']) await key.getByText(line).waitFor();
    assert.match(await chart.getByRole('img').getAttribute('aria-label'), /^\d+ 15-minute candles of AAPL from .* Lines: stop 95\.00, target 120\.00, average entry 100\.00\.$/);
    // Every bar rises: the --pos pixels are the candles, the --neg ones can only be the stop's line.
    assert.ok((await colourPixels('var(--pos)')) > 500, 'no candles drawn');
    assert.ok((await colourPixels('var(--neg)')) > 50, 'no stop line drawn');
    await screenshot('position-chart');

    // Hourly bars: 20 bars of margin, the entry's bar is the 21st.
    await chart.getByLabel('Bar length').selectOption('60');
    await chart.getByText(/^Hourly candles, delayed/).waitFor();
    assert.equal(provider.requests.at(-1).resolution, '60');
    await chart.getByRole('button', { name: 'Replay the trade' }).click();
    const frame = chart.getByTestId('replay-frame');
    await frame.filter({ hasText: /^Bar 1 of 70, Nov 1, 2026, 2:00 PM (GMT\+1|CET): close 95\.25\. Not in the trade yet\.$/ }).waitFor();
    assert.equal(await entry.count(), 0, 'the entry is shown before it happened');
    const replay = chart.getByRole('group', { name: 'Replay' });
    await replay.focus();
    for (let i = 0; i < 19; i++) await page.keyboard.press('ArrowRight');
    await frame.filter({ hasText: /^Bar 20 of 70, .*Not in the trade yet\.$/ }).waitFor();
    await page.keyboard.press('ArrowRight');
    // The entry's bar closes at 100.25: 10 x 0.25 = $2.50, less the $1.00 fee.
    await frame.filter({ hasText: /^Bar 21 of 70, Nov 2, 2026, 10:00 AM (GMT\+1|CET): close 100\.25\. 1 fill so far, 10 held\. P&L \$2\.50 before fees, \$1\.50 after \$1\.00 in fees\.$/ }).waitFor();
    await entry.waitFor();
    assert.equal(await exit.count(), 0, 'the exit is shown before it happened');
    await page.keyboard.press('ArrowLeft');
    await frame.filter({ hasText: /^Bar 20 of 70/ }).waitFor();
    await entry.waitFor({ state: 'detached' });
    // Played at 10 bars a second to the end: out at 110, $100 before fees and the trade's $98.00 after them.
    await replay.getByLabel('Speed').selectOption('10');
    await replay.getByRole('button', { name: 'Play' }).click();
    await replay.getByRole('button', { name: 'Pause' }).waitFor();
    await frame.filter({ hasText: /^Bar 70 of 70, .*2 fills so far, 0 held\. P&L \$100\.00 before fees, \$98\.00 after \$2\.00 in fees\.$/ }).waitFor({ timeout: 20_000 });
    await exit.waitFor();
    await replay.getByRole('button', { name: 'Play' }).waitFor();
    await screenshot('position-replay');

    // Readable in both themes, and on a phone without sideways scroll.
    for (const scheme of ['dark', 'light']) {
      await page.emulateMedia({ colorScheme: scheme });
      await chart.getByText(/^Hourly candles, delayed/).waitFor();
      assert.deepEqual(await contrastProblems(page), [], `${scheme}: texts below WCAG AA contrast`);
      // The canvas is drawn again in the theme's colours when the scheme changes.
      const deadline = Date.now() + 5000;
      while ((await colourPixels('var(--pos)')) <= 200) {
        assert.ok(Date.now() < deadline, `${scheme}: the candles are not in the theme's colour`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.reload();
      await chart.getByRole('button', { name: 'Replay the trade' }).waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the position page is ${width} px wide at a 390 px viewport`);
      await screenshot('position-chart-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  } finally {
    await stack.restartAPI({});
    await provider.close();
  }
});

step("finds the AAPL trade's typed MAE among the dashboard's excursions, and no exit analysis without bars", async () => {
  await nav('Dashboard');
  const card = page.getByRole('region', { name: 'Excursions' });
  const count = card.getByRole('row', { name: /^Trades with one/ });
  await count.waitFor();
  // The MAE typed on the review (98 against the entry at 100), not yet an MFE.
  assert.deepEqual((await count.getByRole('cell').allInnerTexts()).map((c) => c.trim()), ['1', '0']);
  await page.getByRole('region', { name: 'Exit analysis' }).getByText(/No trade.s price bars reached the target before the stop/).waitFor();
});

step('creates a playbook with a checklist, follows it on a closed trade with a criterion ticked, and sees it on the dashboard', async () => {
  await nav('Playbooks');
  await page.getByRole('heading', { name: 'Playbooks', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'New playbook' }).click();
  const form = page.getByRole('form', { name: 'New playbook' });
  await form.getByLabel('Playbook name').fill('Opening range');
  await form.getByLabel('Description').fill('The first 30 minutes, then the break.');
  await form.getByRole('button', { name: 'Add criterion' }).click();
  await form.getByLabel('Criterion 1', { exact: true }).fill('Volume above average');
  await form.getByRole('button', { name: 'Add criterion' }).click();
  await form.getByLabel('Criterion 2', { exact: true }).fill('Range break');
  // The break comes first on the checklist.
  await form.getByRole('button', { name: 'Move criterion 2 up' }).click();
  await form.getByRole('button', { name: 'Create playbook' }).click();
  const card = page.getByRole('region', { name: 'Playbook Opening range' });
  await card.waitFor();
  assert.deepEqual(await card.getByRole('listitem').allInnerTexts(), ['Range break', 'Volume above average']);
  await screenshot('playbooks');

  // A winning AAPL trade followed it and met the range break only.
  const { items } = await api('/api/positions?symbol=AAPL&status=closed&assetType=stock');
  const winner = items.find((p) => Number(p.netPnl) > 0);
  await page.goto(`/positions/${winner.id}`);
  const section = page.getByRole('region', { name: 'Playbook', exact: true });
  await section.getByLabel('Playbook followed').selectOption({ label: 'Opening range' });
  await section.getByLabel('Range break').check();
  await section.getByRole('button', { name: 'Save playbook' }).click();
  await section.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  await screenshot('position-playbook');

  await nav('Dashboard');
  await page.getByRole('region', { name: 'By playbook', exact: true }).first().getByRole('row', { name: /Opening range/ }).waitFor();
  const criteria = page.getByRole('region', { name: 'By playbook criterion' }).first();
  const met = criteria.getByRole('row', { name: /Opening range: Range break/ });
  await met.waitFor();
  // The trade met it (1 trade, a win); none missed it.
  assert.match(await met.innerText(), /^Opening range: Range break\s+1\s+100(\.0+)?%/);
  await criteria.getByRole('row', { name: /Opening range: Volume above average/ }).waitFor();
  await screenshot('dashboard-playbooks');
});

step('keeps an unsaved stop and an unsaved playbook tick on a position page: a menu link asks first, in a dialog inside the window; staying keeps the edit', async () => {
  const { items } = await api('/api/positions?symbol=AAPL&status=closed&assetType=stock');
  const winner = items.find((p) => Number(p.netPnl) > 0);
  await page.goto(`/positions/${winner.id}`);
  const details = page.getByRole('form', { name: 'Position details' });
  const stop = details.getByLabel('Stop loss');
  await stop.waitFor();
  const savedStop = await stop.inputValue();
  // Scrolled down to the form, as a trader is when changing the stop.
  await stop.scrollIntoViewIfNeeded();
  await stop.fill('96.5');
  await details.getByText('Not saved yet: the stop loss.').waitFor();

  /** ask clicks a menu link and returns the question, checked to be inside the window, uncovered, with focus in it. */
  async function ask() {
    await nav('Dashboard');
    const dialog = page.getByRole('alertdialog', { name: 'Unsaved changes' });
    await dialog.waitFor();
    assert.equal(new URL(page.url()).pathname, `/positions/${winner.id}`, 'the menu link waits for the answer');
    const box = await dialog.boundingBox();
    const view = page.viewportSize();
    assert.ok(box && view, 'the question has a box and the page a viewport');
    assert.ok(
      box.x >= 0 && box.y >= 0 && box.x + box.width <= view.width && box.y + box.height <= view.height,
      `the question lies inside the ${view.width}x${view.height} window: ${JSON.stringify(box)}`,
    );
    const onTop = await dialog.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));
    });
    assert.equal(onTop, true, 'nothing covers the question');
    assert.equal(await dialog.getByRole('button', { name: 'Stay and keep them' }).evaluate((el) => el === document.activeElement), true, 'focus is in the question');
    return dialog;
  }

  let dialog = await ask();
  assert.match(await dialog.innerText(), /Not saved yet: the stop loss\./);
  await screenshot('position-unsaved-question');
  // Escape stays, and so does the Stay button: the edit is kept either way.
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  assert.equal(await stop.inputValue(), '96.5');
  dialog = await ask();
  await dialog.getByRole('button', { name: 'Stay and keep them' }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal(new URL(page.url()).pathname, `/positions/${winner.id}`);
  assert.equal(await stop.inputValue(), '96.5');
  // Back to the saved stop: nothing is unsaved any more.
  await stop.fill(savedStop);
  await details.getByText('Not saved yet: the stop loss.').waitFor({ state: 'detached' });

  // A playbook tick not saved asks too, naming it; staying keeps it, leaving drops it.
  const section = page.getByRole('region', { name: 'Playbook', exact: true });
  await section.getByLabel('Volume above average').check();
  dialog = await ask();
  assert.match(await dialog.innerText(), /Not saved yet: the ticked criteria\./);
  await dialog.getByRole('button', { name: 'Stay and keep them' }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal(await section.getByLabel('Volume above average').isChecked(), true);
  dialog = await ask();
  await dialog.getByRole('button', { name: 'Leave without saving' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  const follows = await api(`/api/positions/${winner.id}/playbook`);
  assert.equal(follows.criterionIds.length, 1, 'only the saved tick (Range break) is kept');
  assert.equal((await api(`/api/positions/${winner.id}`)).position.stopLoss, winner.stopLoss);
});

step('sets a rule of at most 1 trade a day, and sees a day of 2 trades marked as broken, in words', async () => {
  await nav('Rules');
  await page.getByRole('heading', { name: 'Trading rules' }).waitFor();
  await page.getByText('No rules yet: add the first one.').waitFor();
  await page.getByRole('button', { name: 'Add a rule' }).click();
  await page.getByLabel('Rule', { exact: true }).selectOption({ label: 'Maximum trades per day' });
  // A wrong value is explained with the field's own words.
  await page.getByLabel('Most trades a day').fill('0');
  await page.getByRole('button', { name: 'Add the rule' }).click();
  await page.locator('.field-error').first().waitFor();
  await page.getByLabel('Most trades a day').fill('1');
  await page.getByRole('button', { name: 'Add the rule' }).click();
  await page.getByRole('row', { name: /At most 1 trade a day/ }).waitFor();
  await screenshot('rules');

  // 2 November kept it (one trade); a second trade there (after the AAPL entry, New York time) breaks it.
  let { days } = await api('/api/rules/compliance?from=2026-11-01&to=2026-11-30');
  assert.equal(days.find((d) => d.date === '2026-11-02')?.broken, 0, JSON.stringify(days));
  const { items: aapl } = await api('/api/positions?symbol=AAPL&from=2026-11-02&to=2026-11-02');
  assert.equal(aapl.length, 1, JSON.stringify(aapl));
  const res = await page.request.post('/api/positions', {
    data: { accountId: aapl[0].accountId, symbol: 'AMD', assetType: 'stock', side: 'long', stopLoss: '99', fills: [
      { type: 'entry', price: '100', quantity: '5', filledAt: '2026-11-02T16:00:00Z' },
      { type: 'exit', price: '102', quantity: '5', filledAt: '2026-11-02T19:00:00Z' }] },
  });
  assert.equal(res.status(), 201, await res.text());
  ({ days } = await api('/api/rules/compliance?from=2026-11-01&to=2026-11-30'));
  const broken = days.find((d) => d.date === '2026-11-02');
  assert.equal(broken?.broken, 1, JSON.stringify(days));
  assert.equal(broken.violations[0].message, 'AMD: 2nd trade of the day; your limit is 1');
  await nav('Dashboard');
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  // The calendar opens at the latest month with closes: November 2026.
  const mark = page.getByTestId(`rule-marker-${broken.date}`);
  await mark.waitFor();
  assert.match(await mark.getAttribute('title'), /^Broke 1 rule: .*2nd trade of the day; your limit is 1/);
  await page.getByRole('heading', { name: 'Rules kept and broken' }).waitFor();
  await page.getByRole('row', { name: /Days that broke a rule/ }).waitFor();
  await screenshot('dashboard-rules');

  // The day's own panel: its score and the violation in words.
  await page.goto(`/journal/${broken.date}`);
  const panel = page.getByRole('region', { name: /^Rules on / });
  await panel.getByTestId('day-score').waitFor();
  await panel.getByText(/2nd trade of the day; your limit is 1/).first().waitFor();
  // One line a broken rule, with its count; its trades under it.
  await panel.getByText('Maximum trades per day, broken by 1 trade', { exact: true }).waitFor();
  await screenshot('day-compliance');
});

step('adds a critical cooldown rule, and finds an entry 5 minutes after a loss broken: the day\'s weighted score, the position\'s breakdown, kept against broken trades', async () => {
  await nav('Rules');
  await page.getByRole('heading', { name: 'Trading rules' }).waitFor();
  await page.getByRole('button', { name: 'Add a rule' }).click();
  await page.getByLabel('Rule', { exact: true }).selectOption({ label: 'Pause after a losing trade' });
  await page.getByLabel('Weight', { exact: true }).selectOption({ label: 'Critical (counts 3)' });
  await page.getByLabel('Minutes to wait after a losing trade').fill('15');
  await page.getByRole('button', { name: 'Add the rule' }).click();
  const row = page.getByRole('row', { name: /Wait 15 minutes after a losing trade before the next entry/ });
  await row.getByRole('cell', { name: 'Critical', exact: true }).waitFor();
  const rule = (await api('/api/rules')).items.find((r) => r.type === 'cooldownAfterLoss');
  assert.equal(rule.weight, 'critical');

  // An INTC loss opened on Monday 23 November closes at 14:55 UTC on the 25th; AMD enters at 15:00 UTC, 5 minutes later.
  const { items: accounts } = await api('/api/accounts');
  const record = async (symbol, fills) => {
    const res = await page.request.post('/api/positions', {
      data: { accountId: accounts[0].id, symbol, assetType: 'stock', side: 'long', stopLoss: '1', fills },
    });
    assert.equal(res.status(), 201, await res.text());
    return (await res.json()).position;
  };
  const loss = await record('INTC', [
    { type: 'entry', price: '30', quantity: '10', filledAt: '2026-11-23T15:00:00Z' },
    { type: 'exit', price: '29', quantity: '10', filledAt: '2026-11-25T14:55:00Z' },
  ]);
  const next = await record('AMD', [
    { type: 'entry', price: '100', quantity: '5', filledAt: '2026-11-25T15:00:00Z' },
    { type: 'exit', price: '101', quantity: '5', filledAt: '2026-11-25T18:00:00Z' },
  ]);
  const { trade } = await api(`/api/rules/compliance/positions/${next.id}`);
  // AMD is the day's one trade (at most 1 a day, important: 2, kept) and broke the cooldown (critical: 3): 2 of 5.
  assert.equal(trade.score, 40, JSON.stringify(trade));
  await page.goto(`/journal/${trade.date}`);
  const panel = page.getByRole('region', { name: /^Rules on / });
  await panel.getByTestId('day-score').filter({ hasText: 'Score 40%: kept 1 of 2 rules.' }).waitFor();
  await panel.getByText(/AMD: entry 5 minutes after a losing close of INTC; your cooldown is 15 minutes/).first().waitFor();

  // The position page: its trade's score and the broken rule in words.
  await page.goto(`/positions/${next.id}`);
  const breakdown = page.getByRole('region', { name: 'Trading rules' });
  await breakdown.getByTestId('trade-score').filter({ hasText: 'Score 40%' }).waitFor();
  await breakdown.getByText(/^Broke: Wait 15 minutes after a losing trade before the next entry — AMD: entry 5 minutes after a losing close of INTC/).waitFor();
  await breakdown.getByText(/^Kept: At most 1 trade a day/).waitFor();
  await screenshot('position-rules');

  // The rules screen: November's trades with their scores, the broken ones on their own, kept against broken.
  await nav('Rules');
  await page.getByLabel('Month', { exact: true }).fill('2026-11');
  await page.getByRole('row', { name: /Trades that broke a rule/ }).waitFor();
  await page.getByLabel('Show', { exact: true }).selectOption({ label: 'Trades that broke a rule' });
  await page.getByTestId(`trade-score-${next.id}`).filter({ hasText: '40%' }).waitFor();
  await screenshot('rules-trades');

  // The journal as the later steps know it: the two trades and the rule go again.
  for (const id of [next.id, loss.id]) {
    const res = await page.request.delete(`/api/positions/${id}`);
    assert.equal(res.status(), 204, await res.text());
  }
  const res = await page.request.delete(`/api/rules/${rule.id}`);
  assert.equal(res.status(), 204, await res.text());
});

step('builds a call calendar in the options strategy builder, and reads the model\'s estimate at the first expiry', async () => {
  await nav('Calculator');
  await page.getByRole('navigation', { name: 'Calculators' }).getByRole('link', { name: 'Options strategy' }).click();
  await page.getByRole('heading', { level: 1, name: 'Options strategy' }).waitFor();
  await page.getByLabel('Strategy', { exact: true }).selectOption({ label: 'Call calendar' });
  await page.getByRole('group', { name: 'Template' }).getByLabel('Expiry').fill('2027-01-15');
  for (const [n, expiry, price] of [
    [1, '', '2.00'],
    [2, '2027-02-12', '3.50'],
  ]) {
    const leg = page.getByRole('group', { name: new RegExp(`^Leg ${n}:`) });
    await leg.getByLabel('Strike').fill('100');
    if (expiry) await leg.getByLabel('Expiry').fill(expiry);
    await leg.getByLabel('Price per share').fill(price);
  }
  // At 30% (the field's start) and 4%, the later call is worth 3.4643 at the strike when the first expires, 28 days
  // before it: (3.4643 - 1.50) x 100 at best; at worst both calls are worthless and the 150 paid is lost.
  await page.getByTestId('estimate-note').waitFor();
  assert.equal(await page.getByLabel('Implied volatility %').inputValue(), '30');
  assert.equal(await page.getByTestId('max-profit').innerText(), '196.43');
  assert.equal(await page.getByTestId('max-loss').innerText(), '150.00');
  await page.getByTestId('payoff-chart').locator('canvas').waitFor();
  await screenshot('calculator-calendar');
});

step('previews an iron condor opened by one order, takes a leg out of its strategy, and finds that grouping under Strategies', async () => {
  await nav('Import');
  await page.getByRole('heading', { name: 'Import a CSV' }).waitFor();
  await page.getByLabel('Preset', { exact: true }).selectOption({ label: 'Generic: one fill per row' });
  // A short iron condor on IWM, June 2027: four legs filled at one instant.
  const legs = ['IWM   270618P00180000', 'IWM   270618P00170000', 'IWM   270618C00250000', 'IWM   270618C00260000'];
  await page.getByLabel('CSV file').setInputFiles(
    csv([
      header,
      `2026-11-10,10:15:00,${legs[0]},Sell to Open,1,2.00,0`,
      `2026-11-10,10:15:00,${legs[1]},Buy to Open,1,1.00,0`,
      `2026-11-10,10:15:00,${legs[2]},Sell to Open,1,2.00,0`,
      `2026-11-10,10:15:00,${legs[3]},Buy to Open,1,1.00,0`,
    ]),
  );
  await page.getByRole('button', { name: 'Preview import' }).click();
  const preview = page.getByRole('region', { name: 'Preview' });
  const strategies = preview.getByRole('region', { name: 'Strategies' });
  const first = strategies.getByRole('group', { name: 'Strategy 1' });
  await first.getByText('Short iron condor').waitFor();
  // The long call taken out: the other three stay one strategy, named again by the strategy engine.
  await strategies.getByRole('button', { name: /^Take long IWM 270618C00260000 .* out of this strategy$/ }).click();
  await first.getByText(/on IWM, 3 legs/).waitFor();
  await first.getByText('Naming the legs…').waitFor({ state: 'detached' });
  assert.doesNotMatch(await first.innerText(), /iron condor/i);
  await screenshot('import-strategies');
  await preview.getByRole('button', { name: 'Import' }).click();
  const imported = page.getByRole('status').filter({ hasText: 'Imported' });
  await imported.waitFor();
  assert.match(await imported.innerText(), /4 fills in 4 new and 0 continued positions, grouped as 1 strategy/);

  await nav('Strategies');
  await page.getByRole('heading', { level: 1, name: 'Strategies' }).waitFor();
  const rows = page.getByRole('row', { name: /IWM/ });
  await rows.first().waitFor();
  assert.equal(await rows.count(), 1);
  assert.match(await rows.innerText(), /IWM\s+open\s+.*\s3\s/);
  const { items } = await api('/api/strategies');
  const iwm = items.filter((s) => s.underlying === 'IWM');
  assert.deepEqual(
    iwm.map((s) => s.legs.map((l) => l.symbol).sort()),
    [legs.slice(0, 3).sort()],
  );
});

step("lists a strategy's legs in order and in words, and offers as legs only open positions of its account and underlying", async () => {
  const { items: accounts } = await api('/api/accounts');
  const account = accounts.find((a) => a.currency === 'USD');
  const other = accounts.find((a) => a.id !== account.id && !a.archived);
  assert.ok(other, 'a second account (the EUR one) to hold a position the picker must not offer');
  const { items: strategies } = await api('/api/strategies?limit=200');
  const condor = strategies.find((s) => s.accountId === account.id && s.legs.some((l) => l.symbol === 'SPY   270618P00095000'));
  assert.ok(condor, 'the SPY June 2027 iron condor grouped earlier');

  // Around it: a put to roll into (open, offered), one already closed, one in the other account, one on MSFT.
  const entry = (price) => ({ type: 'entry', price, quantity: '1', fees: '0', filledAt: '2026-06-02T14:00:00Z' });
  const created = {};
  for (const [key, accountId, symbol, side, fills] of [
    ['roll', account.id, 'SPY   270618P00092000', 'short', [entry('1.50')]],
    ['closed', account.id, 'SPY   270618P00085000', 'short', [entry('0.80'), { type: 'exit', price: '0.40', quantity: '1', fees: '0', filledAt: '2026-06-03T14:00:00Z' }]],
    ['elsewhere', other.id, 'SPY   270618P00093000', 'short', [entry('1.60')]],
    ['msft', account.id, 'MSFT  270618C00400000', 'long', [entry('12.00')]],
  ]) {
    const res = await page.request.post('/api/positions', { data: { accountId, symbol, assetType: 'option', side, fills } });
    assert.equal(res.status(), 201, await res.text());
    created[key] = (await res.json()).position;
  }
  assert.equal(created.closed.status, 'closed');

  // The picker asks the API for the strategy's account and underlying, open positions only.
  const asked = page.waitForRequest((req) => {
    const url = new URL(req.url());
    return url.pathname === '/api/positions' && url.searchParams.get('status') === 'open';
  });
  await page.goto(`/strategies/${condor.id}`);
  await page.getByRole('heading', { level: 1, name: /Short iron condor/ }).waitFor();
  const query = new URL((await asked).url()).searchParams;
  assert.deepEqual(query.getAll('accountId'), [account.id]);
  assert.deepEqual(query.getAll('symbol'), ['SPY']);

  // The legs: by expiry, then strike, then right; each as a trader reads it, the OCC symbol as the link's tooltip.
  const legsTable = page.getByRole('region', { name: 'Legs', exact: true });
  const names = () => legsTable.getByRole('rowheader').allInnerTexts();
  assert.deepEqual(await names(), ['SPY Jun 18 2027 90 put', 'SPY Jun 18 2027 95 put', 'SPY Jun 18 2027 105 call', 'SPY Jun 18 2027 110 call']);
  assert.equal(await legsTable.getByRole('link', { name: 'SPY Jun 18 2027 95 put' }).getAttribute('title'), 'SPY 270618P00095000');
  assert.doesNotMatch(await legsTable.innerText(), /270618[CP]\d{8}/);

  // The picker: the condor's own legs and the open SPY put of the same account in no strategy, in the legs' order.
  // Not the closed put, the other account's put, the MSFT call, nor the January condor's legs (another strategy).
  const form = page.getByRole('form', { name: 'Roll or change the legs' });
  const picker = form.getByRole('group', { name: 'Legs' });
  await picker.waitFor();
  const offered = async () => (await picker.locator('label').allInnerTexts()).map((t) => t.split(' · ')[0].replace(/\s+/g, ' ').trim());
  assert.deepEqual(await offered(), [
    'long SPY Jun 18 2027 90 put (SPY 270618P00090000)',
    'short SPY Jun 18 2027 92 put (SPY 270618P00092000)',
    'short SPY Jun 18 2027 95 put (SPY 270618P00095000)',
    'short SPY Jun 18 2027 105 call (SPY 270618C00105000)',
    'long SPY Jun 18 2027 110 call (SPY 270618C00110000)',
  ]);
  assert.equal(await picker.getByRole('checkbox', { name: /92 put/ }).isChecked(), false);
  await page.getByTestId('payoff-chart').locator('canvas').waitFor();
  await screenshot('strategy-legs');

  // A roll: the 92 put in, the 95 put out; then back, so the later steps find the condor as it was.
  await picker.getByRole('checkbox', { name: /92 put/ }).check();
  await picker.getByRole('checkbox', { name: /95 put/ }).uncheck();
  await form.getByRole('button', { name: 'Save the legs' }).click();
  await legsTable.getByRole('rowheader', { name: 'SPY Jun 18 2027 92 put' }).waitFor();
  assert.deepEqual(await names(), ['SPY Jun 18 2027 90 put', 'SPY Jun 18 2027 92 put', 'SPY Jun 18 2027 105 call', 'SPY Jun 18 2027 110 call']);
  // The put rolled out is open and in no strategy now: offered again, unticked.
  const rolledOut = page.getByRole('form', { name: 'Roll or change the legs' }).getByRole('checkbox', { name: /95 put/ });
  assert.equal(await rolledOut.isChecked(), false);
  await rolledOut.check();
  await page.getByRole('form', { name: 'Roll or change the legs' }).getByRole('checkbox', { name: /92 put/ }).uncheck();
  await page.getByRole('form', { name: 'Roll or change the legs' }).getByRole('button', { name: 'Save the legs' }).click();
  await legsTable.getByRole('rowheader', { name: 'SPY Jun 18 2027 95 put' }).waitFor();
  const { strategy } = await api(`/api/strategies/${condor.id}`);
  assert.deepEqual(strategy.legs.map((l) => l.symbol).sort(), condor.legs.map((l) => l.symbol).sort());
});

/** The tax steps' year: a past one, so its report is whole. */
const taxYear = new Date().getFullYear() - 1;

/** position records a position through the api in the Swing account: fills as [type, price, quantity, fees, filledAt]. */
async function position(symbol, assetType, fills) {
  const { items } = await api('/api/accounts');
  const swing = items.find((a) => a.name === 'Swing');
  const res = await page.request.post('/api/positions', {
    data: { accountId: swing.id, symbol, assetType, side: 'long', fills: fills.map(([type, price, quantity, fees, filledAt]) => ({ type, price, quantity, fees, filledAt })) },
  });
  assert.equal(res.status(), 201, await res.text());
}

step("chooses US tax rules, and finds Publication 550's wash sale on the Tax page: 250 disallowed, moved into the replacement's basis of 1,050; downloads Form 8949", async () => {
  // IRS Publication 550: 100 XYZ bought at 10 and sold at 7.50, bought again at 8 two weeks later and sold at 11.
  await position('XYZ', 'stock', [['entry', '10', '100', '0', `${taxYear}-01-10T15:00:00Z`], ['exit', '7.50', '100', '0', `${taxYear}-03-01T15:00:00Z`]]);
  await position('XYZ', 'stock', [['entry', '8', '100', '0', `${taxYear}-03-15T15:00:00Z`], ['exit', '11', '100', '0', `${taxYear}-06-03T15:00:00Z`]]);

  await nav('Tax');
  await page.getByRole('heading', { level: 1, name: 'Tax report' }).waitFor();
  // No jurisdiction yet: the page asks for it before anything else.
  const first = page.getByRole('form', { name: 'First, choose where you pay tax' });
  assert.equal(await page.getByLabel('Tax year', { exact: true }).count(), 0);
  await first.getByLabel('Your tax jurisdiction').selectOption('us');
  await first.getByRole('button', { name: 'Save and show the report' }).click();
  // The year a return is due for comes first; another is a choice away, and kept in the address.
  const year = page.getByLabel('Tax year', { exact: true });
  assert.equal(await year.inputValue(), String(taxYear));
  await year.selectOption(String(taxYear - 1));
  await page.waitForURL((url) => url.searchParams.get('year') === String(taxYear - 1));
  await year.selectOption(String(taxYear));
  await page.waitForURL((url) => url.searchParams.get('year') === String(taxYear));

  const lots = page.getByRole('region', { name: 'Lots' });
  const sold = lots.getByRole('row').filter({ hasText: 'Wash sale (W)' });
  await sold.waitFor();
  assert.match(await sold.innerText(), new RegExp(`100 sh XYZ[\\s\\S]*\\$250\\.00 of the loss disallowed, added to the basis of the 100 bought on Mar 15, ${taxYear}`));
  const replacement = lots.getByRole('row').filter({ hasText: 'Basis includes $250.00 of a wash-sale loss' });
  assert.match(await replacement.innerText(), new RegExp(`from the sale of 100 sh XYZ on Mar 1, ${taxYear}[\\s\\S]*\\$1,050\\.00`));
  await replacement.getByRole('button', { name: 'Show which buys made this basis (1)' }).click();
  const matches = page.getByRole('table', { name: 'What made the basis of 100 sh XYZ' });
  assert.match(await matches.getByRole('row').nth(1).innerText(), new RegExp(`First in, first out\\s+Mar 15, ${taxYear}\\s+100\\s+\\$1,050\\.00\\s+\\$250\\.00`));
  const wash = page.getByRole('region', { name: 'Wash sales' });
  assert.match(await wash.getByRole('row', { name: /XYZ/ }).innerText(), /14 days after[\s\S]*\$250\.00/);
  await screenshot('tax-report');

  // Form 8949: the file, and the answer behind the link.
  const link = page.getByRole('link', { name: 'Download Form 8949 (CSV)' });
  const res = await page.request.get(await link.getAttribute('href'));
  assert.equal(res.status(), 200);
  assert.match(res.headers()['content-type'], /^text\/csv/);
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  assert.equal(download.suggestedFilename(), `form-8949-${taxYear}.csv`);
  const csvPath = path.join(artifacts, 'form-8949.csv');
  await download.saveAs(csvPath);
  const csv = fs.readFileSync(csvPath, 'utf8');
  assert.match(csv, /^Box,Description of property \(a\),/);
  assert.match(csv, new RegExp(`^A,100 sh XYZ,01/10/${taxYear},03/01/${taxYear},750\\.00,1000\\.00,W,250\\.00,0\\.00$`, 'm'));
  assert.match(csv, new RegExp(`^A,100 sh XYZ,[0-9/]+,06/03/${taxYear},1100\\.00,1050\\.00,,,50\\.00$`, 'm'));
});

step('names a future open over the year end without its year-end price, and takes the price in place', async () => {
  const contract = `ESH${String((taxYear + 1) % 100).padStart(2, '0')}`;
  await position(contract, 'future', [['entry', '6000', '1', '0', `${taxYear}-12-15T15:00:00Z`], ['exit', '6100', '1', '0', `${taxYear + 1}-01-15T15:00:00Z`]]);
  await page.goto(`/tax?year=${taxYear}`);
  const item = page.getByRole('listitem').filter({ hasText: `${contract} (1 open in Swing on` });
  await item.waitFor();
  assert.match(await item.innerText(), /has no year-end price: enter its settlement price from your broker’s statement/);
  await item.getByLabel(`Year-end price of ${contract}`, { exact: true }).fill('6,050.25');
  await item.getByRole('button', { name: 'Save price' }).click();
  await item.waitFor({ state: 'detached' });
  const { marks } = await api(`/api/tax/marks?year=${taxYear}`);
  assert.deepEqual(marks, [{ instrument: contract, price: '6050.25' }]);
  // Marked to market at it: 50.25 points of 50 dollars, a Section 1256 gain of the year.
  const marked = page.getByRole('region', { name: 'Lots' }).getByRole('row').filter({ hasText: contract }).filter({ hasText: 'year-end price' });
  assert.match(await marked.innerText(), new RegExp(`Dec 31, ${taxYear}[\\s\\S]*\\$302,512\\.50\\s+\\$300,000\\.00\\s+\\$2,512\\.50\\s+Section 1256 \\(60/40\\), year-end price`));
});

step('shows the fee roll-up of the filter on the dashboard, by period', async () => {
  await position('WMT', 'stock', [['entry', '100', '10', '1.25', `${taxYear}-06-10T15:00:00Z`], ['exit', '110', '10', '1.25', `${taxYear}-06-12T15:00:00Z`]]);
  await page.goto('/?symbol=WMT');
  const fees = page.getByRole('region', { name: 'Fees', exact: true });
  const tiles = fees.getByLabel('Fee figures', { exact: true });
  await tiles.waitFor();
  assert.match(await tiles.innerText(), /Fees paid\s+\$2\.50\s+2 fills with a fee\s+Share of gross P&L\s+2\.50%\s+Gross P&L\s+\$100\.00/);
  await fees.getByRole('region', { name: 'Fees by month' }).getByRole('rowheader', { name: `June ${taxYear}` }).waitFor();
  await fees.getByLabel('Fees by', { exact: true }).selectOption('year');
  await fees.getByRole('region', { name: 'Fees by year' }).getByRole('rowheader', { name: String(taxYear) }).waitFor();
  assert.match(await fees.getByRole('region', { name: 'Fees by account' }).getByRole('row', { name: /Swing/ }).innerText(), /Swing\s+\$2\.50\s+2\.50%/);
  await screenshot('dashboard-fees');
});

step('fits the Tax page on a phone: no sideways scroll, the gain in view', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.goto(`/tax?year=${taxYear}`);
    const gain = page.getByRole('region', { name: 'Lots' }).getByRole('columnheader', { name: 'Gain or loss' });
    await gain.waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `/tax is ${width} px wide at a 390 px viewport`);
    const box = await gain.boundingBox();
    assert.ok(box && box.x + box.width <= 390, `the gain column is at ${box?.x} px on a 390 px phone`);
    await page.getByRole('region', { name: 'Lots' }).getByRole('row').filter({ hasText: 'Wash sale (W)' }).waitFor();
    await screenshot('tax-phone');
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tax', exact: true }).waitFor();
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

/** The expenses' steps count in the last full year: every charge is in the past. */
const expenseHeader = 'Date,Amount,Currency,Category,Account,Recurrence,End Date,Note';
const usd = (n) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(n);
const expensesRange = `?from=${taxYear}-02-01&to=${taxYear}-04-30`;

step('records a monthly expense started on a 31st: its charges fall on each month\'s last day, and the summary counts them', async () => {
  await nav('Expenses');
  await page.getByRole('heading', { level: 1, name: 'Expenses' }).waitFor();
  const form = page.getByRole('form', { name: 'Add an expense' });
  await form.getByLabel('Amount', { exact: true }).fill('0');
  await form.getByLabel('Start date', { exact: true }).fill(`${taxYear}-01-31`);
  await form.getByLabel('Category', { exact: true }).selectOption({ label: 'Market data' });
  await form.getByLabel('Note', { exact: true }).fill('Level 2 data');
  await form.getByRole('button', { name: 'Add expense' }).click();
  // The API's refusal beside the field, in words.
  await form.getByText(/^The amount must be more than 0 and at most/).waitFor();
  await form.getByLabel('Amount', { exact: true }).fill('10');
  assert.equal(await form.getByLabel('Repeat', { exact: true }).inputValue(), 'monthly');
  await form.getByRole('button', { name: 'Add expense' }).click();
  await page.getByRole('status').filter({ hasText: 'Recorded the expense' }).waitFor();
  // Started on January 31: charged on February's last day, then March 31, April 30.
  const feb = new Date(Date.UTC(taxYear, 2, 0)).getUTCDate();
  const { items: charges } = await api(`/api/expenses/charges${expensesRange}`);
  assert.deepEqual(charges.map((c) => c.date).sort(), [`${taxYear}-02-${feb}`, `${taxYear}-03-31`, `${taxYear}-04-30`]);
  await page.getByLabel('Charged from', { exact: true }).fill(`${taxYear}-02-01`);
  await page.getByLabel('Charged to', { exact: true }).fill(`${taxYear}-04-30`);
  const summary = page.getByRole('region', { name: 'Summary', exact: true });
  await summary.getByTestId('expense-total').filter({ hasText: usd(30) }).waitFor();
  const months = summary.getByRole('region', { name: 'Expenses by month' });
  for (const m of ['February', 'March', 'April']) assert.match(await months.getByRole('row', { name: new RegExp(`^${m} ${taxYear}`) }).innerText(), /\$10\.00/);
  assert.match(await summary.getByRole('region', { name: 'Expenses by category' }).getByRole('row', { name: /^Market data/ }).innerText(), /\$30\.00/);
  const row = page.getByRole('region', { name: 'Your expenses' }).getByRole('row').filter({ hasText: 'Level 2 data' });
  assert.match(await row.innerText(), /Market data\s+\$10\.00\s+Monthly\s+All accounts\s+.+\s+\$30\.00\s+Level 2 data/);
  await screenshot('expenses');
});

step('edits the expense into a category of its own, made in the form', async () => {
  await page.getByRole('button', { name: /^Edit expense Market data/ }).click();
  const form = page.getByRole('form', { name: 'Edit expense' });
  assert.equal(await form.getByLabel('Amount', { exact: true }).inputValue(), '10');
  await form.getByLabel('Amount', { exact: true }).fill('12');
  await form.getByLabel('Category', { exact: true }).selectOption({ label: 'New category…' });
  await form.getByLabel('New category’s name', { exact: true }).fill('Coaching');
  await form.getByRole('button', { name: 'Save expense' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved the expense' }).waitFor();
  await page.getByRole('form', { name: 'Add an expense' }).waitFor();
  const row = page.getByRole('region', { name: 'Your expenses' }).getByRole('row').filter({ hasText: 'Level 2 data' });
  await row.filter({ hasText: 'Coaching' }).waitFor();
  assert.match(await row.innerText(), /Coaching\s+\$12\.00\s+Monthly/);
  await page.getByRole('region', { name: 'Summary', exact: true }).getByTestId('expense-total').filter({ hasText: usd(36) }).waitFor();
  await page.getByRole('region', { name: 'Your categories' }).getByRole('listitem').filter({ hasText: 'Coaching' }).waitFor();
});

step('deletes a category of its own (its expense moves to Other), and an expense after a confirmation', async () => {
  const cats = page.getByRole('region', { name: 'Your categories' });
  await cats.getByRole('button', { name: 'Rename Coaching' }).click();
  await cats.getByLabel('New name for Coaching').fill('Mentoring');
  await cats.getByRole('button', { name: 'Save name' }).click();
  await cats.getByRole('status').filter({ hasText: 'Renamed the category to Mentoring.' }).waitFor();
  await cats.getByRole('button', { name: 'Delete category Mentoring' }).click();
  assert.match(await page.getByRole('alertdialog').innerText(), /move to the category Other/);
  await answer(page, true);
  await cats.getByRole('status').filter({ hasText: 'Deleted the category Mentoring: 1 expense moved to Other.' }).waitFor();
  const list = page.getByRole('region', { name: 'Your expenses' });
  await list.getByRole('row').filter({ hasText: 'Level 2 data' }).filter({ hasText: 'Other' }).waitFor();

  const form = page.getByRole('form', { name: 'Add an expense' });
  await form.getByLabel('Amount', { exact: true }).fill('5');
  await form.getByLabel('Start date', { exact: true }).fill(`${taxYear}-03-15`);
  await form.getByLabel('Category', { exact: true }).selectOption({ label: 'Education' });
  await form.getByLabel('Repeat', { exact: true }).selectOption({ label: 'Once' });
  await form.getByLabel('Note', { exact: true }).fill('A book');
  await form.getByRole('button', { name: 'Add expense' }).click();
  const book = list.getByRole('row').filter({ hasText: 'A book' });
  await book.waitFor();
  assert.match(await book.innerText(), /Education\s+\$5\.00\s+Once/);
  await book.getByRole('button', { name: 'Delete' }).click();
  await answer(page, false);
  await book.waitFor();
  await book.getByRole('button', { name: 'Delete' }).click();
  await answer(page, true);
  await book.waitFor({ state: 'detached' });
  await page.getByRole('region', { name: 'Summary', exact: true }).getByTestId('expense-total').filter({ hasText: usd(36) }).waitFor();
});

step('imports expenses from CSV; a bad file is refused whole, each row and field named in words; the export reads back', async () => {
  const file = (rows) => ({ name: 'expenses.csv', mimeType: 'text/csv', buffer: Buffer.from([expenseHeader, ...rows].join('\n') + '\n') });
  const csvCard = page.getByRole('region', { name: 'CSV', exact: true });
  await csvCard.getByLabel('CSV file').setInputFiles(file([`${taxYear}-03-01,20,USD,hardware,Swing,none,,Monitor`, `${taxYear}-03-02,-5,USD,data,,none,,Refund`, `${taxYear}-03-03,5,USD,food,,none,,Lunch`]));
  await csvCard.getByRole('button', { name: 'Import' }).click();
  const problems = csvCard.getByRole('list', { name: 'Problems in the file' });
  await problems.waitFor();
  const text = await problems.innerText();
  assert.match(text, /Row 3: The amount must be more than 0/);
  assert.match(text, /Row 4: There is no category “food”/);
  assert.doesNotMatch(text, /rows\[|VALIDATION/);
  await csvCard.getByLabel('CSV file').setInputFiles(file([`${taxYear}-03-01,20,USD,hardware,Swing,none,,Monitor`, `${taxYear}-04-15,5,USD,education,,none,,Course`]));
  await csvCard.getByRole('button', { name: 'Import' }).click();
  await csvCard.getByRole('status').filter({ hasText: 'Imported 2 expenses.' }).waitFor();
  await page.getByRole('region', { name: 'Summary', exact: true }).getByTestId('expense-total').filter({ hasText: usd(61) }).waitFor();
  const monitor = page.getByRole('region', { name: 'Your expenses' }).getByRole('row').filter({ hasText: 'Monitor' });
  assert.match(await monitor.innerText(), /Hardware\s+\$20\.00\s+Once\s+Swing/);
  const [download] = await Promise.all([page.waitForEvent('download'), csvCard.getByRole('link', { name: 'Download expenses (CSV)' }).click()]);
  const exported = fs.readFileSync(await download.path(), 'utf8');
  assert.match(exported, new RegExp(`^${expenseHeader}\\r?\\n`));
  assert.match(exported, new RegExp(`${taxYear}-03-01,20\\.0000,USD,hardware,Swing,none,,Monitor`));
});

step('subtracts the expenses on the dashboard: the period\'s expenses and the P&L after them, trade figures unchanged', async () => {
  await page.goto(`/${expensesRange}`);
  const toggle = page.getByRole('switch', { name: 'Subtract expenses' });
  await toggle.waitFor();
  await page.waitForLoadState('networkidle');
  const stats = page.getByLabel('Statistics', { exact: true });
  const winRate = async () => ((await stats.count()) ? (await stats.innerText()).match(/Win rate\s+(\S+)/)?.[1] : 'no trades');
  const before = await winRate();
  assert.equal(await toggle.isChecked(), false);
  const [request] = await Promise.all([page.waitForRequest((r) => r.url().includes('/api/performance?') && r.url().includes('netOfExpenses=true')), toggle.check()]);
  assert.match(request.url(), new RegExp(`from=${taxYear}-02-01`));
  const net = page.getByRole('region', { name: 'Net after expenses' });
  await net.waitFor();
  const expected = await api(`/api/performance${expensesRange}&netOfExpenses=true&bySymbol=false`);
  assert.equal(expected.expenses.total, '61.0000');
  const tiles = await net.getByLabel('Net after expenses', { exact: true }).innerText();
  assert.match(tiles, /Expenses\s+\$61\.00/);
  if (expected.netAfterExpenses !== null) assert.ok(tiles.includes(`Net after expenses\n${usd(Number(expected.netAfterExpenses))}`) || tiles.includes(usd(Number(expected.netAfterExpenses))), tiles);
  await net.getByRole('rowheader', { name: `March ${taxYear}` }).waitFor();
  assert.equal(await winRate(), before);
  await screenshot('dashboard-net-of-expenses');
  await toggle.uncheck();
  await net.waitFor({ state: 'detached' });
});

step('fits the Expenses page on a phone: no sideways scroll of the page', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.goto(`/expenses${expensesRange}`);
    await page.getByRole('region', { name: 'Your expenses' }).getByRole('row').filter({ hasText: 'Monitor' }).waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `/expenses is ${width} px wide at a 390 px viewport`);
    await screenshot('expenses-phone');
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

step('reconciles an account with the broker and deletes a deposit and the adjustment: both stay in the ledger with their reversals; duplicates a built-in fee schedule', async () => {
  const balanceOf = async () => (await api('/api/accounts')).items.find((a) => a.name === 'Swing').balance;
  const before = await balanceOf();
  await nav('Accounts');
  await page.getByRole('button', { name: 'Ledger of Swing' }).click();
  const ledger = page.getByRole('region', { name: 'Ledger of Swing' });
  const entry = ledger.getByRole('form', { name: 'Deposit or withdrawal' });
  await entry.getByLabel('Amount').fill('500');
  await entry.getByRole('button', { name: 'Record deposit' }).click();
  await ledger.getByRole('button', { name: /^Delete deposit of / }).first().click();
  await ledger.getByRole('row').filter({ hasText: 'Reverses the deposit of' }).filter({ hasText: 'Reversal' }).waitFor();
  await ledger.getByRole('row').filter({ hasText: 'Reversed' }).first().waitFor();
  assert.equal(await balanceOf(), before, 'a deleted deposit left the balance moved');

  const broker = (Number(before) + 12.34).toFixed(2);
  const reconcile = ledger.getByRole('form', { name: 'Reconcile with the broker' });
  await reconcile.getByLabel("Broker's balance").fill(broker);
  await reconcile.getByRole('button', { name: 'Reconcile' }).click();
  await reconcile.getByRole('status').filter({ hasText: /Recorded an adjustment of \$12\.34/ }).waitFor();
  assert.equal(Number(await balanceOf()).toFixed(2), broker);
  await screenshot('ledger-reconciled');
  await ledger.getByRole('button', { name: /^Delete adjustment of / }).click();
  await ledger.getByRole('row').filter({ hasText: 'Reverses the adjustment of' }).waitFor();
  assert.equal(await balanceOf(), before, 'a deleted adjustment left the balance moved');
  await ledger.getByRole('button', { name: 'Close ledger' }).click();

  await page.goto('/brokerages');
  await page.getByRole('button', { name: 'Duplicate Interactive Brokers (fixed)', exact: true }).click();
  await page.getByRole('heading', { name: 'Edit Interactive Brokers (fixed) (copy)' }).waitFor();
  const copy = page.getByRole('row', { name: /Interactive Brokers \(fixed\) \(copy\)/ });
  await copy.waitFor();
  assert.doesNotMatch(await copy.innerText(), /built-in/);
  await page.getByRole('button', { name: 'Delete Interactive Brokers (fixed) (copy)' }).click();
  await answer(page, true);
  await copy.waitFor({ state: 'detached' });
});

/** fakeFlex is Interactive Brokers' Flex Web Service (v3) on loopback: SendRequest, then GetStatement answering 1019 once. */
async function fakeFlex(token, queryId, statement) {
  const requests = [];
  const reference = '5551234567';
  let generating = 1;
  const fail = (status, code, words) =>
    `<FlexStatementResponse timestamp="29 November, 2026 10:37 AM EST"><Status>${status}</Status><ErrorCode>${code}</ErrorCode><ErrorMessage>${words}</ErrorMessage></FlexStatementResponse>`;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://flex');
    requests.push(url.pathname);
    res.setHeader('Content-Type', 'text/xml');
    const t = url.searchParams.get('t');
    const q = url.searchParams.get('q');
    if (url.searchParams.get('v') !== '3' || t !== token) return res.end(fail('Fail', '1015', 'Token is invalid.'));
    if (url.pathname === '/AccountManagement/FlexWebService/SendRequest') {
      if (q !== queryId) return res.end(fail('Fail', '1014', 'Query is invalid.'));
      return res.end(
        `<FlexStatementResponse timestamp="29 November, 2026 10:37 AM EST"><Status>Success</Status><ReferenceCode>${reference}</ReferenceCode><Url>https://gdcdyn.interactivebrokers.com/AccountManagement/FlexWebService/GetStatement</Url></FlexStatementResponse>`,
      );
    }
    if (url.pathname === '/AccountManagement/FlexWebService/GetStatement') {
      if (q !== reference) return res.end(fail('Fail', '1020', 'Invalid request or unable to validate request.'));
      if (generating-- > 0) return res.end(fail('Warn', '1019', 'Statement generation in progress. Please try again shortly.'));
      return res.end(statement);
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/AccountManagement/FlexWebService`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

step('connects Interactive Brokers through the Flex Web Service, syncs now, and sees the trades and the status in words', async () => {
  const token = '884433221100998877665544';
  const trade = (id, side, qty, time, price) =>
    `<Trade accountId="U7654321" currency="USD" assetCategory="STK" symbol="NVDA" description="NVIDIA CORP" conid="4815747" multiplier="1" tradeID="${id}" ibExecID="0001f4e8.${id}.01.01" dateTime="20240213;${time}" tradeDate="20240213" quantity="${qty}" tradePrice="${price}" ibCommission="-1" taxes="0" openCloseIndicator="${side === 'BUY' ? 'O' : 'C'}" buySell="${side}" levelOfDetail="EXECUTION" ibOrderID="9${id}" />`;
  const statement = `<FlexQueryResponse queryName="Journal" type="AF"><FlexStatements count="1"><FlexStatement accountId="U7654321" fromDate="20240201" toDate="20240229" period="LastMonth" whenGenerated="20240301;020000"><Trades>${[
    trade('700001', 'BUY', '20', '100000', '721.50'),
    trade('700002', 'BUY', '10', '103000', '723.10'),
    trade('700003', 'SELL', '-30', '150500', '739.80'),
  ].join('')}</Trades></FlexStatement></FlexStatements></FlexQueryResponse>`;
  const flex = await fakeFlex(token, '918273', statement);
  try {
    await stack.restartAPI({ ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'), IBKR_FLEX_BASE_URL: flex.url });
    await nav('Import');
    await page.getByRole('link', { name: 'Sync from your broker instead' }).click();
    await page.getByRole('heading', { name: 'Connections' }).waitFor();
    await page.getByText('Under Flex Web Service Configuration, turn the service on and generate a token').waitFor();

    // A mistyped query id: the status says so in words, and what to do.
    await page.getByLabel('Flex Web Service token').fill(token);
    await page.getByLabel('Flex Query id').fill('918270');
    await page.getByLabel('Name').fill('IB typo');
    await page.getByRole('button', { name: 'Connect Interactive Brokers' }).click();
    const typo = page.getByRole('listitem', { name: 'IB typo' });
    await typo.getByRole('button', { name: 'Sync now' }).click();
    await typo.getByTestId('connection-status').filter({ hasText: 'Interactive Brokers does not know the query id' }).waitFor();
    await typo.getByRole('button', { name: 'Delete' }).click();
    await answer(page, true);
    await typo.waitFor({ state: 'detached' });

    await page.getByLabel('Flex Web Service token').fill(token);
    await page.getByLabel('Flex Query id').fill('918273');
    await page.getByRole('button', { name: 'Connect Interactive Brokers' }).click();
    const ib = page.getByRole('listitem', { name: 'Interactive Brokers' });
    await ib.getByTestId('connection-status').filter({ hasText: 'Not synced yet' }).waitFor();
    await ib.getByRole('button', { name: 'Sync now' }).click();
    await ib.getByTestId('connection-status').filter({ hasText: /^Last synced at .*: added 3 fills\.$/ }).waitFor({ timeout: 30_000 });
    await screenshot('connections');
    // Synced again: nothing is added twice.
    await ib.getByRole('button', { name: 'Sync now' }).click();
    await ib.getByTestId('connection-status').filter({ hasText: 'nothing new' }).waitFor({ timeout: 30_000 });
    assert.ok(flex.requests.filter((p) => p.endsWith('/GetStatement')).length >= 3, `requests ${flex.requests}`);

    const { items } = await api('/api/connections');
    assert.equal(items.length, 1);
    assert.ok(!JSON.stringify(items).includes(token), 'the token is in the connections answer');
    await nav('Positions');
    await page.getByRole('link', { name: 'NVDA' }).first().waitFor();
  } finally {
    await flex.close();
  }
});

step('installs as an app: the manifest, its icons and the service worker; offline, the shell says so', async () => {
  const manifestHref = await page.locator('link[rel="manifest"]').getAttribute('href');
  const manifest = await api(manifestHref);
  assert.equal(manifest.display, 'standalone');
  assert.equal(manifest.start_url, '/');
  assert.ok(manifest.name && manifest.theme_color && manifest.background_color);
  for (const size of ['192x192', '512x512']) {
    const icon = manifest.icons.find((i) => i.sizes === size && i.type === 'image/png');
    assert.ok(icon, `no ${size} PNG icon`);
    const res = await page.request.get(icon.src);
    assert.equal(res.status(), 200);
    assert.equal(res.headers()['content-type'], 'image/png');
  }
  assert.ok(manifest.icons.some((i) => i.purpose === 'maskable'), 'no maskable icon');
  const script = await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.scriptURL);
  assert.equal(new URL(script).pathname, '/sw.js');

  await page.goto('/positions');
  await page.getByRole('heading', { name: 'Positions' }).waitFor();
  assert.ok(await page.evaluate(() => navigator.serviceWorker.controller !== null), 'the page is not under the service worker');
  await page.context().setOffline(true);
  try {
    await page.getByText(/^You are offline\./).first().waitFor();
    await page.reload();
    await page.getByText(/^You are offline\./).first().waitFor();
    await screenshot('offline');
  } finally {
    await page.context().setOffline(false);
  }
  // Online again, a page is the server's own (network first), not the copy.
  const fresh = page.waitForResponse((r) => new URL(r.url()).pathname === '/positions' && r.request().resourceType() === 'document');
  await page.reload();
  assert.equal((await fresh).status(), 200);
  await page.getByRole('heading', { name: 'Positions' }).waitFor();
  assert.equal(await page.getByText(/^You are offline\./).count(), 0);
});

step('quick-adds a trade on a 390 px phone: one screen, no sideways scroll, then net P&L and R in the list', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.goto('/positions');
    await page.getByRole('link', { name: 'Quick add' }).click();
    await page.getByRole('heading', { name: 'Quick add' }).waitFor();
    const form = page.getByRole('form', { name: 'Quick add a trade' });
    await form.getByLabel('Symbol').fill('QQQ');
    await form.getByLabel('Short (sell)').check();
    await form.getByLabel('Quantity').fill('5');
    await form.getByLabel('Price').fill('0');
    await form.getByLabel('Time').fill('2026-11-20T15:30');
    const save = form.getByRole('button', { name: 'Save trade' });
    const box = await save.boundingBox();
    assert.ok(box && box.y + box.height <= 844, `Save trade is below the first screen (${box?.y} px)`);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, 'quick add scrolls sideways');
    await screenshot('quick-add-phone');
    // A bad price is named as the form names it.
    await save.click();
    await form.locator('.field-error').filter({ hasText: /price/i }).waitFor();
    await form.getByLabel('Price').fill('480.25');
    await save.click();
    await page.waitForURL(/\/positions\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: /QQQ/ }).waitFor();
    await page.goto('/positions');
    await page.getByRole('row', { name: /QQQ/ }).waitFor();
    const r = await page.getByRole('columnheader', { name: 'R', exact: true }).boundingBox();
    assert.ok(r && r.x + r.width <= 390, `the R column is at ${r?.x} px on a 390 px phone`);
    const net = await page.getByRole('columnheader', { name: 'Net P&L' }).boundingBox();
    assert.ok(net && net.x + net.width <= 390, `the Net P&L column is at ${net?.x} px`);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, 'the positions list scrolls sideways');
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

step("reads what's new: the unread marker goes once the changelog is opened, also after a reload", async () => {
  await page.goto('/');
  const unread = page.getByRole('button', { name: /^What's new, \d+ versions? unread$/ });
  await unread.waitFor();
  await page.getByTestId('whats-new-unread').waitFor();
  await unread.click();
  const panel = page.getByRole('dialog', { name: "What's new" });
  await panel.getByRole('heading', { name: /^Version 0\.5\.0/ }).waitFor();
  await panel.getByText(/winners, losers or breakeven/).waitFor();
  await screenshot('whats-new');
  await page.getByTestId('whats-new-unread').waitFor({ state: 'detached' });
  await panel.getByRole('button', { name: 'Close' }).click();
  await page.reload();
  await page.getByRole('button', { name: "What's new", exact: true }).waitFor();
  assert.equal(await page.getByTestId('whats-new-unread').count(), 0);
  assert.equal((await api('/api/changelog')).unread, 0);
});

step('every text on every screen reads at WCAG AA contrast, in the light and the dark theme', async () => {
  const { items } = await api('/api/positions');
  const screens = ['/', '/positions', `/positions/${items[0].id}`, '/positions/new', '/positions/quick', '/accounts', '/brokerages', '/calculator', '/calculator/strategy', '/strategies', '/import', '/exchange-rates', '/rules', '/settings', '/settings/security', '/admin', '/journal', '/journal/2026-11-05', '/playbooks', `/tax?year=${taxYear}`, `/expenses${expensesRange}`];
  const found = await themeWalk(page, screens, async (p) => {
    await p.getByRole('heading', { level: 1 }).first().waitFor();
    await p.waitForLoadState('networkidle');
  });
  // States with more colour: field errors, the calendar's winning days (on the dashboard above), a destructive button.
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto('/positions/new');
    await page.getByRole('button', { name: 'Save position' }).click();
    await page.locator('.field-error').first().waitFor();
    for (const line of await contrastProblems(page)) found.push(`${scheme} /positions/new with errors: ${line}`);
    await page.goto('/accounts');
    await page.getByRole('button', { name: 'Delete Swing' }).click();
    await page.getByRole('button', { name: 'Confirm delete' }).waitFor();
    for (const line of await contrastProblems(page)) found.push(`${scheme} /accounts deleting: ${line}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });

  // The signed-out screens, in a browser without a session.
  const visitor = await browser.newContext({ baseURL: stack.url, viewport: { width: 1280, height: 900 } });
  try {
    const p = await visitor.newPage();
    found.push(
      ...(await themeWalk(p, ['/welcome', '/signin', '/signup', '/forgot-password'], async (q) => {
        await q.getByRole('heading', { level: 1 }).waitFor();
      })),
    );
  } finally {
    await visitor.close();
  }
  assert.deepEqual(found, [], `texts below WCAG AA contrast:\n${found.join('\n')}`);
});

step('sets a prop-firm plan from an example, records a losing trade, and sees the room left shrink and the dashboard warn', async () => {
  const created = await page.request.post('/api/accounts', { data: { name: 'Prop challenge', currency: 'USD', startingBalance: '10000' } });
  assert.equal(created.status(), 201, await created.text());
  const { account } = await created.json();
  await page.goto('/accounts');
  await page.getByRole('button', { name: 'Prop firm plan of Prop challenge' }).click();
  const form = page.getByRole('form', { name: 'Prop firm plan of Prop challenge' });
  // The examples are labelled as such, never as the firm's rules.
  await form.getByText("check your firm's current rules").waitFor();
  await form.getByLabel('Start from an example').selectOption({ label: 'Two-step challenge, phase 1 (FTMO-style): 10000' });
  assert.equal(await form.getByLabel('Profit target').inputValue(), '1000');
  assert.equal(await form.getByLabel('Daily loss limit').inputValue(), '500');
  // A wrong value is explained with the form's words, and nothing is saved.
  await form.getByLabel('Warn at (% of the daily limit)').fill('0');
  await form.getByRole('button', { name: 'Save plan' }).click();
  await form.getByRole('alert').filter({ hasText: 'warning share of the daily limit' }).first().waitFor();
  await form.getByLabel('Warn at (% of the daily limit)').fill('80');
  await form.getByRole('button', { name: 'Save plan' }).click();
  const card = page.getByRole('region', { name: 'Prop firm status' });
  await card.getByText('In progress').waitFor();
  await card.getByText('$500.00 left (100.00% of $500.00)').waitFor();
  await screenshot('prop-firm-plan');

  // A loss of 445 today: 89% of the daily limit, past the 80% warning.
  const now = Date.now();
  const res = await page.request.post('/api/positions', {
    data: { accountId: account.id, symbol: 'EURX', assetType: 'stock', side: 'long', fills: [
      { type: 'entry', price: '100', quantity: '10', filledAt: new Date(now - 180_000).toISOString() },
      { type: 'exit', price: '55.5', quantity: '10', filledAt: new Date(now - 120_000).toISOString() }] },
  });
  assert.equal(res.status(), 201, await res.text());
  await page.reload();
  await card.getByText('$55.00 left (11.00% of $500.00)').waitFor();
  await card.getByText('$555.00 left (55.50% of $1,000.00)').waitFor();
  await screenshot('prop-firm-status');

  await nav('Dashboard');
  const warning = page.getByRole('alert', { name: 'Prop firm warnings' });
  // The phase-1 challenge is an evaluation, which the warning names.
  await warning.getByText(/Prop challenge \(evaluation\): today's loss \$445\.00 is 89\.00% of the \$500\.00 daily limit \(you warned at 80%\)/).waitFor();
  await warning.getByRole('link', { name: 'See the plan' }).click();
  await page.getByRole('region', { name: 'Prop firm status' }).waitFor();
  await screenshot('dashboard-prop-firm-warning');
});
