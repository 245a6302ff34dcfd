import { useRef, useState, type ClipboardEvent, type DragEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client, sendForm, unwrap, type Schemas } from '../../api/client';
import { ErrorNote } from '../../components/ui';

const accepted = ['image/png', 'image/jpeg', 'image/webp'];

/** imageFiles keeps the pasted or dropped files the API accepts (it checks the content again). */
export function imageFiles(list: FileList | File[] | null | undefined): File[] {
  return Array.from(list ?? []).filter((f) => accepted.includes(f.type));
}

/** Images shows a position's screenshots and uploads new ones by paste, drop or file picker. */
export function Images({ positionId }: { positionId: string }) {
  const queryClient = useQueryClient();
  const key = ['positions', positionId, 'images'];
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const images = useQuery({
    queryKey: key,
    queryFn: async () => (await unwrap(client.GET('/api/positions/{positionId}/images', { params: { path: { positionId } } }))).items,
  });
  const upload = useMutation({
    mutationFn: async (files: File[]) => {
      for (const file of files) {
        const form = new FormData();
        form.append('file', file, file.name || 'pasted-image');
        await sendForm<Schemas['ImageEnvelope']>(`/api/positions/${encodeURIComponent(positionId)}/images`, form);
      }
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: key });
      void queryClient.invalidateQueries({ queryKey: ['positions', positionId] });
    },
  });
  const remove = useMutation({
    mutationFn: (imageId: string) => unwrap(client.DELETE('/api/positions/{positionId}/images/{imageId}', { params: { path: { positionId, imageId } } })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: key }),
  });
  const take = (files: File[]) => {
    if (files.length) upload.mutate(files);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    take(imageFiles(e.dataTransfer.files));
  };
  const onPaste = (e: ClipboardEvent) => {
    const files = imageFiles(Array.from(e.clipboardData.items).flatMap((i) => (i.kind === 'file' ? [i.getAsFile()].filter((f): f is File => f !== null) : [])));
    if (files.length) {
      e.preventDefault();
      take(files);
    }
  };
  return (
    <section aria-labelledby="images-title">
      <h2 id="images-title">Images</h2>
      <div
        className={`dropzone ${over ? 'over' : ''}`}
        tabIndex={0}
        role="group"
        aria-label="Image drop zone: paste or drop a screenshot here"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        onPaste={onPaste}
      >
        <p>Paste (Ctrl+V) or drop a chart screenshot here: PNG, JPEG or WebP, up to 5 MB.</p>
        <label htmlFor={`image-file-${positionId}`}>Upload image</label>{' '}
        <input
          ref={input}
          id={`image-file-${positionId}`}
          type="file"
          accept={accepted.join(',')}
          multiple
          onChange={(e) => {
            take(imageFiles(e.target.files));
            if (input.current) input.current.value = '';
          }}
        />
        {upload.isPending && <p role="status">Uploading…</p>}
      </div>
      <ErrorNote error={upload.error ?? remove.error} />
      {images.data && images.data.length > 0 && (
        <div className="images">
          {images.data.map((img) => (
            <figure key={img.id}>
              <a href={img.url} target="_blank" rel="noreferrer">
                <img src={img.url} alt={img.caption || 'Position screenshot'} loading="lazy" />
              </a>
              <figcaption className="row">
                {img.caption}
                <button type="button" className="ghost" onClick={() => remove.mutate(img.id)} aria-label="Delete image">
                  Delete
                </button>
              </figcaption>
            </figure>
          ))}
        </div>
      )}
    </section>
  );
}
