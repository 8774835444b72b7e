-- AI traffic: tracked sites, daily visitor-hash salts, raw visits and page views, and the daily
-- rollups that stats read. Days are UTC epoch days (floor(ms / 86 400 000)).
CREATE TABLE traffic_sites (
  id            TEXT PRIMARY KEY,
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  site_key      TEXT NOT NULL UNIQUE,
  domain        TEXT NOT NULL,
  name          TEXT NOT NULL,
  is_active     INTEGER NOT NULL DEFAULT 1,
  created_at    INTEGER NOT NULL,
  UNIQUE (workspace_id, domain)
);

-- One random salt per UTC day; only today's and yesterday's are kept, so a visitor hash can
-- never be linked to the same person on another day.
CREATE TABLE traffic_salts (
  day   INTEGER PRIMARY KEY,
  salt  TEXT NOT NULL
);

-- A visit: page views of one visitor hash with no gap over 30 minutes. Channel and source are
-- those of its landing page view.
CREATE TABLE traffic_visits (
  id            INTEGER PRIMARY KEY,
  site_id       TEXT NOT NULL REFERENCES traffic_sites(id) ON DELETE CASCADE,
  visitor_id    TEXT NOT NULL,
  day           INTEGER NOT NULL,
  started_at    INTEGER NOT NULL,
  last_seen_at  INTEGER NOT NULL,
  channel       TEXT NOT NULL,
  source        TEXT NOT NULL,
  landing_path  TEXT NOT NULL,
  pageviews     INTEGER NOT NULL DEFAULT 0
);
-- last_seen_at is left out of the key on purpose: it changes on every page view, and rewriting a
-- random index entry per event is what made ingestion slow; a visitor has only a few visits a day
CREATE INDEX traffic_visits_visitor ON traffic_visits(site_id, visitor_id);

CREATE TABLE traffic_pageviews (
  id             INTEGER PRIMARY KEY,
  site_id        TEXT NOT NULL REFERENCES traffic_sites(id) ON DELETE CASCADE,
  visit_id       INTEGER NOT NULL,
  session_id     TEXT NOT NULL,
  ts             INTEGER NOT NULL,
  day            INTEGER NOT NULL,
  path           TEXT NOT NULL,
  title          TEXT,
  referrer_host  TEXT,
  utm_source     TEXT,
  utm_medium     TEXT,
  utm_campaign   TEXT,
  channel        TEXT NOT NULL,
  source         TEXT NOT NULL,
  engaged_ms     INTEGER NOT NULL DEFAULT 0,
  scroll_depth   INTEGER NOT NULL DEFAULT 0
);
-- engagement updates find their page view by (site, per-tab session)
CREATE INDEX traffic_pageviews_session ON traffic_pageviews(site_id, session_id);
-- raw reads by day (exports, pruning, the benchmark's raw-scan baseline); stats never use it
CREATE INDEX traffic_pageviews_day ON traffic_pageviews(site_id, day);

-- Daily totals per source, written in the same transaction as the raw rows.
CREATE TABLE traffic_daily (
  site_id       TEXT NOT NULL REFERENCES traffic_sites(id) ON DELETE CASCADE,
  day           INTEGER NOT NULL,
  channel       TEXT NOT NULL,
  source        TEXT NOT NULL,
  pageviews     INTEGER NOT NULL DEFAULT 0,
  visits        INTEGER NOT NULL DEFAULT 0,
  visitors      INTEGER NOT NULL DEFAULT 0,
  engaged_ms    INTEGER NOT NULL DEFAULT 0,
  scroll_sum    INTEGER NOT NULL DEFAULT 0,
  scroll_count  INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, day, channel, source)
) WITHOUT ROWID;

-- Landing pages of AI visits per day and source (other channels are not kept per page).
CREATE TABLE traffic_daily_landing (
  site_id  TEXT NOT NULL REFERENCES traffic_sites(id) ON DELETE CASCADE,
  day      INTEGER NOT NULL,
  path     TEXT NOT NULL,
  source   TEXT NOT NULL,
  visits   INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (site_id, day, path, source)
) WITHOUT ROWID;
