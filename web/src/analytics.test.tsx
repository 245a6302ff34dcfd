import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import type { CaptureResult } from 'posthog-js';
import {
  analytics,
  analyticsOptions,
  sendFeedback,
  feedbackSurvey,
  parseFeedbackSurvey,
  referringHostname,
  resolveUrl,
  scrubEvent,
  scrubText,
  stripFragments,
  surveySentProperties,
} from './analytics';
import { FeedbackTab } from './components/FeedbackTab';
import type { PublicConfig } from './config';

const cfg = (over: Partial<PublicConfig> = {}): PublicConfig => ({
  newsletterUrl: '',
  analyticsPublicKey: 'phc_test',
  analyticsHost: 'https://eu.i.posthog.com',
  analyticsFeedbackSurvey: '',
  version: 'v1',
  ...over,
});

describe('analyticsOptions', () => {
  it('is the privacy configuration of spec part 6 item 4', () => {
    const o = analyticsOptions(cfg());
    expect(o).toMatchObject({
      api_host: 'https://eu.i.posthog.com',
      persistence: 'memory',
      autocapture: false,
      disable_session_recording: true,
      disable_surveys: true,
      advanced_disable_feature_flags: true,
      advanced_disable_feature_flags_on_first_load: true,
      advanced_disable_flags: true,
      capture_performance: { web_vitals: true, network_timing: false },
      disable_external_dependency_loading: true,
      capture_pageview: false,
    });
    expect(o.before_send).toBe(scrubEvent);
  });

  it('loads nothing without a key', async () => {
    await expect(analytics(cfg({ analyticsPublicKey: '' }))).resolves.toBeNull();
  });
});

