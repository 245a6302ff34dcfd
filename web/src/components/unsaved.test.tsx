import { afterEach, describe, expect, it, vi } from 'vitest';
import { useState } from 'react';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Link } from 'react-router';
import { renderScreen } from '../test/render';
import { autosaveDelay, SaveState, useAutosave } from './autosave';
import { UnsavedChangesGuard, useUnsaved } from './unsaved';

afterEach(() => vi.unstubAllGlobals());

function Editor({ save }: { save: (v: string) => Promise<unknown> }) {
  const draft = useAutosave<string>('', save);
  return (
    <>
      <label>
        Text
        <input value={draft.value} onChange={(e) => draft.setValue(e.target.value)} />
      </label>
      <SaveState state={draft} />
    </>
  );
}

function Section({ what }: { what: string }) {
  const [text, setText] = useState('');
  useUnsaved(what, text !== '');
  return (
    <label>
      {what}
      <input value={text} onChange={(e) => setText(e.target.value)} />
    </label>
  );
}

const away = <Link to="/elsewhere">Away</Link>;

describe('SaveState', () => {
  it('asks in a modal dialog over the window, with focus in it; Escape stays', async () => {
    const save = vi.fn(() => new Promise(() => {}));
    const { router } = renderScreen(
      <>
        {away}
        <Editor save={save} />
      </>,
    );
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Text'), 'x');
    await user.click(screen.getByRole('link', { name: 'Away' }));
    const ask = await screen.findByRole('alertdialog', { name: 'Unsaved notes' });
    expect(ask).toHaveAttribute('aria-modal', 'true');
    expect(ask).toHaveAccessibleDescription('Your notes are not saved yet. Leave this page and lose them?');
    // Drawn over the window wherever the page is scrolled, not where SaveState sits in the page.
    const backdrop = screen.getByTestId('leave-backdrop');
    expect(backdrop.parentElement).toBe(document.body);
    expect(backdrop).toHaveStyle({ position: 'fixed' });
    expect(within(ask).getByRole('button', { name: 'Stay and keep them' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(router.state.location.pathname).toBe('/');
    // Focus goes back where it was.
    expect(screen.getByRole('link', { name: 'Away' })).toHaveFocus();
    expect(screen.getByLabelText('Text')).toHaveValue('x');
  });

  it('does not send a refused value again by itself: the next edit tries again', async () => {
    const save = vi.fn(() => new Promise((_, reject) => setTimeout(() => reject(new Error('The server is unreachable.')), 20)));
    renderScreen(<Editor save={save} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Text'), 'x');
    await screen.findByText('Not saved: check the message above, then keep typing to try again.', undefined, { timeout: 3000 });
    expect(screen.getByRole('alert')).toHaveTextContent('The server is unreachable.');
    await act(() => new Promise((r) => setTimeout(r, autosaveDelay * 2.5)));
    expect(save).toHaveBeenCalledTimes(1);
    await user.type(screen.getByLabelText('Text'), 'y');
    await waitFor(() => expect(save).toHaveBeenCalledTimes(2), { timeout: 3000 });
    expect(save).toHaveBeenLastCalledWith('xy');
  });
});

describe('UnsavedChangesGuard', () => {
  it('asks once for the whole page, naming each unsaved edit, and says so when nothing is unsaved any more', async () => {
    const { router } = renderScreen(
      <UnsavedChangesGuard>
        {away}
        <Section what="the stop loss" />
        <Section what="the notes" />
      </UnsavedChangesGuard>,
    );
    const user = userEvent.setup();
    await user.click(screen.getByRole('link', { name: 'Away' }));
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
    await act(() => router.navigate('/'));

    await user.type(screen.getByLabelText('the stop loss'), '9');
    await user.type(screen.getByLabelText('the notes'), 'n');
    const warn = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(warn);
    expect(warn.defaultPrevented).toBe(true);
    await user.click(screen.getByRole('link', { name: 'Away' }));
    const ask = await screen.findByRole('alertdialog', { name: 'Unsaved changes' });
    expect(ask).toHaveAccessibleDescription('Not saved yet: the stop loss and the notes. Leave this page and lose these changes?');
    await user.click(within(ask).getByRole('button', { name: 'Stay and keep them' }));
    expect(router.state.location.pathname).toBe('/');

    await user.clear(screen.getByLabelText('the stop loss'));
    await user.click(screen.getByRole('link', { name: 'Away' }));
    expect(await screen.findByRole('alertdialog', { name: 'Unsaved changes' })).toHaveAccessibleDescription(/^Not saved yet: the notes\./);
    // Saved meanwhile (here: undone): the question says nothing is lost.
    await user.clear(screen.getByLabelText('the notes'));
    expect(screen.getByRole('alertdialog', { name: 'Unsaved changes' })).toHaveAccessibleDescription('Everything is saved now: nothing is lost if you leave.');
    await user.click(screen.getByRole('button', { name: 'Leave without saving' }));
    expect(await screen.findByText('elsewhere')).toBeInTheDocument();
  });
});
