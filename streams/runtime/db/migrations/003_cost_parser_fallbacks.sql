-- How many of a review's model answers the defensive parser had to read because the server
-- ignored or refused the structured-output request (ReviewerResult.v3 cost.parser_fallbacks).
ALTER TABLE cost_logs ADD COLUMN IF NOT EXISTS parser_fallbacks integer NOT NULL DEFAULT 0;
