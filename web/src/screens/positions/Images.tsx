import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, errorText, sendForm, unwrap, type Schemas } from '../../api/client';
import { ConfirmButton, ErrorNote } from '../../components/ui';
import { keepTabInside } from '../../components/confirm';
import { useUnsaved } from '../../components/unsaved';

type Image = Schemas['Image'];

const accepted = ['image/png', 'image/jpeg', 'image/webp'];

/** The longest caption the API keeps. */
export const maxCaption = 500;

/** imageFiles keeps the pasted or dropped files the API accepts (it checks the content again). */
export function imageFiles(list: FileList | File[] | null | undefined): File[] {
  return Array.from(list ?? []).filter((f) => accepted.includes(f.type));
}

/** clipboardImages are the image files on a paste event's clipboard. */
export function clipboardImages(data: DataTransfer | null): File[] {
  if (!data) return [];
  return imageFiles(Array.from(data.items ?? []).flatMap((i) => (i.kind === 'file' ? [i.getAsFile()].filter((f): f is File => f !== null) : [])));
}

/** uploadErrorText says, in the trader's words, why a screenshot was not added. */
export function uploadErrorText(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 413) return 'This screenshot is larger than 5 MB. Save it smaller (as a JPEG, or cropped) and try again.';
    if (err.status === 503) return 'Screenshots cannot be stored right now. Try again in a minute.';
    if (err.fieldError('file') && /at most \d+ images/.test(err.details[0]?.message ?? '')) return 'A position holds at most 20 screenshots. Delete one first.';
    if (err.fieldError('file')) return 'This file is not a PNG, JPEG or WebP image, so it was not added.';
  }
  return errorText(err);
}

/**
 * Images shows a position's screenshots large, with captions edited in place, opens them full size in
 * a viewer, and adds new ones from the file picker, by dropping them on the section, or by pasting an
 * image anywhere on the page. Deleting one asks first.
 */
