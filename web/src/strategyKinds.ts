// What the strategy engine calls a structure (the API's StrategyKind), in a trader's words.
import type { Schemas } from './api/client';

/** strategyKindNames are the strategy engine's kinds as a trader names them (the statistics' "By strategy" and the strategy filter). */
export const strategyKindNames: Record<Schemas['StrategyKind'], string> = {
  'single-leg': 'Single leg',
  vertical: 'Vertical spread',
  calendar: 'Calendar spread',
  diagonal: 'Diagonal spread',
  straddle: 'Straddle',
  strangle: 'Strangle',
  'iron-condor': 'Iron condor',
  'iron-butterfly': 'Iron butterfly',
  butterfly: 'Butterfly',
  'covered-call': 'Covered call',
  collar: 'Collar',
  'ratio-spread': 'Ratio spread',
  custom: 'Custom strategy',
};
