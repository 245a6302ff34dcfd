-- prop_firm_plans.phase is the plan's own phase (plan->>'phase'), kept as a
-- column so that SQL can pick accounts by phase (the statistics' filter)
-- and the prop-firm status lists read it without the plan: the two may not
-- differ.
ALTER TABLE prop_firm_plans ADD CONSTRAINT prop_firm_plans_phase_is_the_plans CHECK (phase = plan->>'phase');
