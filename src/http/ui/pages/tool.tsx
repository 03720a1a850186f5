import type { FC } from 'hono/jsx';
import {
  COMPLEXITY_LEVELS,
  HINT_FIELDS,
  SECURITY_LEVELS,
} from '../../../core/annotations/types.js';
import type { CatalogEntry } from '../../../gateway/catalog-entry.js';
import type { AnnotationOverride, AuditRecord, StoredNote, Toolset } from '../../../store/types.js';
import { ANNOTATION_FIELDS, hintCells } from '../data.js';
import type { PageContext } from '../layout.js';
import {
  Csrf,
  Empty,
  HintBadge,
  Layout,
  Notice,
  SOURCE_LABEL,
  Time,
  UI,
  pretty,
  queryString,
} from '../layout.js';

/** A form that was sent back with an error: what was typed is shown again, nothing lost. */
export interface FailedForm {
  /** Which form: `override:global`, `override:<toolset>`, `note-add`, `note:<toolset>:<name>`. */
  readonly id: string;
  readonly values: Readonly<Record<string, string>>;
  readonly error: string;
}

/** What the tool page shows. */
export interface ToolPageData {
  /** The tool as the chosen toolset (or the global view) shows it. */
  readonly entry: CatalogEntry;
  readonly toolsets: readonly Toolset[];
  /** The toolset the description and annotations are shown for. */
  readonly selected: string | undefined;
  readonly globalOverride: AnnotationOverride | undefined;
  readonly calls: readonly AuditRecord[];
  readonly failed?: FailedForm | undefined;
  readonly done?: string | undefined;
}

/** Whether a stored note or override belongs to this tool (either reference matches). */
export function refersTo(
  ref: { namespacedName?: string; refId?: string },
  entry: CatalogEntry,
): boolean {
  return ref.namespacedName === entry.namespacedName || ref.refId === entry.refId;
}

const BOOLEAN_FIELDS = [...HINT_FIELDS, 'requiresConfirmation', 'auditRequired'] as const;
const CHOICES: Readonly<Record<string, readonly string[]>> = {
  complexity: COMPLEXITY_LEVELS,
  securityLevel: SECURITY_LEVELS,
};

/** An override's fields as form text. */
function formValues(
  annotations: Readonly<Record<string, unknown>> | undefined,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [field, value] of Object.entries(annotations ?? {})) {
    values[field] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return values;
}

const OverrideForm: FC<{
  page: PageContext;
  entry: CatalogEntry;
  scope: string | undefined;
  current: AnnotationOverride | undefined;
  failed: FailedForm | undefined;
}> = ({ page, entry, scope, current, failed }) => {
  const id = `override:${scope ?? 'global'}`;
  const values = failed?.id === id ? failed.values : formValues(current?.annotations);
  const domId = `ov-${scope ?? 'global'}`;
  return (
    <form method="post" action={`${UI}/tools/${entry.refId}/overrides`} class="override" id={domId}>
      <Csrf page={page} />
      <input type="hidden" name="scope" value={scope ?? ''} />
      {failed?.id === id ? <Notice kind="error">{failed.error}</Notice> : null}
      <div class="fields">
        {ANNOTATION_FIELDS.map((field) => {
          const value = values[field] ?? '';
          const inputId = `${domId}-${field}`;
          const isBoolean = (BOOLEAN_FIELDS as readonly string[]).includes(field);
          const choices = CHOICES[field];
          return (
            <div class="field">
              <label for={inputId}>{field}</label>
              {isBoolean || choices !== undefined ? (
                <select id={inputId} name={field}>
                  <option value="">— not overridden —</option>
                  {(choices ?? ['true', 'false']).map((choice) => (
                    <option value={choice} selected={value === choice}>
                      {choice}
                    </option>
                  ))}
                  {value !== '' && !(choices ?? ['true', 'false']).includes(value) ? (
                    <option value={value} selected>
                      {value}
                    </option>
                  ) : null}
                </select>
              ) : (
                <input
                  id={inputId}
                  name={field}
                  value={value}
                  placeholder={field === 'tags' ? 'a, b' : '— not overridden —'}
                />
              )}
            </div>
          );
        })}
      </div>
      <button type="submit">Save {scope === undefined ? 'global' : `"${scope}"`} override</button>
      <span class="muted small"> An empty field is not overridden.</span>
    </form>
  );
};

const NoteEditor: FC<{
  page: PageContext;
  entry: CatalogEntry;
  toolset: string;
  note: StoredNote;
  failed: FailedForm | undefined;
}> = ({ page, entry, toolset, note, failed }) => {
  const id = `note:${toolset}:${note.name}`;
  const text = failed?.id === id ? (failed.values['note'] ?? '') : note.note;
  return (
    <li class="note">
      <form method="post" action={`${UI}/tools/${entry.refId}/notes/edit`}>
        <Csrf page={page} />
        <input type="hidden" name="toolset" value={toolset} />
        <input type="hidden" name="name" value={note.name} />
        <label for={`note-${toolset}-${note.name}`}>
          <strong>{note.name}</strong>{' '}
          <span class="muted small">
            updated <Time iso={note.updatedAt} />
          </span>
        </label>
        {failed?.id === id ? <Notice kind="error">{failed.error}</Notice> : null}
        <textarea id={`note-${toolset}-${note.name}`} name="note" rows={2}>
          {text}
        </textarea>
        <div class="row">
          <button type="submit">Save note</button>
          <button
            type="submit"
            formaction={`${UI}/tools/${entry.refId}/notes/remove`}
            class="danger"
          >
            Delete
          </button>
        </div>
      </form>
    </li>
  );
};

