-- When the excursions job last looked a closed position's bars up: the
-- job takes the least recently tried first, so positions whose provider
-- keeps failing (left for a later run) go to the back of the queue
-- instead of filling every run's batch and starving the others.
ALTER TABLE positions ADD COLUMN bars_attempted_at timestamptz;

-- The job's look-up (0053's index, ordered as the job now reads it).
DROP INDEX positions_unmeasured;
CREATE INDEX positions_unmeasured ON positions (bars_attempted_at NULLS FIRST, closed_at, id)
    WHERE status = 'closed' AND bars_closed_at IS DISTINCT FROM closed_at;
