import { useState, type Dispatch, type SetStateAction } from 'react';

export function sameValue<T>(a: T, b: T): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * useDraft keeps an edit of saved values. While nothing is edited it follows
 * the saved values when they change (another section's save answered a new
 * position); an edit is kept when they do, so a save elsewhere on the page
 * never wipes it. dirty says the draft differs from the saved values.
 */
export function useDraft<T>(saved: T): { draft: T; setDraft: Dispatch<SetStateAction<T>>; dirty: boolean } {
  const [draft, setDraft] = useState(saved);
  const [base, setBase] = useState(saved);
  let current = draft;
  if (!sameValue(base, saved)) {
    // Adjusting state while rendering: React renders again at once with it.
    setBase(saved);
    if (sameValue(draft, base)) {
      setDraft(saved);
      current = saved;
    }
  }
  return { draft: current, setDraft, dirty: !sameValue(current, saved) };
}
