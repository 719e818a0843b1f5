-- `multiqa rereview`'s shadow namespace: re-reviews of stored drafts, never mixed with the live
-- decisions (qa_decisions, qa_reviews, cost_logs stay the stream's alone). One run is written
-- in one transaction, so a failed run leaves nothing.
CREATE TABLE IF NOT EXISTS rereview_runs (
    run_id            uuid PRIMARY KEY,
    started_at        timestamptz NOT NULL DEFAULT now(),
    since             timestamptz NOT NULL,
    until             timestamptz,
    reviewers         text[] NOT NULL,
    overrides         jsonb NOT NULL DEFAULT '{}',
    settings_version  text NOT NULL,
    summary           jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE IF NOT EXISTS rereview_results (
    run_id      uuid NOT NULL REFERENCES rereview_runs ON DELETE CASCADE,
    draft_id    text NOT NULL,
    version     integer NOT NULL,
    reviewer    text NOT NULL,
    status      text NOT NULL,
    approved    boolean NOT NULL,
    score       double precision NOT NULL,
    feedback    text NOT NULL,
    findings    jsonb NOT NULL DEFAULT '[]',
    veto        text,
    tokens_in   integer NOT NULL DEFAULT 0,
    tokens_out  integer NOT NULL DEFAULT 0,
    usd         double precision NOT NULL DEFAULT 0,
    kwh         double precision NOT NULL DEFAULT 0,
    model       text,
    PRIMARY KEY (run_id, draft_id, version, reviewer)
);

CREATE TABLE IF NOT EXISTS rereview_decisions (
    run_id         uuid NOT NULL REFERENCES rereview_runs ON DELETE CASCADE,
    draft_id       text NOT NULL,
    version        integer NOT NULL,
    live_approved  boolean,
    live_score     double precision,
    approved       boolean NOT NULL,
    final_score    double precision NOT NULL,
    flipped        boolean NOT NULL,
    summary        text NOT NULL,
    feedback_text  text NOT NULL,
    PRIMARY KEY (run_id, draft_id, version)
);
