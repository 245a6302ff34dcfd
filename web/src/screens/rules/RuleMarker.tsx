import { counted } from '../../format';
import { brokenRuleText, brokenRules, useDayCompliance } from './rules';

/**
 * RuleMarker marks a calendar day that broke a trading rule: a small dot
 * with the count in words for assistive tech and as a tooltip. Nothing on a
 * day that kept them, or before the month's compliance has loaded.
 */
export function RuleMarker({ date }: { date: string }) {
  const { day } = useDayCompliance(date);
  if (!day || day.broken === 0) return null;
  const rules = brokenRules(day.violations).map((g) => `${brokenRuleText(g)} (${g.trades.map((v) => v.message).join('; ')})`);
  const text = `Broke ${counted(day.broken, 'rule')}: ${rules.join('; ')}`;
  return (
    <span className="rule-marker" title={text} data-testid={`rule-marker-${date}`}>
      <span aria-hidden="true">●</span>
      <span className="sr-only">{text}</span>
    </span>
  );
}
