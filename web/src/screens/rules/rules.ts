// Trading rules in words, and the queries of the rules screens.
import { useQuery } from '@tanstack/react-query';
import { assetTypeNames, assetTypes } from '../../assetTypes';
import { counted } from '../../format';
import { client, unwrap, type Schemas } from '../../api/client';

export type Rule = Schemas['TradingRule'];
export type RuleType = Schemas['TradingRuleType'];
export type RuleParams = Schemas['TradingRuleParams'];
export type ComplianceDay = Schemas['RuleComplianceDay'];
export type Compliance = Schemas['RuleCompliance'];
export type RuleWeight = Schemas['TradingRuleWeight'];
export type RuleTrade = Schemas['RuleTrade'];

/** The parameter fields a form shows; money fields say which currency in the form. */
export type ParamName =
  | 'count'
  | 'amount'
  | 'percent'
  | 'quantity'
  | 'notional'
  | 'risk'
  | 'ratio'
  | 'from'
  | 'to'
  | 'weekdays'
  | 'minutes'
  | 'side'
  | 'fields'
  | 'assetTypes'
  | 'symbols';

/** The parameters chosen from a list (checkboxes), not typed. */
export type ListParam = 'weekdays' | 'fields' | 'assetTypes';

/** The money parameters: their label names the currency. */
export const moneyParams: ParamName[] = ['amount', 'notional', 'risk'];

interface TypeInfo {
  label: string;
  fields: ParamName[];
  /** At least one of fields is needed (the others are all required). */
  anyOf?: boolean;
}

export const ruleTypes: Record<RuleType, TypeInfo> = {
  maxTradesPerDay: { label: 'Maximum trades per day', fields: ['count'] },
  maxDailyLoss: { label: 'Maximum loss per day', fields: ['amount'] },
  maxRiskPerTrade: { label: 'Maximum risk per trade', fields: ['amount', 'percent'], anyOf: true },
  stopRequired: { label: 'A stop loss on every trade', fields: [] },
  maxConsecutiveLosses: { label: 'Stop after consecutive losses', fields: ['count'] },
  allowedHours: { label: 'Trade only between these hours', fields: ['from', 'to'] },
  maxPositionSize: { label: 'Maximum position size', fields: ['quantity', 'notional'], anyOf: true },
  noTradingDays: { label: 'No trading on these weekdays', fields: ['weekdays'] },
  minPlannedRR: { label: 'Minimum planned reward to risk', fields: ['ratio'] },
  maxWeeklyLoss: { label: 'Maximum loss per week', fields: ['amount'] },
  maxOpenExposure: { label: 'Maximum open exposure', fields: ['notional', 'risk'], anyOf: true },
  requiredFields: { label: 'Record these on every trade', fields: ['fields'] },
  allowedMarkets: { label: 'Trade only these markets', fields: ['assetTypes', 'symbols'], anyOf: true },
  allowedDirection: { label: 'Trade only one direction', fields: ['side'] },
  cooldownAfterLoss: { label: 'Pause after a losing trade', fields: ['minutes'] },
};

/** The weights in words, most important first; a score counts critical 3, important 2, nice to have 1. */
export const weights: Array<{ value: RuleWeight; label: string }> = [
  { value: 'critical', label: 'Critical (counts 3)' },
  { value: 'important', label: 'Important (counts 2)' },
  { value: 'niceToHave', label: 'Nice to have (counts 1)' },
];

export const weightText: Record<RuleWeight, string> = { critical: 'Critical', important: 'Important', niceToHave: 'Nice to have' };

/** The choices of the list parameters, in the API's words and the person's. */
export const listChoices: Record<Exclude<ListParam, 'weekdays'>, Array<{ value: string; label: string; words: string }>> = {
  fields: [
    { value: 'stop', label: 'Stop loss', words: 'stop loss' },
    { value: 'target', label: 'Target', words: 'target' },
    { value: 'notes', label: 'Notes', words: 'notes' },
    { value: 'tag', label: 'At least one tag', words: 'at least one tag' },
    { value: 'screenshot', label: 'A screenshot', words: 'a screenshot' },
  ],
  // The journal's asset types and their names (assetTypes.ts), in a
  // sentence lower case but an abbreviation ("CFDs").
  assetTypes: assetTypes.map((a) => {
    const name = assetTypeNames[a];
    return { value: a, label: name, words: name.charAt(1) === name.charAt(1).toLowerCase() ? name.charAt(0).toLowerCase() + name.slice(1) : name };
  }),
};

