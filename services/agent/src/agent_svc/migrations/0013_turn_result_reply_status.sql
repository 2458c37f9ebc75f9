-- What became of the reply a language model was asked for (generated, timed_out, unavailable, empty;
-- '' when none was: no model, or an assistant turn), kept with the result so a retry answers the same.

ALTER TABLE agent.turn_results
    ADD COLUMN reply_status text NOT NULL DEFAULT '';
