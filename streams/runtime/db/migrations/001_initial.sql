-- multiqa initial schema. Released migrations are never edited: add a new numbered file instead.

CREATE TABLE IF NOT EXISTS app_settings (
    key         text PRIMARY KEY,
    value       text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Known-wrong facts the validator flags (critical `known_wrong_fact`), with their correction.
CREATE TABLE IF NOT EXISTS fact_overrides (
    id          bigserial PRIMARY KEY,
    pattern     text NOT NULL,           -- Python regex, matched case-insensitively
    correction  text NOT NULL,
    niche       text,                    -- NULL: every niche
    enabled     boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- The writer pipeline's tasks and their draft versions; multiqa writes the QA feedback columns.
CREATE TABLE IF NOT EXISTS pipeline_tasks (
    task_id      text PRIMARY KEY,
    latest_draft_id text,
    latest_version  integer,
    qa_feedback  text,
    qa_score     double precision,
    qa_approved  boolean,
    updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS pipeline_versions (
    draft_id     text NOT NULL,
    version      integer NOT NULL,
    task_id      text,
    qa_feedback  text,
    qa_score     double precision,
    qa_approved  boolean,
    decision_id  uuid,
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (draft_id, version)
);

-- Exactly one row per draft version.
CREATE TABLE IF NOT EXISTS qa_decisions (
    decision_id        uuid PRIMARY KEY,
    draft_id           text NOT NULL,
    version            integer NOT NULL,
    task_id            text,
    approved           boolean NOT NULL,
    final_score        double precision NOT NULL,
    summary            text NOT NULL,
    feedback_text      text NOT NULL,
    missing_reviewers  text[] NOT NULL DEFAULT '{}',
    vetoes             text[] NOT NULL DEFAULT '{}',
    timed_out          boolean NOT NULL DEFAULT false,
    short_circuited    boolean NOT NULL DEFAULT false,
    early_decided      boolean NOT NULL DEFAULT false,
    needs_human_review boolean NOT NULL DEFAULT false,
    settings_version   text NOT NULL DEFAULT '',
    decided_at         timestamptz NOT NULL,
    recorded_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (draft_id, version)
);

CREATE TABLE IF NOT EXISTS qa_reviews (
    draft_id     text NOT NULL,
    version      integer NOT NULL,
    reviewer     text NOT NULL,
    provider     text NOT NULL,
    status       text NOT NULL,
    approved     boolean NOT NULL,
    score        double precision NOT NULL,
    feedback     text NOT NULL,
    findings     jsonb NOT NULL DEFAULT '[]',
    veto         text,
    produced_at  timestamptz NOT NULL,
    recorded_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (draft_id, version, reviewer)
);

-- One cost row per reviewer run; the unique key makes re-delivery idempotent.
CREATE TABLE IF NOT EXISTS cost_logs (
    id           bigserial PRIMARY KEY,
    draft_id     text NOT NULL,
    version      integer NOT NULL,
    reviewer     text NOT NULL,
    provider     text NOT NULL,
    model        text,
    tokens_in    integer NOT NULL DEFAULT 0,
    tokens_out   integer NOT NULL DEFAULT 0,
    usd          double precision NOT NULL DEFAULT 0,
    kwh          double precision NOT NULL DEFAULT 0,
    duration_ms  bigint NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (draft_id, version, reviewer)
);

-- Operational events (critic_fallback, aggregation timeouts, dead letters). dedupe_key, when set,
-- makes a re-delivered event idempotent.
CREATE TABLE IF NOT EXISTS audit_log (
    id          bigserial PRIMARY KEY,
    event_type  text NOT NULL,
    payload     jsonb NOT NULL DEFAULT '{}',
    dedupe_key  text UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS audit_log_event_type_created_at ON audit_log (event_type, created_at DESC);
