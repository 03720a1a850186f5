-- Gateway settings changed at run time (the CLI, the dashboard) and kept across restarts,
-- one row per key with its value as JSON. `default-toolset`: the toolset sessions without a
-- choice of their own see, {"name": "..."} or {"none": true}; without a row the config's
-- `toolsets.default` holds.

CREATE TABLE gateway_settings (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by text
);
