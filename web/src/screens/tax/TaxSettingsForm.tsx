// The tax report's settings (GET/PUT /api/tax/settings): the trader's
// jurisdiction and, per account, its own (an ISA under the UK's rules for a
// US taxpayer, say) and how its broker reports basis on Form 1099-B.
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { ErrorNote, SelectField } from '../../components/ui';
import { basisReportingNames, jurisdictionNames, type BasisReporting, type Jurisdiction } from './tax';

type Settings = Schemas['TaxSettings'];
/** AccountChange is one account's entry of PUT /api/tax/settings. */
type AccountChange = { accountId: string; jurisdiction: Jurisdiction | null; basisReporting: BasisReporting };

export const taxSettingsKey = ['tax', 'settings'] as const;

interface AccountChoice {
  /** '' follows the trader's own jurisdiction. */
  jurisdiction: Jurisdiction | '';
  basisReporting: BasisReporting;
}

function choices(settings: Settings): Record<string, AccountChoice> {
  return Object.fromEntries(settings.accounts.map((a) => [a.accountId, { jurisdiction: a.jurisdiction ?? '', basisReporting: a.basisReporting }]));
}

/** changedAccounts lists the accounts whose choice differs from the saved settings, as PUT /api/tax/settings takes them. */
export function changedAccounts(settings: Settings, chosen: Record<string, AccountChoice>): AccountChange[] {
  return settings.accounts
    .filter((a) => {
      const c = chosen[a.accountId];
      return c && (c.jurisdiction !== (a.jurisdiction ?? '') || c.basisReporting !== a.basisReporting);
    })
    .map((a) => {
      const c = chosen[a.accountId] as AccountChoice;
      return { accountId: a.accountId, jurisdiction: c.jurisdiction === '' ? null : c.jurisdiction, basisReporting: c.basisReporting };
    });
}

/**
 * TaxSettingsForm chooses the rules the report follows. Without a
 * jurisdiction yet it asks for that alone: the report needs it first.
 */
export function TaxSettingsForm({ settings }: { settings: Settings }) {
  const queryClient = useQueryClient();
  const [jurisdiction, setJurisdiction] = useState<Jurisdiction | ''>(settings.jurisdiction ?? '');
  const [accounts, setAccounts] = useState(() => choices(settings));
  const changes = changedAccounts(settings, accounts);
  const save = useMutation({
    mutationFn: (body: { jurisdiction: Jurisdiction; accounts: AccountChange[] }) => unwrap(client.PUT('/api/tax/settings', { body })),
    onSuccess: (data) => {
      queryClient.setQueryData(taxSettingsKey, data);
      void queryClient.invalidateQueries({ queryKey: ['tax', 'report'] });
    },
  });
  // The request's account list is the changes in order: an error names an account by its place in it.
  const [sent, setSent] = useState<string[]>([]);
  const err = save.error instanceof ApiError ? save.error : undefined;
  const accountError = (accountId: string, field: 'jurisdiction' | 'basisReporting') => {
    const i = sent.indexOf(accountId);
    if (!err || i < 0) return undefined;
    const own = err.fieldError(`accounts[${i}].${field}`, { labels: { [`accounts[${i}].${field}`]: field === 'jurisdiction' ? 'jurisdiction' : 'Form 1099-B' } });
    // An account refused as such was deleted (or renamed away) in another tab since the page loaded.
    const gone = field === 'jurisdiction' && err.details.some((d) => d.field === `accounts[${i}].accountId`);
    return own ?? (gone ? 'This account no longer exists: reload the page and try again.' : undefined);
  };
  const first = settings.jurisdiction === null;
  const dirty = jurisdiction !== (settings.jurisdiction ?? '') || changes.length > 0;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (jurisdiction === '') return;
    setSent(changes.map((c) => c.accountId));
    save.mutate({ jurisdiction, accounts: changes });
  };
  const setAccount = (id: string, change: Partial<AccountChoice>) => setAccounts((all) => ({ ...all, [id]: { ...(all[id] as AccountChoice), ...change } }));
  const title = first ? 'First, choose where you pay tax' : 'Tax settings';
  return (
    <form className="card" onSubmit={submit} aria-label={title}>
      <h2>{title}</h2>
      {first && <p>The report follows the rules of the country you pay tax in. You can give an account rules of its own afterwards.</p>}
      <SelectField label="Your tax jurisdiction" value={jurisdiction} onChange={(e) => setJurisdiction(e.target.value as Jurisdiction)} error={err?.fieldError('jurisdiction', { labels: { jurisdiction: 'tax jurisdiction' } })}>
        {jurisdiction === '' && (
          <option value="" disabled>
            Choose a jurisdiction
          </option>
        )}
        {Object.entries(jurisdictionNames).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </SelectField>
      {!first && settings.accounts.length > 0 && (
        <>
          <h3>Accounts</h3>
          <p className="hint">An account follows your jurisdiction unless you choose another. For the United States, say what the broker’s Form 1099-B reports: it decides the box on Form 8949.</p>
          {settings.accounts.map((a) => {
            const c = accounts[a.accountId] as AccountChoice;
            const effective = c.jurisdiction || jurisdiction;
            return (
              <fieldset key={a.accountId} className="grid account-tax">
                <legend>
                  {a.name} ({a.currency})
                </legend>
                <SelectField label="Jurisdiction" value={c.jurisdiction} onChange={(e) => setAccount(a.accountId, { jurisdiction: e.target.value as Jurisdiction | '' })} error={accountError(a.accountId, 'jurisdiction')}>
                  <option value="">Same as mine{jurisdiction ? ` (${jurisdictionNames[jurisdiction]})` : ''}</option>
                  {Object.entries(jurisdictionNames).map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </SelectField>
                {effective === 'us' && (
                  <SelectField label="Broker’s Form 1099-B" value={c.basisReporting} onChange={(e) => setAccount(a.accountId, { basisReporting: e.target.value as BasisReporting })} error={accountError(a.accountId, 'basisReporting')}>
                    {Object.entries(basisReportingNames).map(([value, label]) => (
                      <option key={value} value={value}>
                        {label}
                      </option>
                    ))}
                  </SelectField>
                )}
              </fieldset>
            );
          })}
        </>
      )}
      {err && err.details.length === 0 && <ErrorNote error={err} />}
      <div className="row">
        <button type="submit" disabled={save.isPending || jurisdiction === '' || !dirty}>
          {first ? 'Save and show the report' : 'Save tax settings'}
        </button>
        {save.isSuccess && !dirty && <span role="status">Saved.</span>}
      </div>
    </form>
  );
}
