-- The durable job queue (src/jobs): one row per job, BullMQ-like states. Times are epoch ms.
-- WITHOUT ROWID: the time-sortable id is the clustering key, so an insert appends to one b-tree
-- instead of two (the enqueue commit is on the hot path).
CREATE TABLE jobs (
  id                TEXT PRIMARY KEY,               -- time-sortable (ULID)
  queue             TEXT NOT NULL CHECK (queue IN ('aiQueue', 'seoQueue', 'contentQueue')),
  name              TEXT NOT NULL,                  -- handler name, e.g. ai_tool_content
  workspace_id      TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  data              TEXT NOT NULL,                  -- JSON input
  state             TEXT NOT NULL CHECK (state IN ('waiting', 'delayed', 'active', 'completed', 'failed')),
  priority          INTEGER NOT NULL DEFAULT 0,     -- higher runs first
  run_at            INTEGER NOT NULL,               -- not claimable before this time
  attempts_made     INTEGER NOT NULL DEFAULT 0,     -- finished attempts (success, failure or expired lease)
  max_attempts      INTEGER NOT NULL,
  backoff_ms        INTEGER NOT NULL,               -- base of the exponential retry delay
  progress          REAL NOT NULL DEFAULT 0,
  result            TEXT,                           -- JSON return value once completed
  failed_reason     TEXT,                           -- set only in state failed
  lease_owner       TEXT,                           -- worker id holding the job while active
  lease_expires_at  INTEGER,
  created_at        INTEGER NOT NULL,
  processed_at      INTEGER,                        -- start of the latest attempt
  finished_at       INTEGER                         -- completed or failed
) WITHOUT ROWID;

-- Every index costs a WAL page on the commits of the hot path (enqueue, claim + complete), so there
-- are only two, both partial and small.
-- The claim query: next due jobs of one queue, by priority then due time.
CREATE INDEX jobs_claim ON jobs(queue, priority DESC, run_at, id) WHERE state IN ('waiting', 'delayed');
-- The sweeper: active jobs whose lease has run out (a handful of rows, one page).
CREATE INDEX jobs_lease ON jobs(lease_expires_at) WHERE state = 'active';
-- No index for retention pruning: ids sort by creation time, so pruning scans the primary key from
-- the start up to the first job created after the cutoff, i.e. only the old rows it deletes.
-- No index on workspace_id: reads are by id (then checked against the workspace), and deleting a
-- workspace, rare, may scan.
