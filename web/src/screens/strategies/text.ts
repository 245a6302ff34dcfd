import type { ApiError, Schemas } from '../../api/client';

/**
 * legsError says what is wrong with the legs chosen in the trader's words: the API names a leg by its index in the
 * list sent (positionIds[2]); this names it by its symbol and side.
 */
export function legsError(err: ApiError, positions: Array<Schemas['PositionSummary']>, chosen: string[]): string {
  const detail = err.details.find((d) => d.field.startsWith('positionIds')) ?? err.details[0];
  if (!detail) return err.message;
  const index = /^positionIds\[(\d+)\]$/.exec(detail.field);
  if (!index) return detail.field === 'positionIds' ? `Pick the legs: ${detail.message}.` : `${detail.field}: ${detail.message}.`;
  const p = positions.find((x) => x.id === chosen[Number(index[1])]);
  return `${p ? `${p.side} ${p.symbol}` : 'One of the legs'} ${detail.message}.`;
}
