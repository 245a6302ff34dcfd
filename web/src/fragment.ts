// Reset and verification links carry their token in the URL fragment
// (`#token=...`), which never reaches a server log or a Referer header.

/** fragmentToken reads `token` from a URL fragment such as "#token=abc"; null when absent. */
export function fragmentToken(hash: string): string | null {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const token = params.get('token')?.trim();
  return token ? token : null;
}

/** takeFragmentToken reads the token once and removes the fragment from the address bar and history. */
export function takeFragmentToken(): string | null {
  const token = fragmentToken(window.location.hash);
  if (window.location.hash) {
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  }
  return token;
}

/** safeNext keeps a post-sign-in redirect on this site (a path, never "//host" or a URL). */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next;
}
