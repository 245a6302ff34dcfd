// Light and dark themes. The user's choice (light, dark, or the system's)
// is stored on the server and travels as the tj_theme cookie, which
// /theme.js (web/public) applies before the app's scripts run, so the
// first paint already has it. The app changes it here at run time.
import type { Schemas } from './api/client';

export type Theme = Schemas['Theme'];

/** shownTheme is the theme the page is painted in now: the chosen one, else the system's. */
export function shownTheme(): 'light' | 'dark' {
  const chosen = document.documentElement.dataset.theme;
  if (chosen === 'light' || chosen === 'dark') return chosen;
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** chosenTheme is what the page follows: data-theme when one is set (by /theme.js or applyTheme), else the system. */
export function chosenTheme(): Theme {
  const chosen = document.documentElement.dataset.theme;
  return chosen === 'light' || chosen === 'dark' ? chosen : 'system';
}

/**
 * applyTheme paints the page in theme (CSS follows prefers-color-scheme
 * without data-theme) and writes the cookie for this origin too: a
 * signed-out visitor's pick, and the app on another origin than the api
 * (whose own cookie this page cannot read), last to the next first paint.
 */
export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  if (theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = theme;
  document.cookie = `tj_theme=${theme}; Path=/; Max-Age=${400 * 24 * 3600}; SameSite=Lax`;
}
