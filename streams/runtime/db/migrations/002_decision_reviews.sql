-- The compact reviews a decision was made from (QADecision.reviews), so `multiqa status` and an
-- audit can tell the results that counted from results recorded after the decision.
ALTER TABLE qa_decisions ADD COLUMN IF NOT EXISTS reviews jsonb NOT NULL DEFAULT '[]';

-- `multiqa decisions` and dashboards read the newest decisions first.
CREATE INDEX IF NOT EXISTS qa_decisions_decided_at ON qa_decisions (decided_at DESC);