export function Images({ positionId }: { positionId: string }) {
  const queryClient = useQueryClient();
  const key = ['positions', positionId, 'images'];
  const [over, setOver] = useState(false);
  const [caption, setCaption] = useState('');
  useUnsaved('the caption for the next screenshot', caption.trim() !== '');
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [skipped, setSkipped] = useState<string[]>([]);
  const [viewing, setViewing] = useState<number | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const images = useQuery({
    queryKey: key,
    queryFn: async () => (await unwrap(client.GET('/api/positions/{positionId}/images', { params: { path: { positionId } } }))).items,
  });
  const upload = useMutation({
    mutationFn: async (files: File[]) => {
      setProgress({ done: 0, total: files.length });
      for (const [i, file] of files.entries()) {
        const form = new FormData();
        form.append('file', file, file.name || 'pasted-image');
        if (caption.trim()) form.append('caption', caption.trim());
        await sendForm<Schemas['ImageEnvelope']>(`/api/positions/${encodeURIComponent(positionId)}/images`, form);
        setProgress({ done: i + 1, total: files.length });
      }
    },
    onSuccess: () => setCaption(''),
    onSettled: () => {
      setProgress(null);
      void queryClient.invalidateQueries({ queryKey: key });
      void queryClient.invalidateQueries({ queryKey: ['positions', positionId] });
    },
  });
  const remove = useMutation({
    mutationFn: (imageId: string) => unwrap(client.DELETE('/api/positions/{positionId}/images/{imageId}', { params: { path: { positionId, imageId } } })),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: key });
      void queryClient.invalidateQueries({ queryKey: ['positions', positionId] });
    },
  });
  const take = (all: File[]) => {
    const files = imageFiles(all);
    setSkipped(all.filter((f) => !files.includes(f)).map((f) => f.name || 'a file'));
    if (files.length) upload.mutate(files);
  };
  const takeRef = useRef(take);
  takeRef.current = take;

  // An image pasted anywhere on the page is added here; text pastes are left alone.
  useEffect(() => {
    const onPaste = (e: ClipboardEvent) => {
      const files = clipboardImages(e.clipboardData);
      if (!files.length) return;
      e.preventDefault();
      takeRef.current(files);
    };
    document.addEventListener('paste', onPaste);
    return () => document.removeEventListener('paste', onPaste);
  }, []);

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    take(Array.from(e.dataTransfer.files));
  };
  const items = images.data ?? [];
  const close = () => {
    setViewing(null);
    opener.current?.focus();
  };
  return (
    <section
      aria-labelledby="images-title"
      className={`screenshots dropzone ${over ? 'over' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={onDrop}
      data-testid="screenshots"
    >
      <h2 id="images-title">Screenshots</h2>
      {items.length > 0 && (
        <div className="shots">
          {items.map((img, i) => (
            <figure key={img.id}>
              <button
                type="button"
                className="shot"
                onClick={(e) => {
                  opener.current = e.currentTarget;
                  setViewing(i);
                }}
                aria-label={`View ${img.caption || `screenshot ${i + 1}`} full size`}
              >
                <img src={img.url} alt={img.caption || `Screenshot ${i + 1}`} loading="lazy" />
              </button>
              <figcaption>
                <CaptionEditor positionId={positionId} image={img} index={i} />
                <ConfirmButton
                  label={`Delete ${img.caption || `screenshot ${i + 1}`}`}
                  question="Delete this screenshot? This cannot be undone."
                  busy={remove.isPending}
                  onConfirm={() => remove.mutate(img.id)}
                >
                  Delete
                </ConfirmButton>
              </figcaption>
            </figure>
          ))}
        </div>
      )}
      <div className="row upload">
        <p className="muted">
          {items.length === 0 ? 'No screenshots yet. ' : ''}Paste an image (Ctrl+V) anywhere on this page, drop it here, or choose a file: PNG, JPEG or WebP, up
          to 5 MB.
        </p>
        <label>
          Caption for the next screenshot
          <input value={caption} maxLength={maxCaption} onChange={(e) => setCaption(e.target.value)} placeholder="e.g. 5-minute chart at entry" />
        </label>
        <label htmlFor={`image-file-${positionId}`}>Choose screenshot</label>{' '}
        <input
          ref={input}
          id={`image-file-${positionId}`}
          type="file"
          accept={accepted.join(',')}
          multiple
          onChange={(e) => {
            take(Array.from(e.target.files ?? []));
            if (input.current) input.current.value = '';
          }}
        />
      </div>
      {progress && (
        <p role="status">
          Adding screenshot {Math.min(progress.done + 1, progress.total)} of {progress.total}…
        </p>
      )}
      {skipped.length > 0 && (
        <p className="note note-error" role="alert">
          Only PNG, JPEG and WebP images can be added; skipped {skipped.join(', ')}.
        </p>
      )}
      {upload.error && (
        <p className="note note-error" role="alert">
          {uploadErrorText(upload.error)}
        </p>
      )}
      <ErrorNote error={remove.error} />
      {viewing !== null && items[viewing] && <Viewer images={items} index={viewing} onMove={setViewing} onClose={close} />}
    </section>
  );
}

/** CaptionEditor shows a screenshot's caption and edits it in place: Enter saves, Escape cancels. */
function CaptionEditor({ positionId, image, index }: { positionId: string; image: Image; index: number }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(image.caption);
  useUnsaved(`the caption of screenshot ${index + 1}`, editing && text.trim() !== image.caption);
  const save = useMutation({
    mutationFn: () =>
      unwrap(client.PATCH('/api/positions/{positionId}/images/{imageId}', { params: { path: { positionId, imageId: image.id } }, body: { caption: text.trim() } })),
    onSuccess: () => {
      setEditing(false);
      void queryClient.invalidateQueries({ queryKey: ['positions', positionId, 'images'] });
    },
  });
  if (!editing) {
    return (
      <span className="row">
        <span className={image.caption ? '' : 'muted'}>{image.caption || 'No caption'}</span>
        <button
          type="button"
          className="ghost"
          onClick={() => {
            setText(image.caption);
            setEditing(true);
          }}
          aria-label={`Edit caption of screenshot ${index + 1}`}
        >
          {image.caption ? 'Edit caption' : 'Add caption'}
        </button>
      </span>
    );
  }
  const err = save.error instanceof ApiError ? save.error : undefined;
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
      aria-label={`Caption of screenshot ${index + 1}`}
    >
      <input
        autoFocus
        aria-label={`Caption of screenshot ${index + 1}`}
        value={text}
        maxLength={maxCaption}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') setEditing(false);
        }}
      />
      <button type="submit" disabled={save.isPending}>
        Save caption
      </button>
      <button type="button" className="ghost" onClick={() => setEditing(false)}>
        Cancel
      </button>
      {save.error && (
        <span className="note note-error" role="alert">
          {err?.fieldError('caption') ?? errorText(save.error)}
        </span>
      )}
    </form>
  );
}

/**
 * Viewer shows one screenshot at its natural size in a modal dialog (scrolling when larger than the
 * window). Escape closes it, the arrow keys move between screenshots, and Tab stays inside it; focus
 * goes to Close on opening and back to the screenshot that opened it on closing (onClose).
 */
export function Viewer({ images, index, onMove, onClose }: { images: Image[]; index: number; onMove: (i: number) => void; onClose: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => closeButton.current?.focus(), []);
  const img = images[index];
  if (!img) return null;
  const count = images.length;
  const move = (by: number) => onMove((index + by + count) % count);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onClose();
    } else if (e.key === 'ArrowRight' && count > 1) {
      e.preventDefault();
      move(1);
    } else if (e.key === 'ArrowLeft' && count > 1) {
      e.preventDefault();
      move(-1);
    } else if (e.key === 'Tab') {
      keepTabInside(e, box.current);
    }
  };
  const title = img.caption || `Screenshot ${index + 1}`;
  return (
    <div className="viewer-backdrop" onClick={onClose}>
      <div
        ref={box}
        className="viewer"
        role="dialog"
        aria-modal="true"
        aria-label={`${title} (${index + 1} of ${count})`}
        onKeyDown={onKeyDown}
        onClick={(e) => e.stopPropagation()}
      >
        <div className="row viewer-bar">
          <strong>{title}</strong>
          <span className="muted">
            {index + 1} of {count}
          </span>
          {count > 1 && (
            <>
              <button type="button" className="ghost" onClick={() => move(-1)} aria-label="Previous screenshot">
                ← Previous
              </button>
              <button type="button" className="ghost" onClick={() => move(1)} aria-label="Next screenshot">
                Next →
              </button>
            </>
          )}
          <a href={img.url} target="_blank" rel="noreferrer">
            Open in a new tab
          </a>
          <button ref={closeButton} type="button" onClick={onClose}>
            Close
          </button>
        </div>
        <div className="viewer-image">
          <img src={img.url} alt={title} />
        </div>
      </div>
    </div>
  );
}
