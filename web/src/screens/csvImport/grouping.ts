import type { Schemas } from '../../api/client';

type Preview = Schemas['CsvImportPreview'];
type Position = Schemas['CsvImportProposedPosition'];

/** A grouping is the strategies an import makes: each a list of indexes into the preview's positions. */
export type Grouping = number[][];

/** The most legs a strategy holds (the server's MaxStrategyLegs). */
export const maxLegs = 24;

/** proposedGrouping is the preview's own proposal: the legs each multi-leg order opened together. */
export function proposedGrouping(preview: Preview): Grouping {
  return preview.strategies.map((s) => [...s.positions].sort((a, b) => a - b));
}

/** underlyingOf is what a strategy's legs share: an option's underlying (an OCC symbol's first six characters), a share's symbol. */
export function underlyingOf(p: Position): string {
  return p.assetType === 'option' ? p.symbol.slice(0, 6).trim() : p.symbol;
}

/** groupable: a position the file opens on its own (not one it adds to, nor one a reversal opens), and not a future. */
export function groupable(p: Position): boolean {
  return p.existingPositionId === null && p.reversalOf === null && p.assetType !== 'future';
}

/** without takes positions out of their groups; a group left with fewer than two legs is no strategy and goes. */
function without(groups: Grouping, positions: number[]): Grouping {
  return groups.map((g) => g.filter((i) => !positions.includes(i))).filter((g) => g.length >= 2);
}

/** takeOut takes one leg out of its strategy: it stays a position of its own. */
export function takeOut(groups: Grouping, position: number): Grouping {
  return without(groups, [position]);
}

/** ungroup undoes a strategy: each of its legs stays a position of its own. */
export function ungroup(groups: Grouping, index: number): Grouping {
  return groups.filter((_, g) => g !== index);
}

/** mergeProblem says, in the trader's words, why the ticked positions cannot be one strategy; null when they can. */
export function mergeProblem(preview: Preview, selected: number[]): string | null {
  const legs = selected.map((i) => preview.positions[i]).filter((p): p is Position => p !== undefined);
  if (legs.length < 2) return 'Tick two legs or more to group them as one strategy.';
  if (legs.length > maxLegs) return `A strategy holds at most ${maxLegs} legs.`;
  if (legs.some((p) => !groupable(p))) return 'Only positions this file opens can be grouped here; group the others under Strategies after the import.';
  if (new Set(legs.map((p) => p.accountId)).size > 1) return "These legs go to different accounts: a strategy's legs are in one account.";
  const underlyings = [...new Set(legs.map(underlyingOf))];
  if (underlyings.length > 1) return `These legs are on ${underlyings.join(' and ')}: a strategy's legs share one underlying.`;
  return null;
}

/** merge makes the ticked positions one strategy, taking them out of the strategies they were in. */
export function merge(groups: Grouping, selected: number[]): Grouping {
  return [...without(groups, selected), [...new Set(selected)].sort((a, b) => a - b)];
}

/** sameGrouping: whether two groupings make the same strategies, whatever their order. */
export function sameGrouping(a: Grouping, b: Grouping): boolean {
  const key = (g: Grouping) =>
    g
      .map((legs) => [...legs].sort((x, y) => x - y).join(','))
      .sort()
      .join(';');
  return key(a) === key(b);
}

/** proposedLabel is the preview's label of a group it proposed as it is, or null for a group of the trader's. */
export function proposedLabel(preview: Preview, group: number[]): string | null {
  const found = preview.strategies.find((s) => sameGrouping([s.positions], [group]));
  return found ? found.label : null;
}

/** The options strategy calculator analyses at most this many legs. */
const calculatorMaxLegs = 8;

/**
 * calculatorLegs are a group's legs as the options strategy calculator (POST /api/calculator/strategy) takes them, to name
 * a group the trader made: their entry side, size and average price. null when it cannot analyse them (more than 8
 * legs, a leg without an entry price); the group is then called a custom strategy.
 */
export function calculatorLegs(preview: Preview, group: number[]): Schemas['StrategyLegInput'][] | null {
  if (group.length > calculatorMaxLegs) return null;
  const legs: Schemas['StrategyLegInput'][] = [];
  for (const i of group) {
    const p = preview.positions[i];
    if (!p || p.avgEntryPrice === null) return null;
    const side = p.side === 'short' ? 'short' : 'long';
    legs.push(
      p.assetType === 'option'
        ? { symbol: p.symbol, side, quantity: p.entryQuantity, price: p.avgEntryPrice, multiplier: String(p.multiplier) }
        : { type: 'shares', side, quantity: p.entryQuantity, price: p.avgEntryPrice },
    );
  }
  return legs;
}

/**
 * candidates are the positions the trader may group by hand: those the file opens on their own, on an underlying (in one
 * account) where it opens two or more with an option among them, in the preview's order.
 */
export function candidates(preview: Preview): number[] {
  const on = new Map<string, number[]>();
  preview.positions.forEach((p, i) => {
    if (!groupable(p)) return;
    const key = `${p.accountId} ${underlyingOf(p)}`;
    const list = on.get(key);
    if (list) list.push(i);
    else on.set(key, [i]);
  });
  const out: number[] = [];
  for (const list of on.values()) {
    if (list.length >= 2 && list.some((i) => preview.positions[i]?.assetType === 'option')) out.push(...list);
  }
  return out.sort((a, b) => a - b);
}
