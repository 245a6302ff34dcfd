// The public settings the server writes to /config.js before the bundle
// runs (cmd/local/web.go, web/docker/start.sh). Public values only.

export interface PublicConfig {
  /** Where the closed-sign-up notice sends people; "" for none. */
  newsletterUrl: string;
  /** Frontend analytics key; "" turns analytics off. */
  analyticsPublicKey: string;
  /** Analytics ingestion host, without a trailing slash. */
  analyticsHost: string;
  /** `<surveyId>:<ratingQuestionId>:<textQuestionId>` or "". */
  analyticsFeedbackSurvey: string;
  /** The build version of the web app's server. */
  version: string;
}

declare global {
  interface Window {
    __TRADEJOURNAL_CONFIG__?: unknown;
  }
}

const keys = ['newsletterUrl', 'analyticsPublicKey', 'analyticsHost', 'analyticsFeedbackSurvey', 'version'] as const;

/**
 * readConfig reads window.__TRADEJOURNAL_CONFIG__ defensively: a missing
 * script (dev server without the api), a missing key or a non-string value
 * becomes "", so no feature turns on by accident.
 */
export function readConfig(source: unknown = typeof window === 'undefined' ? undefined : window.__TRADEJOURNAL_CONFIG__): PublicConfig {
  const raw = source !== null && typeof source === 'object' ? (source as Record<string, unknown>) : {};
  const out = {} as PublicConfig;
  for (const key of keys) {
    const value = raw[key];
    out[key] = typeof value === 'string' ? value.trim() : '';
  }
  out.analyticsHost = out.analyticsHost.replace(/\/+$/, '');
  return out;
}

/** safeHttpUrl returns the URL when it is http(s), otherwise null (never a javascript: link). */
export function safeHttpUrl(value: string): string | null {
  try {
    const u = new URL(value);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.toString() : null;
  } catch {
    return null;
  }
}

let cached: PublicConfig | undefined;

/** publicConfig is the page's config, read once. */
export function publicConfig(): PublicConfig {
  cached ??= readConfig();
  return cached;
}
