-- Toolsets: named selections of tools, with per-tool notes and annotation overrides.
-- A tool is referred to by its namespaced name, its refId, or both; '' stands for "not
-- given" so that unique indexes treat a missing part as a value.

CREATE TABLE toolsets (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL UNIQUE,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  revision integer NOT NULL DEFAULT 1
);

CREATE TABLE toolset_members (
  toolset_id integer NOT NULL REFERENCES toolsets (id) ON DELETE CASCADE,
  position integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('tool', 'ref', 'server')),
  value text NOT NULL,
  PRIMARY KEY (toolset_id, kind, value)
);

CREATE INDEX toolset_members_in_order ON toolset_members (toolset_id, position);

CREATE TABLE tool_notes (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  toolset_id integer NOT NULL REFERENCES toolsets (id) ON DELETE CASCADE,
  namespaced_name text NOT NULL DEFAULT '',
  ref_id text NOT NULL DEFAULT '',
  name text NOT NULL,
  note text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (namespaced_name <> '' OR ref_id <> '')
);

-- A note applies to a tool matching either reference, so a name is unique per reference.
CREATE UNIQUE INDEX tool_notes_name_by_tool ON tool_notes (toolset_id, namespaced_name, name)
  WHERE namespaced_name <> '';
CREATE UNIQUE INDEX tool_notes_name_by_ref ON tool_notes (toolset_id, ref_id, name)
  WHERE ref_id <> '';
CREATE INDEX tool_notes_in_order ON tool_notes (toolset_id, id);

CREATE TABLE annotation_overrides (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- NULL: a global override.
  toolset_id integer REFERENCES toolsets (id) ON DELETE CASCADE,
  namespaced_name text NOT NULL DEFAULT '',
  ref_id text NOT NULL DEFAULT '',
  annotations jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (namespaced_name <> '' OR ref_id <> ''),
  CHECK (jsonb_typeof(annotations) = 'object')
);

CREATE UNIQUE INDEX annotation_overrides_in_toolset
  ON annotation_overrides (toolset_id, namespaced_name, ref_id) WHERE toolset_id IS NOT NULL;
CREATE UNIQUE INDEX annotation_overrides_global
  ON annotation_overrides (namespaced_name, ref_id) WHERE toolset_id IS NULL;
