-- Dynamic-annotation rules of a toolset: a JSON array of rules as written
-- ({ name?, tool?, match: [{ pointer, equals?, oneOf?, regex?, flags? }], set: { ... } }),
-- checked by hintgate before it is stored, applied in order to the toolset's tools.

ALTER TABLE toolsets
  ADD COLUMN rules jsonb NOT NULL DEFAULT '[]'::jsonb
  CHECK (jsonb_typeof(rules) = 'array');
