import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// `npm run dev` proxies the api (and /config.js) to a running bin/local.
const apiTarget = process.env.TJ_API ?? 'http://127.0.0.1:3200';

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/api': apiTarget,
      '/config.js': apiTarget,
    },
  },
  build: {
    target: 'es2022',
    sourcemap: false,
    // posthog-js (about 350 kB raw) is its own chunk, loaded only when analytics is on.
    chunkSizeWarningLimit: 400,
    rolldownOptions: {
      // The plugin-timing note (PLUGIN_TIMINGS) reads like a problem in a
      // five-second build; it is a profiling hint, not a warning.
      checks: { bundlerTimings: false },
    },
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    testTimeout: 20000,
  },
});
