import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeEach } from 'vitest';
import { forgetSession, rememberSession } from '../session';

afterEach(() => cleanup());

// Screens are tested signed in, as they run; a test of a signed-out screen
// forgets the session first.
beforeEach(rememberSession);
afterEach(forgetSession);

// The machine running the tests is shared and slow at times: wait longer for screens to settle.
configure({ asyncUtilTimeout: 5000 });

// jsdom has no matchMedia (uPlot reads the pixel ratio through it): a light-scheme, no-match stand-in.
if (typeof window.matchMedia !== 'function') {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      addListener: () => undefined,
      removeListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList;
}
