-- Brand voices (src/modules/brand-voice): saved style sources applied to generation. Soft-deleted
-- (is_active = 0), never removed. Website voices may be re-fetched on a schedule. Times are epoch ms.
CREATE TABLE brand_voices (
  id                  TEXT PRIMARY KEY,
  workspace_id        TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id             TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,  -- creator
  scope               TEXT NOT NULL CHECK (scope IN ('team', 'personal')),
  type                TEXT NOT NULL CHECK (type IN ('website', 'text', 'file')),
  name                TEXT NOT NULL,
  url                 TEXT,                                                 -- source page or file; NULL for text
  content             TEXT NOT NULL,
  fetch_interval      TEXT NOT NULL DEFAULT 'once' CHECK (fetch_interval IN ('once', 'daily', 'weekly', 'monthly')),
  next_fetch_at       INTEGER,                                              -- NULL: no scheduled refresh
  last_fetched_at     INTEGER,                                              -- last successful fetch
  last_fetch_error    TEXT,                                                 -- why the latest refresh failed; NULL after a success
  last_fetch_error_at INTEGER,
  is_active           INTEGER NOT NULL DEFAULT 1,
  created_at          INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL
);

-- Lists and visibility checks: a workspace's active voices, newest first.
CREATE INDEX brand_voices_workspace ON brand_voices(workspace_id, is_active, created_at);
-- The refresh schedule: active voices that are due.
CREATE INDEX brand_voices_due ON brand_voices(next_fetch_at) WHERE is_active = 1 AND next_fetch_at IS NOT NULL;
