-- Chat sessions (each belongs to one user), their message blocks, and feedback on generations
-- and chat replies. Session ids are chosen by clients, so they are unique per user, not globally.
CREATE TABLE chat_sessions (
  pk            INTEGER PRIMARY KEY,
  session_id    TEXT NOT NULL,
  user_id       TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  title         TEXT,
  model         TEXT,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  UNIQUE (user_id, session_id)
);
CREATE INDEX chat_sessions_recent ON chat_sessions(user_id, updated_at DESC, pk DESC);

-- One block per message: the user's text or the assistant's reply.
CREATE TABLE chat_blocks (
  id          TEXT PRIMARY KEY,
  session_pk  INTEGER NOT NULL REFERENCES chat_sessions(pk) ON DELETE CASCADE,
  role        TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  content     TEXT NOT NULL,
  model       TEXT,
  citations   TEXT NOT NULL DEFAULT '[]',
  created_at  INTEGER NOT NULL
);
CREATE INDEX chat_blocks_session ON chat_blocks(session_pk, created_at DESC, id DESC);

CREATE TABLE ai_feedback (
  id            TEXT PRIMARY KEY,
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id       TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  source        TEXT NOT NULL CHECK (source IN ('generate', 'chat')),
  rating        INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
  comment       TEXT,
  job_id        TEXT,
  session_id    TEXT,
  message_id    TEXT,
  model         TEXT,
  text          TEXT,
  created_at    INTEGER NOT NULL
);
CREATE INDEX ai_feedback_workspace ON ai_feedback(workspace_id, created_at DESC);
