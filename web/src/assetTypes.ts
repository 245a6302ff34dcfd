// What the journal calls an asset type (the API's assetType), in a trader's
// words: the one naming the filters, the statistics' breakdowns, the
// position form and the import mapping share.
import type { Schemas } from './api/client';

export type AssetType = Schemas['PositionSummary']['assetType'];

/** assetTypes are every asset type, in the order the choices list them. */
export const assetTypes: readonly AssetType[] = ['stock', 'option', 'future', 'future_option', 'forex', 'crypto', 'cfd'];

/** assetTypeNames are the asset types as a group is named: the filters and the breakdowns "by asset type". */
export const assetTypeNames: Record<AssetType, string> = {
  stock: 'Stocks',
  option: 'Options',
  future: 'Futures',
  future_option: 'Futures options',
  forex: 'Forex',
  crypto: 'Crypto',
  cfd: 'CFDs',
};

/** assetTypeName is one position's asset type, as a choice of a form names it: "Futures option", "CFD". */
export const assetTypeName: Record<AssetType, string> = {
  stock: 'Stock',
  option: 'Option',
  future: 'Future',
  future_option: 'Futures option',
  forex: 'Forex',
  crypto: 'Crypto',
  cfd: 'CFD',
};

/** groupName names an asset type the API answered in a breakdown; an unknown one (a newer API) as it came. */
export function groupName(assetType: string): string {
  return (assetTypeNames as Record<string, string>)[assetType] ?? assetType;
}
