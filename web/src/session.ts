// Whether this browser has a session, without asking the server. The
// session cookie is HttpOnly (the page cannot read it), and asking
// /api/auth/me without one answers 401, which the browser logs as an error
// on every signed-out page. So the page remembers, on this device, that a
// sign-in or sign-up succeeded, and forgets it at sign-out or at any 401.
// Without the mark no authenticated route is requested: the visitor sees
// the welcome screen or the sign-in page at once.

const storageKey = 'tj-signed-in';

export function hasSession(): boolean {
  try {
    return localStorage.getItem(storageKey) === '1';
  } catch {
    // No storage (a locked-down browser): ask the server as before.
    return true;
  }
}

export function rememberSession(): void {
  try {
    localStorage.setItem(storageKey, '1');
  } catch {
    /* no storage: hasSession is always true */
  }
}

export function forgetSession(): void {
  try {
    localStorage.removeItem(storageKey);
  } catch {
    /* no storage */
  }
}
