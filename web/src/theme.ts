// Light and dark themes: the system preference unless the user picked one
// with the toggle (remembered in localStorage on this device).
export type Theme = 'light' | 'dark';

const storageKey = 'tj-theme';

export function storedTheme(): Theme | null {
  try {
    const v = localStorage.getItem(storageKey);
    return v === 'light' || v === 'dark' ? v : null;
  } catch {
    return null;
  }
}

function systemTheme(): Theme {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function currentTheme(): Theme {
  return storedTheme() ?? systemTheme();
}

/** applyTheme sets data-theme on <html>; CSS falls back to prefers-color-scheme without it. */
export function applyTheme(theme: Theme | null): void {
  const root = document.documentElement;
  if (theme) root.dataset.theme = theme;
  else delete root.dataset.theme;
}

export function saveTheme(theme: Theme): void {
  try {
    localStorage.setItem(storageKey, theme);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
  applyTheme(theme);
}
