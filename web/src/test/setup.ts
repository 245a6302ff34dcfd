import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => cleanup());

// The machine running the tests is shared and slow at times: wait longer for screens to settle.
configure({ asyncUtilTimeout: 5000 });
