-- Who said a turn, by name, when the caller knows (lore.common.v1.Turn.speaker): kept with the turn
-- and written with its words into the turn's message memory. '' for every turn stored before.
ALTER TABLE agent.turns ADD COLUMN speaker text NOT NULL DEFAULT '' CHECK (char_length(speaker) <= 100);
