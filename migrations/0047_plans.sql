-- The free plan's limits (shared/plans) count a user's image bytes on every
-- upload, and the admin pages rank users by it: index position_images by
-- user with the size, so the sum reads the index alone. The other counts
-- (accounts, positions, csv_imports) already have their user's index.
CREATE INDEX position_images_user_size_idx ON position_images (user_id) INCLUDE (size_bytes);

-- Imports in the last 24 hours, and in an admin's chosen period.
CREATE INDEX csv_imports_user_committed_idx ON csv_imports (user_id, committed_at);
DROP INDEX csv_imports_user_idx;
