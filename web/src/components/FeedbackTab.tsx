import { useState } from 'react';
import { feedbackSurvey, sendFeedback } from '../analytics';
import { publicConfig, type PublicConfig } from '../config';

/**
 * FeedbackTab renders only when analytics is on and the feedback survey
 * setting is valid; it sends a rating and optional text, scrubbed.
 */
export function FeedbackTab({ config = publicConfig() }: { config?: PublicConfig }) {
  const [open, setOpen] = useState(false);
  const [rating, setRating] = useState<number | null>(null);
  const [text, setText] = useState('');
  const [state, setState] = useState<'idle' | 'sending' | 'sent' | 'failed'>('idle');
  if (!feedbackSurvey(config)) return null;

  if (!open) {
    return (
      <button type="button" className="feedback-tab" onClick={() => setOpen(true)}>
        Feedback
      </button>
    );
  }
  return (
    <section className="feedback-panel" aria-label="Feedback">
      {state === 'sent' ? (
        <p role="status">Thank you for the feedback.</p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (rating == null) return;
            setState('sending');
            void sendFeedback(rating, text).then((ok) => setState(ok ? 'sent' : 'failed'));
          }}
        >
          <fieldset>
            <legend>How useful is Trade Journal to you?</legend>
            <div className="rating">
              {[1, 2, 3, 4, 5].map((n) => (
                <label key={n}>
                  <input type="radio" name="rating" value={n} checked={rating === n} onChange={() => setRating(n)} />
                  {n}
                  <span className="sr-only"> out of 5</span>
                </label>
              ))}
            </div>
          </fieldset>
          <div className="field">
            <label htmlFor="feedback-text">Anything to add? (optional)</label>
            <textarea id="feedback-text" value={text} maxLength={2000} onChange={(e) => setText(e.target.value)} />
            <small className="hint">Emails and anything that looks like a secret are removed before sending.</small>
          </div>
          {state === 'failed' && <p role="alert">The feedback could not be sent.</p>}
          <div className="row">
            <button type="submit" disabled={rating == null || state === 'sending'}>
              Send feedback
            </button>
            <button type="button" className="ghost" onClick={() => setOpen(false)}>
              Close
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
