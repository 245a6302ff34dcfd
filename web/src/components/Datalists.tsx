import { memo, useMemo } from 'react';
import { currencies, timeZones } from '../lists';

/** Datalists renders the shared suggestion lists for currency and time-zone inputs (hundreds of options: rendered once). */
export const Datalists = memo(function Datalists() {
  const zones = useMemo(timeZones, []);
  const codes = useMemo(currencies, []);
  return (
    <>
      <datalist id="timezones">
        {zones.map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      <datalist id="currencies">
        {codes.map((c) => (
          <option key={c} value={c} />
        ))}
      </datalist>
    </>
  );
});
