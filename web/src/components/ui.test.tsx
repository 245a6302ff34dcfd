import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { Field, SelectField } from './ui';

describe('Field', () => {
  it('keeps the line under the input whether it holds nothing, a hint or an error (no jump)', () => {
    const shape = (el: HTMLElement) => [...el.querySelectorAll('.field > *')].map((n) => n.tagName).join(' ');
    const bare = render(<Field label="Price" value="" onChange={() => undefined} />).container;
    const hinted = render(<Field label="Price" hint="Up to 4 places" value="" onChange={() => undefined} />).container;
    const failed = render(<Field label="Price" hint="Up to 4 places" error="Enter the price." value="" onChange={() => undefined} />).container;
    expect(shape(bare)).toBe('LABEL INPUT SMALL');
    expect(shape(hinted)).toBe(shape(bare));
    expect(shape(failed)).toBe(shape(bare));
    expect(failed.querySelector('small')).toHaveTextContent('Enter the price.');
    expect(failed.querySelector('input')).toHaveAccessibleDescription('Enter the price.');
    const select = render(
      <SelectField label="Side" value="long" onChange={() => undefined}>
        <option value="long">Long</option>
      </SelectField>,
    ).container;
    expect(shape(select)).toBe('LABEL SELECT SMALL');
  });
});

describe('Field of a date and time', () => {
  it('says the zone what is typed is read in, after its own hint', () => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    render(<Field label="Filled at" type="datetime-local" value="" onChange={() => undefined} />);
    expect(screen.getByLabelText('Filled at')).toHaveAccessibleDescription(`Time in ${zone}.`);
    render(<Field label="When" type="datetime-local" hint="Empty for the close." value="" onChange={() => undefined} />);
    expect(screen.getByLabelText('When')).toHaveAccessibleDescription(`Empty for the close. Time in ${zone}.`);
  });
});
