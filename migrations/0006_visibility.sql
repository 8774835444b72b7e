-- AI visibility reports (src/modules/visibility): one row per requested report or refresh, its
-- input, state and stored result, plus the optional per-workspace refresh schedule. Times are epoch ms.
CREATE TABLE visibility_reports (
  id                TEXT PRIMARY KEY,                 -- time-sortable (ULID)
  workspace_id      TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  requested_by      TEXT REFERENCES users(id) ON DELETE SET NULL,
  job_id            TEXT,                             -- set once queued
  trigger           TEXT NOT NULL CHECK (trigger IN ('new', 'refresh', 'scheduled')),
  status            TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  website_url       TEXT NOT NULL,
  competitors       TEXT NOT NULL,                    -- JSON string[]
  prompts           TEXT NOT NULL,                    -- JSON string[]; [] = suggested by the job
  refresh_count     INTEGER NOT NULL DEFAULT 0,       -- refreshes since the new report this one descends from
  credits           TEXT,                             -- JSON reservation (src/ai/credits.ts), refunded if the report fails
  score             REAL,
  result            TEXT,                             -- JSON {scores, report, recommendations} once completed
  error             TEXT,
  created_at        INTEGER NOT NULL,
  started_at        INTEGER,
  finished_at       INTEGER
);
-- latest report, history, refresh and free-audit counting: all per workspace by time
CREATE INDEX visibility_reports_workspace ON visibility_reports(workspace_id, created_at);

CREATE TABLE visibility_schedules (
  workspace_id    TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,  -- whose plan and credits a run uses
  cron            TEXT NOT NULL,
  timezone        TEXT,                               -- IANA name; NULL = UTC
  enabled         INTEGER NOT NULL DEFAULT 1,
  last_run_at     INTEGER,
  last_report_id  TEXT,
  last_error      TEXT,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);
