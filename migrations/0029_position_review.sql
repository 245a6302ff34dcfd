-- The review of a position: its maximum adverse and favourable excursions
-- (MAE, MFE), prices the trader enters by hand or takes from the price bars
-- of the trade. Which side of the entry each lies on is checked by the api
-- against the average entry when they are written (it moves with fills).
ALTER TABLE positions
    ADD COLUMN mae_price numeric(18, 8) CHECK (mae_price > 0),
    ADD COLUMN mfe_price numeric(18, 8) CHECK (mfe_price > 0);

-- Image captions are at most 500 characters (the api's bound); stored
-- sealed when ENCRYPTION_KEY is set, a 500-character caption is under 2,800,
-- so the column is bounded above that as a backstop.
ALTER TABLE position_images
    ADD CONSTRAINT position_images_caption_length CHECK (length(caption) <= 4000);
