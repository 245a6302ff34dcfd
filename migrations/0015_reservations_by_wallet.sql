-- The reservation gate writes up to 256 holds in one statement, and a foreign
-- key checks every row on its own: for 100 holds the key to users cost as
-- much as the rest of the statement. It guarded nothing the gate does not:
-- a hold is only ever made against the wallet row the gate has locked, and
-- the wallet references the user. What the key did besides, taking a user's
-- holds away with the user, this trigger does once per statement, when the
-- wallet goes (the user's deletion cascades to it).
ALTER TABLE credit_reservations DROP CONSTRAINT credit_reservations_user_id_fkey;

CREATE FUNCTION wallets_delete_reservations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM credit_reservations r USING gone WHERE r.user_id = gone.user_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER wallets_delete_reservations
    AFTER DELETE ON wallets REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION wallets_delete_reservations();
