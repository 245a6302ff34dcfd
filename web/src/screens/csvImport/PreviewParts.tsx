// Parts of the import wizard's preview: the preset read with, the warnings
// grouped by kind in words, and the partial-import confirmation.
import type { Schemas } from '../../api/client';
import { readable } from '../../api/messages';
import { counted } from '../../format';

type Preview = Schemas['CsvImportPreview'];
type Preset = Schemas['CsvImportPreset'];

/** PresetNote says which preset read the file and which the header matched. */
export function PresetNote({ preview, presets }: { preview: Preview; presets: Preset[] }) {
  const name = (id: string | null) => presets.find((p) => p.id === id)?.name ?? id ?? '';
  const { presetId, detectedPresetId } = preview;
  if (!presetId && !detectedPresetId) return null;
  return (
    <p className="hint" data-testid="preset-note">
      {presetId && presetId === detectedPresetId && <>Read as <strong>{name(presetId)}</strong>, detected from the file&apos;s header.</>}
      {presetId && presetId !== detectedPresetId && (
        <>
          Read as <strong>{name(presetId)}</strong>
          {detectedPresetId ? <> (the header looks like {name(detectedPresetId)}: choose it above to read it so)</> : null}.
        </>
      )}
      {!presetId && detectedPresetId && <>Read with your mapping; the header looks like {name(detectedPresetId)}, a preset you can choose above.</>}
    </p>
  );
}

/** problemTitles name each problem code (errors and warnings) as a trader reads it. */
const problemTitles: Record<string, string> = {
  MISSING_VALUE: 'A value is missing',
  INVALID_NUMBER: 'Not a number',
  INVALID_DATE: 'Not a date',
  INVALID_TIME: 'Not a time of day',
  INVALID_SIDE: 'Not a buy or a sell',
  INVALID_VALUE: 'A word not understood',
  INVALID_SYMBOL: 'Not a symbol',
  OUT_OF_RANGE: 'Outside what the journal records',
  UNSUPPORTED_ASSET: 'An asset the journal does not record',
  EXIT_WITHOUT_ENTRY: 'A closing fill with nothing open',
  EFFECT_MISMATCH: 'Opening or closing does not fit',
  TOO_MANY_FILLS: 'Too many fills in one position',
  MULTIPLE_ACCOUNTS: 'Trades of several accounts',
  UNKNOWN_POINT_VALUE: 'No point value for this futures root',
  DUPLICATE_IN_JOURNAL: 'Fills the journal already has',
  DUPLICATE_IN_FILE: 'Rows repeating an earlier row',
  NO_FEES_COLUMN: 'No fees column: fees estimated',
  FEES_ESTIMATED: 'Fees estimated from the fee schedule',
  DIRECTION_INFERRED: 'Side read from the order of fills',
  ROUNDED: 'Rounded to the places the journal keeps',
  ROWS_SKIPPED: 'Rows that are not fills, skipped',
  CONTINUES_POSITION: 'Continues a position open in the journal',
  REVERSAL: 'Closes a position and opens the opposite one',
  NOT_BOOKED: 'A credit or funding payment not booked',
  AWAITING_RATE: 'Waiting for an exchange rate',
};

/** problemTitle is a problem's code in words (a code this app does not know yet, as it is). */
export function problemTitle(code: string): string {
  return problemTitles[code] ?? code;
}

/** WarningGroups lists the warnings by kind, in words: a count and the first rows. */
export function WarningGroups({ groups }: { groups: Preview['warningGroups'] | undefined }) {
  // An answer of a server before grouping has none.
  if (!groups || groups.length === 0) return null;
  return (
    <details aria-label="Warnings">
      <summary>
        {counted(
          groups.reduce((n, g) => n + g.count, 0),
          'warning',
        )}
        : {groups.map((g) => `${problemTitle(g.code)} (${g.count})`).join(', ')}
      </summary>
      <ul>
        {groups.map((g) => (
          <li key={g.code}>
            {problemTitle(g.code)}: {counted(g.count, 'row')}
            <ul>
              {g.first.map((p, i) => (
                <li key={i}>
                  {p.row === 0 ? 'The file' : `Row ${p.row}`}: {readable(p.message)}
                </li>
              ))}
              {g.count > g.first.length && <li className="muted">and {g.count - g.first.length} more like these</li>}
            </ul>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** partialText is the confirmation of a partial import. */
export function partialText(preview: Preview): string {
  const n = preview.partialRowsLeftOut;
  return `Import the rows that can be read, leaving out ${counted(n, 'row')} (the errors' rows and the other rows of their instruments)`;
}
