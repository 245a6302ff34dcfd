-- The review of a position: its maximum adverse and favourable excursions
-- (MAE, MFE), prices the trader enters by hand or takes from the price bars
-- of the trade. Which side of the entry each lies on is checked by the api
-- against the average entry when they are written (it moves with fills).
ALTER TABLE positions
    ADD COLUMN mae_price numeric(18, 8) CHECK (mae_price > 0),
    ADD COLUMN mfe_price numeric(18, 8) CHECK (mfe_price > 0);
