import type { Schemas } from '../api/client';
import { formatDateTime } from '../format';
import { DataTable } from './QueryView';

/** deviceName describes a browser's user agent the way a person names their device: "Firefox on Linux". */
export function deviceName(userAgent: string): string {
  const browsers: [RegExp, string][] = [
    [/Edg\//, 'Edge'],
    [/OPR\/|Opera/, 'Opera'],
    [/Firefox\//, 'Firefox'],
    [/Chrom(e|ium)\//, 'Chrome'],
    [/Safari\//, 'Safari'],
  ];
  const systems: [RegExp, string][] = [
    [/iPhone/, 'iPhone'],
    [/iPad/, 'iPad'],
    [/Android/, 'Android'],
    [/Windows/, 'Windows'],
    [/Mac OS X|Macintosh/, 'macOS'],
    [/CrOS/, 'ChromeOS'],
    [/Linux/, 'Linux'],
  ];
  const browser = browsers.find(([re]) => re.test(userAgent))?.[1];
  const system = systems.find(([re]) => re.test(userAgent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  if (browser ?? system) return (browser ?? system) as string;
  return userAgent.trim() === '' ? 'Unknown device' : userAgent;
}

/** SignInHistory lists sign-ins and wrong passwords, newest first, each with the device it came from. */
export function SignInHistory({ events }: { events: Schemas['SignInEvent'][] }) {
  if (events.length === 0) return <p className="muted">No sign-in yet.</p>;
  return (
    <DataTable columns={['When', 'What', 'Device']} caption="Sign-ins and wrong passwords, newest first">
      {events.map((e, i) => (
        <tr key={`${e.at}-${i}`}>
          <td>{formatDateTime(e.at)}</td>
          <td>{e.succeeded ? 'Signed in' : <strong>Wrong password</strong>}</td>
          <td title={e.userAgent || undefined}>{deviceName(e.userAgent)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
