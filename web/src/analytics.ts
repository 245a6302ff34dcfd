// Frontend analytics (spec part 6 item 4), on only when /config.js carries
// an analytics public key. posthog-js is loaded lazily, so a page without a
// key never downloads it. Memory-only persistence (no cookie, no storage),
// no autocapture, replay, surveys UI or feature-flag request; web vitals
// (timings only); no geo enrichment; page URLs resolved with their query
// strings but never a fragment (reset and verification tokens ride there),
// at any depth; referrers reduced to the referring hostname.
import { useEffect } from 'react';
import { useLocation } from 'react-router';
import type { BeforeSendFn, CaptureResult, PostHog, PostHogConfig, Properties } from 'posthog-js';
import { publicConfig, type PublicConfig } from './config';

/** analyticsOptions is the exact SDK configuration (asserted by the unit tests). */
export function analyticsOptions(cfg: Pick<PublicConfig, 'analyticsHost'>): Partial<PostHogConfig> {
  return {
    api_host: cfg.analyticsHost || 'https://us.i.posthog.com',
    persistence: 'memory',
    autocapture: false,
    capture_pageview: false, // the router reports each screen (usePageViews)
    capture_pageleave: false,
    disable_session_recording: true,
    disable_surveys: true,
    disable_surveys_automatic_display: true,
    disable_product_tours: true,
    disable_conversations: true,
    disable_web_experiments: true,
    advanced_disable_flags: true,
    advanced_disable_feature_flags: true,
    advanced_disable_feature_flags_on_first_load: true,
    capture_performance: { web_vitals: true, network_timing: false },
    capture_heatmaps: false,
    capture_dead_clicks: false,
    capture_exceptions: false,
    // The CSP allows no foreign script; web vitals are bundled instead.
    disable_external_dependency_loading: true,
    mask_personal_data_properties: true,
    save_referrer: true, // reduced to the hostname in before_send
    ip: false,
    person_profiles: 'identified_only',
    before_send: scrubEvent as BeforeSendFn,
  };
}

/** Registered on every event: the ingestion skips geo enrichment. */
export const superProperties = { $geoip_disable: true } as const;

const maxDepth = 6;

/**
 * stripFragments removes the fragment of a URL or path and, recursively,
 * of every URL nested in its query string (a `next=` link carrying a
 * token). A percent-encoded "#" inside a query value counts as one too.
 */
export function stripFragments(raw: string, depth = 0): string {
  const hashAt = raw.indexOf('#');
  const head = hashAt >= 0 ? raw.slice(0, hashAt) : raw;
  const q = head.indexOf('?');
  if (q < 0 || depth >= maxDepth) return head;
  const params = new URLSearchParams(head.slice(q + 1));
  const kept = new URLSearchParams();
  for (const [key, value] of params) {
    const encodedHash = value.search(/%23/i);
    kept.append(key, stripFragments(encodedHash >= 0 ? value.slice(0, encodedHash) : value, depth + 1));
  }
  const query = kept.toString();
  return query ? `${head.slice(0, q)}?${query}` : head.slice(0, q);
}

