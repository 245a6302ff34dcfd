// The real stack the end-to-end tests drive, started by the tests themselves:
// a private PostgreSQL (infra/pg.sh, .data/e2e-pg) with a fresh database per
// run, the api binary (bin/local, `make build`), and nginx configured by the
// web container's own entrypoint (web/docker/start.sh) serving web/dist
// (`npm run build`) and proxying /api to the api. Everything on loopback
// ports 3300-3399; headless Debian Chromium through playwright-core.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const artifacts = path.join(repo, 'web/e2e/artifacts');
const apiBinary = path.join(repo, 'bin/local');
const webDist = path.join(repo, 'web/dist');

// nginx runs unprivileged, as in the image; as root that is nobody.
const nobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

/** A free loopback port in 3300-3399. */
export async function freePort() {
  const start = Math.floor(Math.random() * 100);
  for (let i = 0; i < 100; i++) {
    const port = 3300 + ((start + i) % 100);
    const free = await new Promise((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free loopback port in 3300-3399');
}

/** waitFor polls url until it answers 200 or the process exits. */
async function waitFor(url, child, logPath, what) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}):\n${fs.readFileSync(logPath, 'utf8')}`);
    }
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not answer ${url} within 30 s:\n${fs.readFileSync(logPath, 'utf8')}`);
}

/** stop signals a process group and waits for it to go. */
async function stop(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, signal);
  const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

function psql(url, sql) {
  return execFileSync('psql', [url, '-Atqc', sql], { encoding: 'utf8' }).trim();
}

/** database starts the private cluster and creates an empty database for this run. */
function database() {
  const url = execFileSync(path.join(repo, 'infra/pg.sh'), ['start', '.data/e2e-pg', '--fast'], {
    cwd: repo,
    encoding: 'utf8',
  }).trim();
  const admin = url.replace('/tradejournal?', '/postgres?');
  // Databases of runs that ended without cleaning up: their process is gone.
  for (const old of psql(admin, "SELECT datname FROM pg_database WHERE datname LIKE 'e2e\\_%'").split('\n')) {
    const pid = Number(old.split('_')[1]);
    if (old && !alive(pid)) psql(admin, `DROP DATABASE IF EXISTS "${old}" WITH (FORCE)`);
  }
  const name = `e2e_${process.pid}_${Date.now().toString(36)}`;
  psql(admin, `CREATE DATABASE "${name}"`);
  return {
    url: url.replace('/tradejournal?', `/${name}?`),
    drop: () => psql(admin, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/** openLog is a log file the child (maybe unprivileged) may reopen as /dev/stdout. */
function openLog(file) {
  const fd = fs.openSync(file, 'w');
  if (nobody) fs.fchownSync(fd, nobody.uid, nobody.gid);
  return fd;
}

/**
 * startAPI runs bin/local against databaseURL; env adds settings
 * (SEED_ADMIN_EMAIL, ...). It answers with its base URL and a stop function.
 */
export async function startAPI(databaseURL, env = {}, port = undefined) {
  if (!fs.existsSync(apiBinary)) throw new Error(`${apiBinary} is missing: run make build`);
  port ??= await freePort();
  const logPath = path.join(artifacts, `api-${port}.log`);
  const log = openLog(logPath);
  const child = spawn(apiBinary, [], {
    cwd: repo,
    detached: true,
    stdio: ['ignore', log, log],
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      DATABASE_URL: databaseURL,
      LOG_LEVEL: 'warn',
      // No internet here: the ticker file's fetch fails fast.
      SEC_TICKERS_URL: 'http://127.0.0.1:1/unreachable',
      ...env,
    },
  });
  fs.closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/api/health`, child, logPath, 'the api');
  return { url, port, logPath, stop: () => stop(child, 'SIGTERM') };
}

/**
 * startWeb runs web/docker/start.sh, the web container's entrypoint, with
 * the image's settings pointed at web/dist, a private runtime directory and
 * a loopback port, proxying /api to apiURL.
 */
export async function startWeb(apiURL, env = {}) {
  if (!fs.existsSync(path.join(webDist, 'index.html'))) throw new Error(`${webDist} is not built: run npm run build`);
  const runtime = fs.mkdtempSync(path.join(os.tmpdir(), 'tj-e2e-web-'));
  fs.chmodSync(runtime, 0o755);
  if (nobody) fs.chownSync(runtime, nobody.uid, nobody.gid);
  const port = await freePort();
  const logPath = path.join(artifacts, `web-${port}.log`);
  const log = openLog(logPath);
  const child = spawn(path.join(repo, 'web/docker/start.sh'), [], {
    detached: true,
    stdio: ['ignore', log, log],
    ...(nobody ?? {}),
    env: {
      PATH: `${process.env.PATH}:/usr/sbin:/sbin`,
      WEB_ROOT: webDist,
      WEB_RUNTIME_DIR: runtime,
      WEB_TEMPLATE_DIR: path.join(repo, 'web/docker'),
      WEB_LISTEN: `127.0.0.1:${port}`,
      API_BASE_URL: apiURL,
      METRICS_ENABLED: 'true',
      ...env,
    },
  });
  fs.closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/config.js`, child, logPath, 'nginx (web/docker/start.sh)');
  return {
    url,
    logPath,
    stop: async () => {
      await stop(child, 'SIGQUIT');
      fs.rmSync(runtime, { recursive: true, force: true });
    },
  };
}

/** launchBrowser starts Debian's headless Chromium. */
export function launchBrowser() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * startStack starts PostgreSQL, the api and nginx. restartAPI replaces the
 * api (same database and port, new settings) behind the same nginx.
 */
export async function startStack(apiEnv = {}) {
  fs.mkdirSync(artifacts, { recursive: true });
  if (nobody) fs.chmodSync(artifacts, 0o777);
  const db = database();
  let api = await startAPI(db.url, apiEnv);
  const web = await startWeb(api.url);
  const stack = {
    db,
    get api() {
      return api;
    },
    url: web.url,
    /** restartAPI stops the api and starts it again with env. */
    async restartAPI(env = {}) {
      await api.stop();
      api = await startAPI(db.url, env, api.port);
    },
    async stop() {
      await web.stop();
      await api.stop();
      db.drop();
    },
  };
  return stack;
}
