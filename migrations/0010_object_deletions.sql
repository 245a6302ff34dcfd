-- Images kept in object storage (position_images.storage_key) outlive their
-- row until the bucket deletes them. Whatever removes the row (the image's
-- own delete, its position's, its account's or its user's, each by cascade),
-- the trigger queues the key in the same transaction; the api deletes the
-- objects it queued right after the commit, and the image-object-purge job
-- retries whatever is left (a store that was down).
CREATE TABLE object_deletions (
    storage_key text PRIMARY KEY,
    queued_at   timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION queue_object_deletion() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO object_deletions (storage_key) VALUES (OLD.storage_key) ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

CREATE TRIGGER position_images_queue_object_deletion
    AFTER DELETE ON position_images
    FOR EACH ROW WHEN (OLD.storage_key IS NOT NULL)
    EXECUTE FUNCTION queue_object_deletion();