describe('stripFragments', () => {
  it('strips the fragment and keeps the query string', () => {
    expect(stripFragments('https://app.example/reset-password?x=1#token=secret')).toBe('https://app.example/reset-password?x=1');
    expect(stripFragments('/verify-email#token=abc')).toBe('/verify-email');
  });
  it('strips fragments of nested URLs at every depth', () => {
    const inner = 'https://b.example/verify-email?next=' + encodeURIComponent('/reset-password#token=deep');
    const outer = 'https://a.example/signin?next=' + encodeURIComponent(inner + '#token=mid') + '#token=top';
    const out = stripFragments(outer);
    expect(out).not.toMatch(/token|deep|mid|top|%23|#/);
    expect(out.startsWith('https://a.example/signin?next=')).toBe(true);
    const middle = new URL(out).searchParams.get('next') ?? '';
    expect(middle).toBe('https://b.example/verify-email?next=%2Freset-password');
    expect(new URL(middle).searchParams.get('next')).toBe('/reset-password');
  });
  it('drops a percent-encoded fragment inside a query value', () => {
    expect(stripFragments('/signin?next=%2Freset%23token%3Dabc')).toBe('/signin?next=%2Freset');
  });
});

describe('resolveUrl', () => {
  it('resolves a path against the origin without the fragment', () => {
    expect(resolveUrl('/positions?status=open#x', 'https://app.example')).toBe('https://app.example/positions?status=open');
  });
});

describe('referringHostname', () => {
  it('keeps only the hostname', () => {
    expect(referringHostname('https://news.example/path?q=1#frag')).toBe('news.example');
    expect(referringHostname('news.example')).toBe('news.example');
    expect(referringHostname('$direct')).toBe('$direct');
    expect(referringHostname(undefined)).toBe('');
  });
});

const event = (properties: Record<string, unknown>, extra: Partial<CaptureResult> = {}): CaptureResult => ({
  uuid: 'u',
  event: '$pageview',
  properties,
  ...extra,
});

describe('scrubEvent (before_send)', () => {
  it('strips fragments from page URLs and paths at every depth', () => {
    const out = scrubEvent(
      event({
        $current_url: 'https://app.example/reset-password?a=1#token=t1',
        $pathname: '/reset-password#token=t2',
        $initial_current_url: 'https://app.example/verify-email#token=t3',
        $web_vitals_LCP_event: { name: 'LCP', value: 1200, $current_url: 'https://app.example/x#token=t4', attribution: { element: '#secret' } },
      }),
    );
    const text = JSON.stringify(out);
    expect(text).not.toMatch(/t1|t2|t3|t4|#/);
    expect(out?.properties.$current_url).toBe('https://app.example/reset-password?a=1');
    expect(out?.properties.$pathname).toBe('/reset-password');
    expect(out?.properties.$web_vitals_LCP_event).toEqual({ name: 'LCP', value: 1200, $current_url: 'https://app.example/x' });
  });

  it('drops referrers and keeps the referring hostname, also in person properties', () => {
    const out = scrubEvent(
      event(
        { $referrer: 'https://news.example/a?b=c#d', $referring_domain: 'news.example', $initial_referrer: 'https://x.example/p' },
        { $set_once: { $initial_referrer: 'https://x.example/p', $initial_referring_domain: 'https://x.example/p?q' } },
      ),
    );
    expect(out?.properties.$referrer).toBeUndefined();
    expect(out?.properties.$initial_referrer).toBeUndefined();
    expect(out?.properties.$referring_domain).toBe('news.example');
    expect(out?.$set_once).toEqual({ $initial_referring_domain: 'x.example' });
  });

  it('drops every $geoip_* value and asks for no geo enrichment', () => {
    const out = scrubEvent(event({ $geoip_city_name: 'Berlin', nested: { $geoip_country_code: 'DE' } }, { $set: { $geoip_city_name: 'Berlin' } }));
    expect(JSON.stringify(out)).not.toContain('Berlin');
    expect(JSON.stringify(out)).not.toContain('DE');
    expect(out?.properties.$geoip_disable).toBe(true);
  });

  it('passes null through', () => {
    expect(scrubEvent(null)).toBeNull();
  });
});

describe('scrubText', () => {
  it('masks emails and secrets', () => {
    const out = scrubText(
      'mail me at jane.doe@example.com, password: hunter2 token=abc123 key sk_live_51HxYzAbCdEfGh ' +
        'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc_DEF-123 random Zx9aQ2mN8pL4vB7cR1tY6uW3 card 4242 4242 4242 4242',
    );
    for (const secret of ['jane.doe@example.com', 'hunter2', 'abc123', 'sk_live_51HxYzAbCdEfGh', 'eyJhbGciOiJIUzI1NiJ9', 'Zx9aQ2mN8pL4vB7cR1tY6uW3', '4242 4242']) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('[email]');
    expect(out).toContain('mail me at');
  });
  it('leaves ordinary feedback alone', () => {
    expect(scrubText('The calendar is great, please add a weekly view!')).toBe('The calendar is great, please add a weekly view!');
  });
});

describe('feedback survey', () => {
  it('parses <surveyId>:<ratingQuestionId>:<textQuestionId>', () => {
    expect(parseFeedbackSurvey('0190-abc:q1:q2')).toEqual({ surveyId: '0190-abc', ratingQuestionId: 'q1', textQuestionId: 'q2' });
    for (const bad of ['', 'a:b', 'a:b:c:d', 'a::c', 'a:b:c d', ':b:c']) expect(parseFeedbackSurvey(bad)).toBeNull();
  });
  it('needs the public key too', () => {
    expect(feedbackSurvey(cfg({ analyticsFeedbackSurvey: 's:r:t' }))).not.toBeNull();
    expect(feedbackSurvey(cfg({ analyticsFeedbackSurvey: 's:r:t', analyticsPublicKey: '' }))).toBeNull();
  });
  it('builds a scrubbed survey-sent event', () => {
    const props = surveySentProperties({ surveyId: 's', ratingQuestionId: 'r', textQuestionId: 't' }, 4, 'reach me at a@b.co');
    expect(props).toEqual({
      $survey_id: 's',
      $survey_completed: true,
      $survey_response_r: '4',
      $survey_response_t: 'reach me at [email]',
      $survey_questions: [
        { id: 'r', response: '4' },
        { id: 't', response: 'reach me at [email]' },
      ],
    });
    expect(surveySentProperties({ surveyId: 's', ratingQuestionId: 'r', textQuestionId: 't' }, 5, '  ')).not.toHaveProperty('$survey_response_t');
  });
  it('renders the tab only with a key and a valid survey', () => {
    const { unmount } = render(<FeedbackTab config={cfg({ analyticsFeedbackSurvey: 's:r:t' })} />);
    expect(screen.getByRole('button', { name: 'Feedback' })).toBeInTheDocument();
    unmount();
    render(<FeedbackTab config={cfg({ analyticsFeedbackSurvey: 'broken' })} />);
    expect(screen.queryByRole('button', { name: 'Feedback' })).toBeNull();
    render(<FeedbackTab config={cfg({ analyticsFeedbackSurvey: 's:r:t', analyticsPublicKey: '' })} />);
    expect(screen.queryByRole('button', { name: 'Feedback' })).toBeNull();
  });
});

vi.mock('posthog-js', () => ({ default: { init: vi.fn(), register: vi.fn(), capture: vi.fn() } }));
vi.mock('posthog-js/dist/web-vitals', () => ({}));

describe('analytics()', () => {
  it('initialises the SDK once with the options and registers $geoip_disable', async () => {
    const { default: posthog } = await import('posthog-js');
    const a = await analytics(cfg());
    await analytics(cfg());
    expect(a).toBe(posthog);
    expect(posthog.init).toHaveBeenCalledTimes(1);
    expect(vi.mocked(posthog.init).mock.calls[0]?.[0]).toBe('phc_test');
    expect(vi.mocked(posthog.init).mock.calls[0]?.[1]).toMatchObject({ persistence: 'memory', autocapture: false });
    expect(posthog.register).toHaveBeenCalledWith({ $geoip_disable: true });
  });
});

describe('sendFeedback', () => {
  it('captures a scrubbed survey-sent event and leaves nothing in localStorage', async () => {
    const { default: posthog } = await import('posthog-js');
    vi.mocked(posthog.capture).mockImplementation((() => {
      localStorage.setItem('seenSurvey_s1', 'true'); // what the SDK does on "survey sent"
      return undefined;
    }) as typeof posthog.capture);
    localStorage.setItem('tj-theme', 'dark');
    const ok = await sendFeedback(5, 'write to me@example.com', cfg({ analyticsFeedbackSurvey: 's1:r:t' }));
    expect(ok).toBe(true);
    expect(posthog.capture).toHaveBeenCalledWith('survey sent', expect.objectContaining({ $survey_id: 's1', $survey_response_r: '5', $survey_response_t: 'write to [email]' }));
    expect(localStorage.getItem('seenSurvey_s1')).toBeNull();
    expect(localStorage.getItem('tj-theme')).toBe('dark');
    localStorage.clear();
  });

  it('sends nothing without a valid survey', async () => {
    expect(await sendFeedback(5, 'x', cfg({ analyticsFeedbackSurvey: 'nope' }))).toBe(false);
  });
});
