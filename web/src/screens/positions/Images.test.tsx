import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ApiError } from '../../api/client';
import { Images, uploadErrorText } from './Images';
import { mockApi, renderScreen, route } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const image = (id: string, caption: string) => ({ id, contentType: 'image/png', sizeBytes: 10, caption, url: `/api/positions/p1/images/${id}`, createdAt: '' });

function withImages(items: ReturnType<typeof image>[]) {
  return mockApi(
    route('GET', '/api/positions/p1/images', () => ({ body: { items, nextCursor: null } })),
    route('PATCH', '/api/positions/p1/images/i1', (c) => ({ body: { image: { ...image('i1', ''), caption: (c.body as { caption: string }).caption } } })),
    route('DELETE', '/api/positions/p1/images/i2', () => ({ status: 204 })),
  );
}

describe('Images', () => {
  it('opens a screenshot full size; Escape closes, the arrows move, focus comes back', async () => {
    withImages([image('i1', 'Entry'), image('i2', 'Exit')]);
    const user = userEvent.setup();
    renderScreen(<Images positionId="p1" />);
    const open = await screen.findByRole('button', { name: 'View Entry full size' });
    await user.click(open);
    const dialog = screen.getByRole('dialog', { name: 'Entry (1 of 2)' });
    expect(screen.getByRole('button', { name: 'Close' })).toHaveFocus();
    expect(dialog.querySelector('img')).toHaveAttribute('src', '/api/positions/p1/images/i1');
    await user.keyboard('{ArrowRight}');
    expect(screen.getByRole('dialog', { name: 'Exit (2 of 2)' })).toBeInTheDocument();
    await user.keyboard('{ArrowRight}');
    expect(screen.getByRole('dialog', { name: 'Entry (1 of 2)' })).toBeInTheDocument();
    await user.keyboard('{ArrowLeft}');
    expect(screen.getByRole('dialog', { name: 'Exit (2 of 2)' })).toBeInTheDocument();
    // Tab stays inside the dialog.
    await user.tab();
    expect(screen.getByRole('dialog').contains(document.activeElement)).toBe(true);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(open).toHaveFocus();
  });

  it('deletes a screenshot only after confirmation', async () => {
    const { calls } = withImages([image('i1', 'Entry'), image('i2', 'Exit')]);
    const user = userEvent.setup();
    renderScreen(<Images positionId="p1" />);
    const del = await screen.findByRole('button', { name: 'Delete Exit' });
    await user.click(del);
    let ask = screen.getByRole('alertdialog', { name: 'Delete Exit?' });
    expect(ask).toHaveAccessibleDescription('Delete this screenshot? This cannot be undone.');
    await user.click(within(ask).getByRole('button', { name: 'Cancel' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    expect(del).toHaveFocus();
    await user.click(del);
    ask = screen.getByRole('alertdialog', { name: 'Delete Exit?' });
    await user.click(within(ask).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/positions/p1/images/i2')).toBe(true));
  });

  it('edits a caption in place', async () => {
    const { calls } = withImages([image('i1', '')]);
    const user = userEvent.setup();
    renderScreen(<Images positionId="p1" />);
    await user.click(await screen.findByRole('button', { name: 'Edit caption of screenshot 1' }));
    await user.type(screen.getByRole('textbox', { name: 'Caption of screenshot 1' }), 'Retest of the high{Enter}');
    await waitFor(() => expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ caption: 'Retest of the high' }));
    // Escape leaves an edit without saving.
    await user.click(await screen.findByRole('button', { name: 'Edit caption of screenshot 1' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('textbox', { name: 'Caption of screenshot 1' })).not.toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'PATCH')).toHaveLength(1);
  });

  it('uploads an image dropped on the section with the caption typed, and says what it skipped', async () => {
    const { calls } = mockApi(
      route('GET', '/api/positions/p1/images', () => ({ body: { items: [], nextCursor: null } })),
      route('POST', '/api/positions/p1/images', () => ({ status: 201, body: { image: image('i9', '') } })),
    );
    const user = userEvent.setup();
    renderScreen(<Images positionId="p1" />);
    await user.type(await screen.findByRole('textbox', { name: 'Caption for the next screenshot' }), 'Daily');
    const png = new File([new Uint8Array([137, 80, 78, 71])], 'shot.png', { type: 'image/png' });
    const txt = new File(['x'], 'notes.txt', { type: 'text/plain' });
    fireEvent.drop(screen.getByTestId('screenshots'), { dataTransfer: { files: [png, txt] } });
    expect(await screen.findByText('Only PNG, JPEG and WebP images can be added; skipped notes.txt.')).toBeInTheDocument();
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1));
    const body = calls.find((c) => c.method === 'POST')?.body as string;
    expect(body).toContain('name="caption"');
    expect(body).toContain('Daily');
  });

  it('leaves a text paste alone and uploads a pasted image, saying why one was refused', async () => {
    const { calls } = mockApi(
      route('GET', '/api/positions/p1/images', () => ({ body: { items: [], nextCursor: null } })),
      route('POST', '/api/positions/p1/images', () => ({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE', message: 'too large' } } })),
    );
    renderScreen(<Images positionId="p1" />);
    await screen.findByRole('heading', { name: 'Screenshots' });
    fireEvent.paste(document.body, { clipboardData: { items: [{ kind: 'string', getAsFile: () => null }] } });
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    const file = new File([new Uint8Array([137, 80, 78, 71])], 'big.png', { type: 'image/png' });
    fireEvent.paste(document.body, { clipboardData: { items: [{ kind: 'file', getAsFile: () => file }] } });
    expect(await screen.findByText(/larger than 5 MB/)).toBeInTheDocument();
  });

  it('words the upload errors for the trader', () => {
    expect(uploadErrorText(new ApiError(503, { error: { code: 'SERVICE_UNAVAILABLE', message: 'x' } }))).toMatch(/cannot be stored right now/);
    const cap = new ApiError(400, { error: { code: 'VALIDATION_ERROR', message: 'x', details: [{ field: 'file', message: 'a position holds at most 20 images; delete one first' }] } });
    expect(uploadErrorText(cap)).toBe('A position holds at most 20 screenshots. Delete one first.');
    const notImage = new ApiError(400, { error: { code: 'VALIDATION_ERROR', message: 'x', details: [{ field: 'file', message: 'must be a PNG, JPEG or WebP image' }] } });
    expect(uploadErrorText(notImage)).toMatch(/not a PNG, JPEG or WebP image/);
  });
});
