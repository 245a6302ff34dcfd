import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import type { Schemas } from '../../api/client';
import { partialText, PresetNote, WarningGroups } from './PreviewParts';

type Preview = Schemas['CsvImportPreview'];
const problem = (row: number, code: string): Schemas['CsvImportProblem'] => ({ row, column: 0, columnName: '', field: '', code, message: `m${row}` });
const presets = [{ id: 'tradovate', name: 'Tradovate: orders' }, { id: 'webull', name: 'Webull: orders' }] as Schemas['CsvImportPreset'][];

describe('PresetNote', () => {
  it('names the detected preset and an override', () => {
    const { rerender } = render(<PresetNote preview={{ presetId: 'tradovate', detectedPresetId: 'tradovate' } as Preview} presets={presets} />);
    expect(screen.getByTestId('preset-note').textContent).toContain('Read as Tradovate: orders, detected');
    rerender(<PresetNote preview={{ presetId: 'webull', detectedPresetId: 'tradovate' } as Preview} presets={presets} />);
    expect(screen.getByTestId('preset-note').textContent).toContain('looks like Tradovate: orders');
  });
});

describe('WarningGroups', () => {
  it('counts each code and lists the first rows', () => {
    render(
      <WarningGroups
        groups={[{ code: 'FEES_ESTIMATED', count: 32, first: [problem(2, 'FEES_ESTIMATED'), problem(3, 'FEES_ESTIMATED'), problem(4, 'FEES_ESTIMATED')] }]}
      />,
    );
    expect(screen.getByText('32 warnings: Fees estimated from the fee schedule (32)')).toBeTruthy();
    expect(screen.queryByText(/FEES_ESTIMATED/)).toBeNull();
    expect(screen.getByText('and 29 more like these')).toBeTruthy();
  });
});

describe('partialText', () => {
  it('says how many rows are left out', () => {
    expect(partialText({ partialRowsLeftOut: 1 } as Preview)).toContain('leaving out 1 row (');
    expect(partialText({ partialRowsLeftOut: 3 } as Preview)).toContain('leaving out 3 rows');
  });
});
