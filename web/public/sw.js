// The service worker of the installed app. It keeps the app shell (the
// page, its hashed scripts and styles, theme.js, config.js, the icons) so
// the app opens offline and says so. It never touches /api/: answers
// there hold personal data and are the server's alone.
//
// Navigations go to the network first: online, a deploy's new index.html
// is always the one served; the copy only answers offline.
const CACHE = 'tj-shell-v1';
const SHELL = ['/', '/theme.js', '/config.js', '/manifest.webmanifest', '/icon-192.png', '/favicon.svg'];

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

/** keep stores a good answer under key. */
function keep(key, response) {
  if (response.ok && response.type === 'basic') {
    const copy = response.clone();
    void caches.open(CACHE).then((cache) => cache.put(key, copy));
  }
  return response;
}

/**
 * keepPage stores a new index.html as the page every screen opens from;
 * when it differs from the copy (a deploy), the old build's scripts go.
 */
async function keepPage(response) {
  if (!response.ok || response.type !== 'basic' || !(response.headers.get('Content-Type') || '').startsWith('text/html')) return;
  const cache = await caches.open(CACHE);
  const text = await response.clone().text();
  const old = await cache.match('/');
  if (old && (await old.text()) !== text) {
    for (const req of await cache.keys()) if (new URL(req.url).pathname.startsWith('/assets/')) await cache.delete(req);
  }
  await cache.put('/', response);
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin || url.pathname === '/api' || url.pathname.startsWith('/api/') || url.pathname === '/metrics') {
    return;
  }
  if (req.mode === 'navigate') {
    event.respondWith(
      fetch(req)
        .then((res) => {
          event.waitUntil(keepPage(res.clone()));
          return res;
        })
        .catch(() => caches.match('/').then((hit) => hit || Response.error())),
    );
    return;
  }
  if (url.pathname.startsWith('/assets/')) {
    // Hashed names never change: the copy, else the network.
    event.respondWith(caches.match(req).then((hit) => hit || fetch(req).then((res) => keep(req, res))));
    return;
  }
  event.respondWith(
    fetch(req)
      .then((res) => keep(req, res))
      .catch(() => caches.match(req).then((hit) => hit || Response.error())),
  );
});
