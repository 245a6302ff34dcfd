// "Review my week", "Review this day", "Review this trade": each opens the
// assistant, which starts a new conversation whose first turn carries the
// review (the server reads the figures with the user's rights). Hidden
// when the assistant is off.
import { useNavigate } from 'react-router';
import { useAppConfig } from '../../api/queries';
import type { Schemas } from '../../api/client';

export type Review = Schemas['AssistantReview'];

/** ReviewRequest is what the button hands the assistant screen, through the navigation's state. */
export interface ReviewRequest {
  review: Review;
  question: string;
}

const questions: Record<Review['kind'], string> = {
  week: 'Review my week: what went well, what went wrong, and what should I work on next week?',
  day: 'Review this day: how did I trade against my plan, and what should I do differently?',
  position: 'Review this trade: the entry, the exit, the risk I took, and what I could do better.',
};

/** reviewRequest is the request a review button sends (the question the conversation starts with). */
export function reviewRequest(review: Review): ReviewRequest {
  return { review, question: questions[review.kind] };
}

/** isReviewRequest checks the navigation state the assistant screen gets. */
export function isReviewRequest(state: unknown): state is ReviewRequest {
  if (typeof state !== 'object' || state === null) return false;
  const r = (state as { review?: unknown; question?: unknown }).review as { kind?: unknown } | undefined;
  return typeof (state as { question?: unknown }).question === 'string' && typeof r === 'object' && r !== null && ['week', 'day', 'position'].includes(r.kind as string);
}

export function ReviewButton({ review, children }: { review: Review; children: string }) {
  const config = useAppConfig();
  const navigate = useNavigate();
  if (config.data?.assistant !== true) return null;
  return (
    <button type="button" className="ghost" onClick={() => void navigate('/assistant', { state: reviewRequest(review) })}>
      {children}
    </button>
  );
}
