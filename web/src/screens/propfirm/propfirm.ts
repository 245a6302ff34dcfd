// The prop-firm plan's form (a draft of strings) and the words of its
// status. The API judges the plan (shared/propfirm); this module only
// converts between the form and the API's shapes and names things.
import type { Schemas } from '../../api/client';

export type Plan = Schemas['PropFirmPlan'];
export type PlanInput = Schemas['PropFirmPlanInput'];
export type Status = Schemas['PropFirmStatus']['status'];
export type Violation = Schemas['PropFirmViolation'];

/** PlanDraft is the form: every field as typed. */
export interface PlanDraft {
  phase: 'evaluation' | 'funded';
  startingBalance: string;
  profitTarget: string;
  timezone: string;
  dayStart: string;
  dailyLoss: string;
  dailyBasis: 'balance' | 'equity';
  dailyPausesOnly: boolean;
  drawdown: string;
  drawdownKind: 'static' | 'trailingEndOfDay' | 'trailingIntraday';
  lockAt: string;
  minTradingDays: string;
  consistencyPercent: string;
  maxContracts: string;
  hoursFrom: string;
  hoursTo: string;
  weekdays: number[];
  noWeekendHolding: boolean;
  warnAtPercent: string;
}

export const blankDraft: PlanDraft = {
  phase: 'evaluation',
  startingBalance: '',
  profitTarget: '',
  timezone: 'America/New_York',
  dayStart: '17:00',
  dailyLoss: '',
  dailyBasis: 'balance',
  dailyPausesOnly: false,
  drawdown: '',
  drawdownKind: 'static',
  lockAt: '',
  minTradingDays: '',
  consistencyPercent: '',
  maxContracts: '',
  hoursFrom: '',
  hoursTo: '',
  weekdays: [],
  noWeekendHolding: false,
  warnAtPercent: '80',
};

/** draftOf fills the form from a stored plan or a template's. */
export function draftOf(p: Plan): PlanDraft {
  return {
    phase: p.phase,
    startingBalance: p.startingBalance,
    profitTarget: p.profitTarget ?? '',
    timezone: p.timezone,
    dayStart: p.dayStart,
    dailyLoss: p.dailyLoss?.amount ?? '',
    dailyBasis: p.dailyLoss?.basis ?? 'balance',
    dailyPausesOnly: p.dailyLoss?.pausesOnly ?? false,
    drawdown: p.maxDrawdown?.amount ?? '',
    drawdownKind: p.maxDrawdown?.kind ?? 'static',
    lockAt: p.maxDrawdown?.lockAt ?? '',
    minTradingDays: p.minTradingDays ? String(p.minTradingDays) : '',
    consistencyPercent: p.consistencyPercent ?? '',
    maxContracts: p.maxContracts ?? '',
    hoursFrom: p.allowedHours?.from ?? '',
    hoursTo: p.allowedHours?.to ?? '',
    weekdays: p.allowedHours?.weekdays ?? [],
    noWeekendHolding: p.noWeekendHolding,
    warnAtPercent: String(p.warnAtPercent),
  };
}

const orNull = (s: string) => (s.trim() === '' ? null : s.trim());

/** whole is a typed whole number; other text is sent as it is, so the API's answer names the field. */
function whole(s: string): number | undefined {
  const t = s.trim();
  if (t === '') return undefined;
  return /^-?\d+$/.test(t) ? Number(t) : (t as unknown as number);
}

/** planRequest turns the form into the API's body: a blank limit is none. */
export function planRequest(d: PlanDraft): PlanInput {
  const body: PlanInput = {
    phase: d.phase,
    startingBalance: d.startingBalance.trim(),
    timezone: d.timezone.trim(),
    dayStart: d.dayStart.trim(),
    profitTarget: orNull(d.profitTarget),
    dailyLoss: orNull(d.dailyLoss) === null ? null : { amount: d.dailyLoss.trim(), basis: d.dailyBasis, pausesOnly: d.dailyPausesOnly },
    maxDrawdown:
      orNull(d.drawdown) === null ? null : { amount: d.drawdown.trim(), kind: d.drawdownKind, lockAt: d.drawdownKind === 'static' ? null : orNull(d.lockAt) },
    consistencyPercent: orNull(d.consistencyPercent),
    maxContracts: orNull(d.maxContracts),
    allowedHours: d.hoursFrom.trim() === '' && d.hoursTo.trim() === '' ? null : { from: d.hoursFrom.trim(), to: d.hoursTo.trim(), weekdays: d.weekdays },
    noWeekendHolding: d.noWeekendHolding,
  };
  const days = whole(d.minTradingDays);
  if (days !== undefined) body.minTradingDays = days;
  const warn = whole(d.warnAtPercent);
  if (warn !== undefined) body.warnAtPercent = warn;
  return body;
}

/** How the form labels the plan's fields in error sentences. */
export const planLabels: Record<string, string> = {
  phase: 'phase',
  startingBalance: 'starting balance',
  profitTarget: 'profit target',
  timezone: "firm's time zone",
  dayStart: 'time the trading day starts',
  'dailyLoss.amount': 'daily loss limit',
  'dailyLoss.basis': 'daily loss measured on',
  'maxDrawdown.amount': 'maximum drawdown',
  'maxDrawdown.kind': 'drawdown kind',
  'maxDrawdown.lockAt': 'balance the floor locks at',
  minTradingDays: 'minimum trading days',
  consistencyPercent: 'best day’s share of the profit',
  maxContracts: 'most contracts open',
  'allowedHours.from': 'first allowed time',
  'allowedHours.to': 'last allowed time',
  'allowedHours.weekdays': 'allowed weekdays',
  warnAtPercent: 'warning share of the daily limit',
};

/** What each violated rule is called. */
export const ruleNames: Record<Violation['rule'], string> = {
  dailyLoss: 'Daily loss limit',
  maxDrawdown: 'Maximum drawdown',
  maxContracts: 'Most contracts open',
  allowedHours: 'Allowed hours',
  noWeekendHolding: 'No weekend holding',
};

export const drawdownKinds: Record<PlanDraft['drawdownKind'], string> = {
  static: 'Static (from the starting balance)',
  trailingEndOfDay: 'Trailing, end of day',
  trailingIntraday: 'Trailing, intraday',
};

/** resultText is the plan's standing in words. */
export function resultText(s: Pick<Status, 'result' | 'passedOn'>, phase: Plan['phase']): string {
  if (s.result === 'failed') return 'Failed';
  if (s.result === 'passed') return 'Passed';
  return phase === 'funded' ? 'Active' : 'In progress';
}

/** barPercent is a percent string clamped to 0..100 for a bar's width. */
export function barPercent(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n)) return 0;
  return Math.min(100, Math.max(0, n));
}
