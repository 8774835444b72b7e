-- Generated images (src/modules/images): the bytes of every image made by /image and the blog
-- job, served at /v1/ai/generate/images/:id. The id is the capability (128 random bits), so it is
-- never derived from time or a counter. Rows are deleted AIVIS_IMAGE_KEEP_DAYS after created_at.
CREATE TABLE generated_images (
  id           TEXT PRIMARY KEY,                                          -- 22 chars base64url, 128 random bits
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  mime_type    TEXT NOT NULL,                                             -- from the bytes' signature, not the provider's label
  prompt       TEXT NOT NULL,
  model        TEXT NOT NULL,
  created_at   INTEGER NOT NULL,                                          -- epoch ms
  -- last: reading a column stored after a multi-MB blob walks its overflow pages, so the lookups
  -- that need no bytes (retention check, 304, prune) stay on the row's first page
  bytes        BLOB NOT NULL
);

-- Retention: the prune deletes the oldest rows first.
CREATE INDEX generated_images_created ON generated_images(created_at);
-- Deleting a workspace cascades here.
CREATE INDEX generated_images_workspace ON generated_images(workspace_id);
