-- Drafts as they arrived, so history outlives Kafka retention (`multiqa rereview`, the decisions
-- UI). One row per draft version; the first copy stands (a re-delivery changes nothing).
CREATE TABLE IF NOT EXISTS qa_drafts (
    draft_id          text NOT NULL,
    version           integer NOT NULL,
    title             text NOT NULL,
    content           text NOT NULL,
    topic             text NOT NULL DEFAULT '',
    task_id           text,
    research_sources  text[] NOT NULL DEFAULT '{}',
    preview_url       text,
    writer_model      text,
    site_domain       text,
    niche             text,
    submitted_at      timestamptz NOT NULL,
    first_seen_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (draft_id, version)
);
CREATE INDEX IF NOT EXISTS qa_drafts_first_seen_at ON qa_drafts (first_seen_at);

-- QADecision v2's trace id, so a decision leads to its whole trace.
ALTER TABLE qa_decisions ADD COLUMN IF NOT EXISTS trace_id text NOT NULL DEFAULT '';
