import type { ApiError, Schemas } from '../../api/client';
import { legName } from './legs';

/** The words for the strategy's other fields, should the API name one. */
const fieldWords: Record<string, string> = { accountId: 'The account', name: 'The name', plannedRisk: 'The planned risk' };

/**
 * legsError says what is wrong with the legs chosen in the trader's words: the API names a leg by its index in the
 * list sent (positionIds[2]); this names it by its side and as a trader reads it ("short SPY Jun 18 2027 95 put").
 */
export function legsError(err: ApiError, positions: Array<Schemas['PositionSummary']>, chosen: string[]): string {
  const detail = err.details.find((d) => d.field.startsWith('positionIds')) ?? err.details[0];
  if (!detail) return err.message;
  const index = /^positionIds\[(\d+)\]$/.exec(detail.field);
  if (!index) return detail.field === 'positionIds' ? `Pick the legs: ${detail.message}.` : `${fieldWords[detail.field] ?? 'The strategy'} ${detail.message}.`;
  const p = positions.find((x) => x.id === chosen[Number(index[1])]);
  return `${p ? `${p.side} ${legName(p)}` : 'One of the legs'} ${detail.message}.`;
}
