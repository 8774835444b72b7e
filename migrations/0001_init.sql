-- Workspaces (teams), users, web sessions (lucia), API keys and monthly usage counters.
CREATE TABLE workspaces (
  id           TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  plan         TEXT NOT NULL CHECK (plan IN ('free', 'startup', 'business', 'enterprise')),
  website_url  TEXT,
  created_at   INTEGER NOT NULL
);

CREATE TABLE users (
  id             TEXT PRIMARY KEY,
  email          TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash  TEXT,
  workspace_id   TEXT NOT NULL REFERENCES workspaces(id),
  banned         INTEGER NOT NULL DEFAULT 0,
  website_url    TEXT,
  created_at     INTEGER NOT NULL
);
CREATE INDEX users_workspace ON users(workspace_id);

-- lucia's session table (BunSQLiteAdapter): expires_at is unix seconds.
CREATE TABLE user_sessions (
  id          TEXT PRIMARY KEY,
  user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  expires_at  INTEGER NOT NULL
);
CREATE INDEX user_sessions_user ON user_sessions(user_id);

-- One current key per user; only the SHA-256 of the secret is stored.
CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
  name         TEXT NOT NULL,
  prefix       TEXT NOT NULL,
  secret_hash  TEXT NOT NULL UNIQUE,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  last_used_at INTEGER
);

-- Usage per workspace and period ('2026-11' for monthly allowances, 'lifetime' for the free trial).
CREATE TABLE usage_counters (
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  period        TEXT NOT NULL,
  kind          TEXT NOT NULL,
  used          INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (workspace_id, period, kind)
) WITHOUT ROWID;