function choiceLabels(name: Exclude<ListParam, 'weekdays'>, values: string[] | undefined): string {
  return (values ?? []).map((v) => listChoices[name].find((c) => c.value === v)?.words ?? v).join(', ');
}

export const typeOrder = Object.keys(ruleTypes) as RuleType[];

/** fieldLabels are the form's words for each parameter, per rule type where they differ. */
export function fieldLabel(type: RuleType, name: ParamName): string {
  switch (name) {
    case 'count':
      return type === 'maxTradesPerDay' ? 'Most trades a day' : 'Losses in a row before you stop for the day';
    case 'amount':
      return type === 'maxDailyLoss' ? 'Most you may lose in a day' : type === 'maxWeeklyLoss' ? 'Most you may lose in a week' : 'Most money at risk per trade';
    case 'risk':
      return 'Most money at risk in open trades at once';
    case 'minutes':
      return 'Minutes to wait after a losing trade';
    case 'side':
      return 'Direction';
    case 'fields':
      return 'What every trade records';
    case 'assetTypes':
      return 'Asset types';
    case 'symbols':
      return 'Symbols, separated by commas';
    case 'percent':
      return 'Most risk per trade, % of the account balance';
    case 'quantity':
      return 'Most shares or contracts';
    case 'notional':
      return type === 'maxOpenExposure' ? 'Most money in open trades at once' : 'Most money in one position';
    case 'ratio':
      return 'Least planned reward for each 1 of risk';
    case 'from':
      return 'From (account time)';
    case 'to':
      return 'Until (account time)';
    case 'weekdays':
      return 'Weekdays without trading';
  }
}

export const weekdayNames = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** ruleText says what a rule asks, in words: "At most 3 trades a day". */
export function ruleText(rule: Pick<Rule, 'type' | 'params'>, currency: string): string {
  const p = rule.params;
  const money = (v: string | undefined) => `${v ?? ''} ${currency}`.trim();
  switch (rule.type) {
    case 'maxTradesPerDay':
      return `At most ${p.count ?? '?'} trade${p.count === 1 ? '' : 's'} a day`;
    case 'maxDailyLoss':
      return `Lose at most ${money(p.amount)} a day`;
    case 'maxRiskPerTrade':
      return `Risk at most ${[p.amount && money(p.amount), p.percent && `${p.percent}% of the balance`].filter(Boolean).join(' and ')} per trade`;
    case 'stopRequired':
      return 'Every trade has a stop loss';
    case 'maxConsecutiveLosses':
      return `Stop for the day after ${p.count ?? '?'} loss${p.count === 1 ? '' : 'es'} in a row`;
    case 'allowedHours':
      return `Enter trades only from ${p.from ?? '?'} until ${p.to ?? '?'}`;
    case 'maxPositionSize':
      return `Positions of at most ${[p.quantity && `${p.quantity} shares or contracts`, p.notional && money(p.notional)].filter(Boolean).join(' and ')}`;
    case 'noTradingDays':
      return `No trading on ${(p.weekdays ?? []).map((d) => weekdayNames[d - 1] ?? '?').join(', ')}`;
    case 'minPlannedRR':
      return `Plan at least ${p.ratio ?? '?'} of reward for each 1 of risk`;
    case 'maxWeeklyLoss':
      return `Lose at most ${money(p.amount)} a week`;
    case 'maxOpenExposure':
      return `Hold at most ${[p.notional && `${money(p.notional)} in open trades`, p.risk && `${money(p.risk)} at risk`].filter(Boolean).join(' and ')} at once`;
    case 'requiredFields':
      return `Record on every trade: ${choiceLabels('fields', p.fields)}`;
    case 'allowedMarkets':
      return `Trade only ${[p.assetTypes && choiceLabels('assetTypes', p.assetTypes), p.symbols?.join(', ')].filter(Boolean).join(' in ')}`;
    case 'allowedDirection':
      return p.side === 'short' ? 'Trade short only' : 'Trade long only';
    case 'cooldownAfterLoss':
      return `Wait ${p.minutes ?? '?'} minute${p.minutes === 1 ? '' : 's'} after a losing trade before the next entry`;
  }
}

