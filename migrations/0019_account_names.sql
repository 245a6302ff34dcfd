-- An account's name is unique among its user's accounts, ignoring case (as
-- tag names are): two accounts named "Main" cannot be told apart in a list.
-- Existing duplicates keep the oldest name as it is; each later one gets the
-- first free suffix " (2)", " (3)", ..., cut to the 100-character limit.
DO $$
DECLARE
    d record;
    n integer;
    candidate text;
BEGIN
    FOR d IN
        SELECT id, user_id, name FROM (
            SELECT id, user_id, name,
                   row_number() OVER (PARTITION BY user_id, lower(name) ORDER BY created_at, id) AS rn
            FROM accounts) ranked
        WHERE rn > 1
        ORDER BY user_id, lower(name), rn
    LOOP
        n := 2;
        LOOP
            candidate := left(d.name, 100 - length(' (' || n || ')')) || ' (' || n || ')';
            EXIT WHEN NOT EXISTS (
                SELECT 1 FROM accounts WHERE user_id = d.user_id AND lower(name) = lower(candidate));
            n := n + 1;
        END LOOP;
        UPDATE accounts SET name = candidate WHERE id = d.id;
    END LOOP;
END
$$;

CREATE UNIQUE INDEX accounts_user_name_key ON accounts (user_id, lower(name));
