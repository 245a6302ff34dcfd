import { describe, expect, it } from 'vitest';
import { readConfig, safeHttpUrl } from './config';

describe('readConfig', () => {
  it('reads every public key', () => {
    expect(
      readConfig({
        newsletterUrl: 'https://news.example/',
        analyticsPublicKey: 'phc_abc',
        analyticsHost: 'https://eu.i.posthog.com/',
        analyticsFeedbackSurvey: 's:r:t',
        version: 'v1.2.3',
      }),
    ).toEqual({
      newsletterUrl: 'https://news.example/',
      analyticsPublicKey: 'phc_abc',
      analyticsHost: 'https://eu.i.posthog.com',
      analyticsFeedbackSurvey: 's:r:t',
      version: 'v1.2.3',
    });
  });

  it('turns a missing script, missing keys and wrong types into empty strings', () => {
    const empty = { newsletterUrl: '', analyticsPublicKey: '', analyticsHost: '', analyticsFeedbackSurvey: '', version: '' };
    expect(readConfig(undefined)).toEqual(empty);
    expect(readConfig(null)).toEqual(empty);
    expect(readConfig('x')).toEqual(empty);
    expect(readConfig({ analyticsPublicKey: 42, version: { a: 1 } })).toEqual(empty);
  });

  it('reads window.__TRADEJOURNAL_CONFIG__ by default', () => {
    window.__TRADEJOURNAL_CONFIG__ = { version: 'v9' };
    expect(readConfig().version).toBe('v9');
    delete window.__TRADEJOURNAL_CONFIG__;
  });
});

describe('safeHttpUrl', () => {
  it('accepts http and https only', () => {
    expect(safeHttpUrl('https://x.example/a')).toBe('https://x.example/a');
    expect(safeHttpUrl('javascript:alert(1)')).toBeNull();
    expect(safeHttpUrl('not a url')).toBeNull();
    expect(safeHttpUrl('')).toBeNull();
  });
});
