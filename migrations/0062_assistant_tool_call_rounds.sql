-- The provider call (round, from 0) of its turn that asked for each tool
-- call, so a later turn can send the earlier turns' calls back as the rounds
-- they were (issue 34). Calls stored before this have none: their turn's
-- calls are sent as one round.
ALTER TABLE assistant_tool_calls ADD COLUMN round integer CHECK (round >= 0);