/** scopeText is who a rule judges, in words: "Every account", "Main, trades tagged Scalp". */
export function scopeText(account: string, tag: string | undefined): string {
  return tag ? `${account}, trades tagged ${tag}` : account;
}

export type Violation = ComplianceDay['violations'][number];

/** A rule a day broke, with the trades that broke it, in the day's order. */
export interface BrokenRule {
  ruleId: string;
  type: RuleType;
  trades: Violation[];
}

/**
 * brokenRules groups a day's violations by rule, rules in the order they
 * were first broken: one line a rule, its trades under it.
 */
export function brokenRules(violations: Violation[]): BrokenRule[] {
  const byRule = new Map<string, BrokenRule>();
  for (const v of violations) {
    let g = byRule.get(v.ruleId);
    if (!g) {
      g = { ruleId: v.ruleId, type: v.type, trades: [] };
      byRule.set(v.ruleId, g);
    }
    g.trades.push(v);
  }
  return [...byRule.values()];
}

/** brokenRuleText is one broken rule in words: its name and how many trades broke it. */
export function brokenRuleText(g: BrokenRule): string {
  return `${ruleTypes[g.type].label}, broken by ${counted(g.trades.length, 'trade')}`;
}

export const ruleKeys = {
  list: ['rules', 'list'] as const,
  compliance: (from: string, to: string, days: boolean) => ['rules', 'compliance', from, to, days] as const,
};

export function useRules() {
  return useQuery({ queryKey: ruleKeys.list, queryFn: async () => (await unwrap(client.GET('/api/rules'))).items });
}

/** monthRange is the first and last day of a month "YYYY-MM". */
export function monthRange(month: string): { from: string; to: string } {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return { from: `${month}-01`, to: `${month}-${String(last).padStart(2, '0')}` };
}

/**
 * useCompliance is the rules' compliance of the days from..to (at most 366
 * days); days false asks for the counts and breakdown only. Nothing is
 * asked of a user without rules.
 */
export function useCompliance(from: string, to: string, days = true) {
  const rules = useRules();
  return useQuery({
    queryKey: ruleKeys.compliance(from, to, days),
    enabled: (rules.data?.length ?? 0) > 0,
    queryFn: () => unwrap(client.GET('/api/rules/compliance', { params: { query: days ? { from, to } : { from, to, days: 'false' } } })),
  });
}

/** useTradeCompliance is each trade opened from..to with its compliance (the days left out). */
export function useTradeCompliance(from: string, to: string) {
  const rules = useRules();
  return useQuery({
    queryKey: ['rules', 'trades', from, to] as const,
    enabled: (rules.data?.length ?? 0) > 0,
    queryFn: () => unwrap(client.GET('/api/rules/compliance', { params: { query: { from, to, days: 'false', trades: 'true' } } })),
  });
}

/** usePositionCompliance is a position's trade (its strategy, for a leg) and how it kept each rule; nothing is asked of a user without rules. */
export function usePositionCompliance(positionId: string) {
  const rules = useRules();
  return useQuery({
    queryKey: ['rules', 'position', positionId] as const,
    enabled: (rules.data?.length ?? 0) > 0,
    queryFn: () => unwrap(client.GET('/api/rules/compliance/positions/{positionId}', { params: { path: { positionId } } })),
  });
}

/** useDayCompliance is one day's compliance, read with the rest of its month (one request for a calendar month). */
export function useDayCompliance(date: string): { day: ComplianceDay | undefined; query: ReturnType<typeof useCompliance> } {
  const { from, to } = monthRange(date.slice(0, 7));
  const query = useCompliance(from, to);
  return { day: query.data?.days.find((d) => d.date === date), query };
}
