// The theme's two controls: the header's one-click toggle between light
// and dark, and the Settings form that can also go back to the system's.
// Signed in, a choice is stored on the server (PUT /api/users/me/theme),
// which sends the cookie every browser of the user paints from.
import { useEffect, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client, unwrap } from '../api/client';
import { keys } from '../api/queries';
import { applyTheme, chosenTheme, shownTheme, type Theme } from '../theme';
import { ErrorNote, SelectField } from './ui';

/** useSaveTheme paints the page in a theme at once and, signed in, stores it. */
function useSaveTheme(signedIn: boolean) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (theme: Theme) => {
      applyTheme(theme);
      if (signedIn) return unwrap(client.PUT('/api/users/me/theme', { body: { theme } }));
    },
    onSuccess: (data) => {
      if (data) queryClient.setQueryData(keys.me, data.user);
    },
  });
}

/**
 * ThemeToggle switches between light and dark. saved is the signed-in
 * user's stored theme: a change made on another device is applied when
 * the user is read again.
 */
export function ThemeToggle({ signedIn, saved }: { signedIn: boolean; saved?: Theme }) {
  const [shown, setShown] = useState(shownTheme);
  const save = useSaveTheme(signedIn);
  useEffect(() => {
    if (saved && saved !== chosenTheme()) applyTheme(saved);
    setShown(shownTheme());
  }, [saved]);
  const next = shown === 'dark' ? 'light' : 'dark';
  return (
    <>
      <button
        type="button"
        className="ghost"
        aria-label={`Switch to ${next} theme`}
        onClick={() => {
          save.mutate(next);
          setShown(next);
        }}
      >
        {shown === 'dark' ? '☀' : '☾'}
      </button>
      {save.isError && (
        <span role="alert" className="field-error">
          Your theme was not saved; it applies on this device until you reload.
        </span>
      )}
    </>
  );
}

/** ThemeForm is the Settings section: light, dark, or the device's setting. */
export function ThemeForm({ saved }: { saved: Theme }) {
  const save = useSaveTheme(true);
  const [theme, setTheme] = useState<Theme>(saved);
  return (
    <form className="card" aria-label="Theme" onSubmit={(e) => e.preventDefault()}>
      <h2>Theme</h2>
      <p className="hint">Kept with your account: every browser you sign in with opens in it, even before the page has loaded.</p>
      <SelectField
        label="Theme"
        value={theme}
        onChange={(e) => {
          const v = e.target.value as Theme;
          setTheme(v);
          save.mutate(v);
        }}
      >
        <option value="system">Match this device (light or dark)</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </SelectField>
      {save.isSuccess && <span role="status">Saved.</span>}
      <ErrorNote error={save.error} />
    </form>
  );
}