/** resolveUrl makes a page URL absolute (against the page's origin) and strips its fragments. */
export function resolveUrl(value: string, origin = typeof location === 'undefined' ? 'http://localhost' : location.origin): string {
  const stripped = stripFragments(value);
  try {
    return new URL(stripped, origin).toString().replace(/#.*$/, '');
  } catch {
    return stripped;
  }
}

/** referringHostname keeps only the hostname of a referrer ("" when there is none). */
export function referringHostname(value: unknown): string {
  if (typeof value !== 'string' || value === '' || value === '$direct') return typeof value === 'string' ? value : '';
  try {
    return new URL(value.includes('://') ? value : `https://${value}`).hostname;
  } catch {
    return '';
  }
}

const urlKey = /(url|href)$/i;
const pathKey = /pathname$/i;
const referrerKey = /referrer$/i; // $referrer, $initial_referrer: dropped
const referringDomainKey = /referring_domain$/i; // kept as the hostname
const webVitalTimingKeys = new Set(['name', 'value', 'delta', 'id', 'rating', 'navigationType', 'timestamp', '$current_url', '$session_id', '$window_id']);

function scrubValue(key: string, value: unknown, depth: number): unknown {
  if (depth > maxDepth) return undefined;
  if (typeof value === 'string') {
    if (urlKey.test(key)) return resolveUrl(value);
    if (pathKey.test(key)) return stripFragments(value);
    if (referringDomainKey.test(key)) return referringHostname(value);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => scrubValue(key, v, depth + 1));
  if (value !== null && typeof value === 'object') {
    const nested = scrubProperties(value as Properties, depth + 1);
    // A web-vitals event object carries timings only (no element attribution).
    if (/^\$web_vitals_.*_event$/.test(key)) {
      for (const k of Object.keys(nested)) if (!webVitalTimingKeys.has(k)) delete nested[k];
    }
    return nested;
  }
  return value;
}

/** scrubProperties applies the URL, referrer and geo rules to a property bag at every depth. */
export function scrubProperties(props: Properties, depth = 0): Properties {
  const out: Properties = {};
  for (const [key, value] of Object.entries(props)) {
    if (key.startsWith('$geoip_') && key !== '$geoip_disable') continue;
    if (referrerKey.test(key)) continue;
    const scrubbed = scrubValue(key, value, depth);
    if (scrubbed !== undefined) out[key] = scrubbed;
  }
  return out;
}

/** scrubEvent is the SDK's before_send: every event passes through it. */
export function scrubEvent(event: CaptureResult | null): CaptureResult | null {
  if (!event) return null;
  const out: CaptureResult = { ...event, properties: { ...scrubProperties(event.properties ?? {}), ...superProperties } };
  if (event.$set) out.$set = scrubProperties(event.$set);
  if (event.$set_once) out.$set_once = scrubProperties(event.$set_once);
  return out;
}

const emailPattern = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
// key=value or "key: value" where the key names a secret.
const labelledSecret = /\b(password|passwd|pwd|secret|token|api[_-]?key|apikey|authorization|bearer|session|cookie)\b(\s*[:=]\s*|\s+)("[^"]*"|'[^']*'|\S+)/gi;
// Well-known key prefixes, JWTs, and long random-looking strings.
const keyLike = /\b(?:sk|pk|rk|whsec|phc|phx|ghp|gho|xox[abp]|AKIA)[A-Za-z0-9_-]{8,}\b/g;
const jwtLike = /\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\b/g;
const longToken = /\b(?=[A-Za-z0-9_+/=-]*\d)(?=[A-Za-z0-9_+/=-]*[A-Za-z])[A-Za-z0-9_+/=-]{24,}\b/g;
const cardLike = /\b(?:\d[ -]?){13,19}\b/g;

/** scrubText masks emails and anything that looks like a secret in free text. */
export function scrubText(text: string): string {
  return text
    .replace(emailPattern, '[email]')
    .replace(labelledSecret, (_m, label: string, sep: string) => `${label}${sep}[redacted]`)
    .replace(jwtLike, '[redacted]')
    .replace(keyLike, '[redacted]')
    .replace(longToken, '[redacted]')
    .replace(cardLike, '[redacted]');
}

export interface FeedbackSurvey {
  surveyId: string;
  ratingQuestionId: string;
  textQuestionId: string;
}

const idPart = '[A-Za-z0-9][A-Za-z0-9_-]{0,99}';
const surveyPattern = new RegExp(`^(${idPart}):(${idPart}):(${idPart})$`);

/** parseFeedbackSurvey reads `<surveyId>:<ratingQuestionId>:<textQuestionId>`; null when malformed. */
export function parseFeedbackSurvey(value: string): FeedbackSurvey | null {
  const m = surveyPattern.exec(value.trim());
  if (!m || !m[1] || !m[2] || !m[3]) return null;
  return { surveyId: m[1], ratingQuestionId: m[2], textQuestionId: m[3] };
}

/** feedbackSurvey is the survey the feedback tab answers, or null when the tab must not render. */
export function feedbackSurvey(cfg: PublicConfig = publicConfig()): FeedbackSurvey | null {
  if (!cfg.analyticsPublicKey) return null;
  return parseFeedbackSurvey(cfg.analyticsFeedbackSurvey);
}

/** surveySentProperties is the anonymous "survey sent" event of a feedback answer. */
export function surveySentProperties(survey: FeedbackSurvey, rating: number, text: string): Properties {
  const props: Properties = {
    $survey_id: survey.surveyId,
    $survey_completed: true,
    [`$survey_response_${survey.ratingQuestionId}`]: String(rating),
    $survey_questions: [{ id: survey.ratingQuestionId, response: String(rating) }],
  };
  const cleaned = scrubText(text.trim());
  if (cleaned) {
    props[`$survey_response_${survey.textQuestionId}`] = cleaned;
    (props.$survey_questions as Properties[]).push({ id: survey.textQuestionId, response: cleaned });
  }
  return props;
}

let loading: Promise<PostHog | null> | undefined;

/** analytics loads and starts the SDK once; null when no key is configured. */
export function analytics(cfg: PublicConfig = publicConfig()): Promise<PostHog | null> {
  if (!cfg.analyticsPublicKey) return Promise.resolve(null);
  loading ??= (async () => {
    // The web-vitals extension registers itself on window for the SDK to find.
    await import('posthog-js/dist/web-vitals');
    const { default: posthog } = await import('posthog-js');
    posthog.init(cfg.analyticsPublicKey, analyticsOptions(cfg));
    posthog.register(superProperties);
    return posthog;
  })().catch(() => null);
  return loading;
}

/** usePageViews reports each screen the router shows (only with analytics on). */
export function usePageViews(): void {
  const location = useLocation();
  useEffect(() => {
    if (!publicConfig().analyticsPublicKey) return;
    void analytics().then((ph) => ph?.capture('$pageview'));
  }, [location.pathname, location.search]);
}

/**
 * forgetSurveyState removes what the SDK stores in localStorage when a
 * survey is answered (seenSurvey_<id> and friends): persistence stays
 * memory-only.
 */
export function forgetSurveyState(storage: Storage = localStorage): void {
  try {
    const stale: string[] = [];
    for (let i = 0; i < storage.length; i++) {
      const key = storage.key(i);
      if (key && /^(seenSurvey_|inProgressSurvey_|lastSeenSurveyDate)/.test(key)) stale.push(key);
    }
    for (const key of stale) storage.removeItem(key);
  } catch {
    /* storage unavailable: nothing was stored either */
  }
}

/** sendFeedback captures one feedback answer; resolves false when analytics is off. */
export async function sendFeedback(rating: number, text: string, cfg: PublicConfig = publicConfig()): Promise<boolean> {
  const survey = feedbackSurvey(cfg);
  const ph = survey ? await analytics(cfg) : null;
  if (!survey || !ph) return false;
  ph.capture('survey sent', surveySentProperties(survey, rating, text));
  forgetSurveyState();
  return true;
}
