// The note the app shows while the device has no connection: the installed
// app opens from its service worker's copy, and says what still works.
import { useSyncExternalStore } from 'react';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('online', onChange);
  window.addEventListener('offline', onChange);
  return () => {
    window.removeEventListener('online', onChange);
    window.removeEventListener('offline', onChange);
  };
}

/** useOnline is the browser's idea of being connected, kept current. */
export function useOnline(): boolean {
  return useSyncExternalStore(subscribe, () => navigator.onLine, () => true);
}

export const offlineText =
  'You are offline. What this page already shows stays readable, and you can move between the screens you opened; saving, importing and fresh figures wait until the connection is back.';

/** offlineStartText is what the app says when it opens offline: it has no journal to show. */
export const offlineStartText =
  'You are offline. The app opened from this device, but your journal lives on the server: connect to the internet, then reload. Nothing you saved is lost.';

/** OfflineNote is nothing while online. */
export function OfflineNote() {
  const online = useOnline();
  if (online) return null;
  return (
    <p role="status" className="note note-warn offline-note">
      {offlineText}
    </p>
  );
}