/** One tool: the description the model sees, schema, provenance, overrides, notes, calls. */
export const ToolPageView: FC<{ page: PageContext; data: ToolPageData }> = ({ page, data }) => {
  const { entry, toolsets, selected, failed } = data;
  const provenance = entry.effective.provenance;
  const annotations = entry.effective.annotations as Readonly<Record<string, unknown>>;
  const fields = [
    ...ANNOTATION_FIELDS,
    ...Object.keys(provenance).filter((field) => !ANNOTATION_FIELDS.includes(field)),
  ];
  const addValues = failed?.id === 'note-add' ? failed.values : {};
  return (
    <Layout title={entry.flattenedName} page={page}>
      <p class="muted">
        <a href={`${UI}${queryString({ server: entry.server })}`}>{entry.server}</a> ·{' '}
        <code>{entry.namespacedName}</code> · refId <code>{entry.refId}</code>
      </p>
      {data.done === undefined ? null : <Notice kind="ok">{data.done}</Notice>}
      {failed === undefined ? null : (
        <Notice kind="error">
          Not saved: {failed.error} <a href={`#${formAnchor(failed.id)}`}>Go to the form</a>
        </Notice>
      )}
      <div class="hints big">
        {hintCells(entry).map((cell) => (
          <HintBadge cell={cell} />
        ))}
      </div>
      {entry.effective.conflicts.map((conflict) => (
        <Notice kind="warn">
          Conflict on {conflict.field}: {conflict.reason}
        </Notice>
      ))}

      <section aria-labelledby="desc-heading">
        <h2 id="desc-heading">Description as the model sees it</h2>
        <form method="get" action={`${UI}/tools/${entry.refId}`} class="filters">
          <label>
            In toolset
            <select name="toolset">
              <option value="">none (every tool, global overrides)</option>
              {toolsets.map((toolset) => (
                <option value={toolset.name} selected={selected === toolset.name}>
                  {toolset.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Show</button>
        </form>
        <pre class="description">{describe(entry.listed['description'])}</pre>
      </section>

      <section aria-labelledby="ann-heading">
        <h2 id="ann-heading">Annotations and where they came from</h2>
        <table class="provenance">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Value</th>
              <th scope="col">Source</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {fields.map((field) => {
              const value = provenance[field];
              const conflict = entry.effective.conflicts.find((item) => item.field === field);
              return (
                <tr class={conflict === undefined ? undefined : 'has-conflict'}>
                  <th scope="row">
                    <code>{field}</code>
                  </th>
                  <td>
                    {value === undefined ? (
                      <span class="muted">not set</span>
                    ) : (
                      <code>{JSON.stringify(annotations[field] ?? value.value)}</code>
                    )}
                  </td>
                  <td>
                    {value === undefined ? (
                      <span class="muted">—</span>
                    ) : (
                      <span class={`source src-${value.source}`}>
                        {value.source === 'spec-default'
                          ? 'unknown: MCP default'
                          : SOURCE_LABEL[value.source]}
                      </span>
                    )}
                  </td>
                  <td class="small">
                    {value?.reason ?? ''}
                    {conflict === undefined ? null : (
                      <div class="conflict-note">⚠ {conflict.reason}</div>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="ov-heading">
        <h2 id="ov-heading">Overrides</h2>
        <p class="muted">
          An override wins over what the server declared and what was inferred; a toolset's override
          wins over the global one for sessions using that toolset.
        </p>
        <details open={failed?.id === 'override:global' || data.globalOverride !== undefined}>
          <summary>Global override</summary>
          <OverrideForm
            page={page}
            entry={entry}
            scope={undefined}
            current={data.globalOverride}
            failed={failed}
          />
        </details>
        {toolsets.map((toolset) => {
          const current = toolset.overrides.find((override) => refersTo(override.tool, entry));
          return (
            <details open={failed?.id === `override:${toolset.name}` || current !== undefined}>
              <summary>Override in toolset "{toolset.name}"</summary>
              <OverrideForm
                page={page}
                entry={entry}
                scope={toolset.name}
                current={current}
                failed={failed}
              />
            </details>
          );
        })}
      </section>

      <section aria-labelledby="notes-heading">
        <h2 id="notes-heading">Notes</h2>
        {toolsets.length === 0 ? (
          <Empty title="No toolsets yet">
            <p>
              Notes belong to a toolset. <a href={`${UI}/toolsets`}>Create a toolset</a> first.
            </p>
          </Empty>
        ) : (
          <>
            {toolsets.map((toolset) => {
              const notes = toolset.notes.filter((note) => refersTo(note.tool, entry));
              return notes.length === 0 ? null : (
                <div class="toolset-notes">
                  <h3>In "{toolset.name}"</h3>
                  <ul class="notes">
                    {notes.map((note) => (
                      <NoteEditor
                        page={page}
                        entry={entry}
                        toolset={toolset.name}
                        note={note}
                        failed={failed}
                      />
                    ))}
                  </ul>
                </div>
              );
            })}
            <form
              method="post"
              action={`${UI}/tools/${entry.refId}/notes/add`}
              id="note-add"
              class="note-add"
            >
              <h3>Add a note</h3>
              <Csrf page={page} />
              {failed?.id === 'note-add' ? <Notice kind="error">{failed.error}</Notice> : null}
              <div class="row">
                <label>
                  Toolset
                  <select name="toolset">
                    {toolsets.map((toolset) => (
                      <option
                        value={toolset.name}
                        selected={(addValues['toolset'] ?? selected) === toolset.name}
                      >
                        {toolset.name}
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  Name
                  <input
                    name="name"
                    value={addValues['name'] ?? ''}
                    placeholder="lowercase-with-hyphens"
                    required
                  />
                </label>
              </div>
              <label>
                Note
                <textarea name="note" rows={3} required>
                  {addValues['note'] ?? ''}
                </textarea>
              </label>
              <button type="submit">Add note</button>
            </form>
          </>
        )}
      </section>

      <section aria-labelledby="schema-heading">
        <h2 id="schema-heading">Input schema</h2>
        <pre class="schema">{pretty(entry.inputSchema ?? {})}</pre>
        {entry.outputSchema === undefined ? null : (
          <>
            <h3>Output schema</h3>
            <pre class="schema">{pretty(entry.outputSchema)}</pre>
          </>
        )}
      </section>

      <section aria-labelledby="calls-heading">
        <h2 id="calls-heading">Recent calls</h2>
        {data.calls.length === 0 ? (
          <Empty title="No calls recorded">
            <p>Calls of this tool appear here once a client has made one.</p>
          </Empty>
        ) : (
          <CallsTable records={data.calls} showTool={false} />
        )}
        <p>
          <a href={`${UI}/audit${queryString({ tool: entry.namespacedName })}`}>
            Every call of this tool in the audit log
          </a>
        </p>
      </section>
    </Layout>
  );
};

/** A description as text (the model sees nothing when there is none). */
function describe(value: unknown): string {
  return typeof value === 'string' && value !== '' ? value : '(no description)';
}

function formAnchor(id: string): string {
  if (id === 'note-add') return 'note-add';
  if (id.startsWith('override:')) return `ov-${id.slice('override:'.length)}`;
  const [, toolset, name] = id.split(':');
  return `note-${toolset ?? ''}-${name ?? ''}`;
}

/** A record's arguments: short ones inline, longer ones folded (readable with the keyboard). */
const Arguments: FC<{ value: unknown }> = ({ value }) => {
  if (value === undefined) return <span class="muted">—</span>;
  const text = JSON.stringify(value);
  return text.length <= 60 ? (
    <code class="args">{text}</code>
  ) : (
    <details class="args">
      <summary>
        <code>{`${text.slice(0, 56)}…`}</code>
      </summary>
      <pre>{pretty(value)}</pre>
    </details>
  );
};

/** Audit records as a table (also the audit page's). */
export const CallsTable: FC<{ records: readonly AuditRecord[]; showTool: boolean }> = ({
  records,
  showTool,
}) => (
  <table class="calls">
    <thead>
      <tr>
        <th scope="col">Time (UTC)</th>
        {showTool ? <th scope="col">Tool</th> : null}
        <th scope="col">Decision</th>
        <th scope="col">Outcome</th>
        <th scope="col" class="num">
          ms
        </th>
        <th scope="col">Client</th>
        <th scope="col">Arguments</th>
      </tr>
    </thead>
    <tbody>
      {records.map((record) => (
        <tr>
          <td>
            <Time iso={record.time} />
          </td>
          {showTool ? (
            <td>
              <code>{record.namespacedName ?? record.tool}</code>
            </td>
          ) : null}
          <td>
            <span class={`pill d-${record.decision}`}>{record.decision}</span>
            {record.approver === undefined ? null : (
              <div class="muted small">by {record.approver}</div>
            )}
          </td>
          <td>
            <span class={`pill o-${record.outcome}`}>{record.outcome}</span>
            {record.cacheHit ? <span class="pill">cache</span> : null}
            {record.error === undefined ? null : <div class="muted small">{record.error}</div>}
          </td>
          <td class="num">{record.durationMs ?? '—'}</td>
          <td class="small">{record.client ?? '—'}</td>
          <td>
            <Arguments value={record.arguments} />
          </td>
        </tr>
      ))}
    </tbody>
  </table>
);
