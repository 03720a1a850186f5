import type { FC } from 'hono/jsx';
import { describeMember } from '../../../gateway/toolsets/resolve.js';
import type { Toolset, ToolsetSummary } from '../../../store/types.js';
import type { PageContext } from '../layout.js';
import { Csrf, Empty, Layout, Notice, Time, UI } from '../layout.js';

/** A form sent back with an error, its values kept. */
export interface ToolsetFormError {
  readonly values: Readonly<Record<string, string>>;
  readonly error: string;
}

/**
 * Where the default toolset comes from: chosen at run time (kept in the store, by whom), or
 * the config's `toolsets.default`.
 */
export interface DefaultOrigin {
  /** The config's `toolsets.default`. */
  readonly configured: string | undefined;
  /** The default chosen at run time, when there is one (it wins over the config's). */
  readonly chosenBy: string | undefined;
  readonly chosen: boolean;
}

const DefaultOriginText: FC<{ origin: DefaultOrigin }> = ({ origin }) =>
  origin.chosen ? (
    <>
      {' '}
      (chosen{origin.chosenBy === undefined ? '' : ` by ${origin.chosenBy}`}; it wins over the
      config's <code>toolsets.default</code>
      {origin.configured === undefined ? '' : `, "${origin.configured}"`})
    </>
  ) : origin.configured === undefined ? null : (
    <>
      {' '}
      (the config's <code>toolsets.default</code>)
    </>
  );

/** The toolsets: list, default, create. */
export const ToolsetsPageView: FC<{
  page: PageContext;
  toolsets: readonly ToolsetSummary[];
  defaultToolset: string | undefined;
  defaultOrigin: DefaultOrigin;
  failed?: ToolsetFormError | undefined;
  done?: string | undefined;
}> = ({ page, toolsets, defaultToolset, defaultOrigin, failed, done }) => (
  <Layout title="Toolsets" page={page}>
    {done === undefined ? null : <Notice kind="ok">{done}</Notice>}
    <p class="muted">
      Sessions that have not chosen a toolset see{' '}
      {defaultToolset === undefined ? (
        'every tool (no default toolset)'
      ) : (
        <strong>{defaultToolset}</strong>
      )}
      <DefaultOriginText origin={defaultOrigin} />.
    </p>
    {toolsets.length === 0 ? (
      <Empty title="No toolsets yet">
        <p>
          A toolset is a named group of tools, with its own notes and overrides. Create one below.
        </p>
      </Empty>
    ) : (
      <table>
        <thead>
          <tr>
            <th scope="col">Toolset</th>
            <th scope="col" class="num">
              Members
            </th>
            <th scope="col" class="num">
              Notes
            </th>
            <th scope="col" class="num">
              Overrides
            </th>
            <th scope="col">Updated (UTC)</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {toolsets.map((toolset) => (
            <tr>
              <th scope="row">
                <a href={`${UI}/toolsets/${encodeURIComponent(toolset.name)}`}>{toolset.name}</a>
                {toolset.name === defaultToolset ? <span class="pill">default</span> : null}
              </th>
              <td class="num">{toolset.memberCount}</td>
              <td class="num">{toolset.noteCount}</td>
              <td class="num">{toolset.overrideCount}</td>
              <td>
                <Time iso={toolset.updatedAt} />
              </td>
              <td>{toolset.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
    <form method="post" action={`${UI}/toolsets`} class="card" id="create">
      <h2>Create a toolset</h2>
      <Csrf page={page} />
      {failed === undefined ? null : <Notice kind="error">{failed.error}</Notice>}
      <label>
        Name
        <input
          name="name"
          value={failed?.values['name'] ?? ''}
          placeholder="lowercase-name"
          required
        />
      </label>
      <label>
        Description
        <input name="description" value={failed?.values['description'] ?? ''} />
      </label>
      <label>
        <span>
          Members, one per line (<code>server.tool</code>, a refId, or <code>server</code> for all
          its tools)
        </span>
        <textarea name="members" rows={4}>
          {failed?.values['members'] ?? ''}
        </textarea>
      </label>
      <button type="submit">Create</button>
    </form>
  </Layout>
);

/** Members as the text area shows them, one per line. */
export function membersText(toolset: Toolset): string {
  return toolset.members
    .map((member) =>
      member.kind === 'tool'
        ? member.namespacedName
        : member.kind === 'ref'
          ? member.refId
          : member.server,
    )
    .join('\n');
}

/** One toolset: members (editable), default, delete. */
export const ToolsetPageView: FC<{
  page: PageContext;
  toolset: Toolset;
  isDefault: boolean;
  defaultOrigin: DefaultOrigin;
  orphans: readonly string[];
  failed?: ToolsetFormError | undefined;
  done?: string | undefined;
}> = ({ page, toolset, isDefault, defaultOrigin, orphans, failed, done }) => {
  const base = `${UI}/toolsets/${encodeURIComponent(toolset.name)}`;
  return (
    <Layout title={`Toolset ${toolset.name}`} page={page}>
      {done === undefined ? null : <Notice kind="ok">{done}</Notice>}
      <p class="muted">
        Revision {toolset.revision} · updated <Time iso={toolset.updatedAt} /> ·{' '}
        {toolset.notes.length} note(s) · {toolset.overrides.length} override(s)
      </p>
      <form method="post" action={`${base}/default`} class="inline">
        <Csrf page={page} />
        {isDefault ? (
          <>
            <span class="pill">default</span>{' '}
            <button type="submit" name="action" value="clear" class="secondary">
              Stop being the default
            </button>
          </>
        ) : (
          <button type="submit" name="action" value="set">
            Equip as default
          </button>
        )}
        {defaultOrigin.chosen ? (
          <>
            {' '}
            <button type="submit" name="action" value="config" class="secondary">
              Back to the config's default
              {defaultOrigin.configured === undefined
                ? ' (none)'
                : ` (${defaultOrigin.configured})`}
            </button>
          </>
        ) : null}
        <span class="muted small">
          {' '}
          The default is what sessions without a choice see. A default chosen here or with{' '}
          <code>hintgate toolset equip</code> is kept in the store: it holds after a restart and
          wins over the config's <code>toolsets.default</code>.
        </span>
      </form>
      {orphans.length === 0 ? null : (
        <Notice kind="warn">
          Resolve to no tool now (kept, used again when they resolve): {orphans.join(', ')}
        </Notice>
      )}
      <form method="post" action={base} class="card" id="members">
        <h2>Members</h2>
        <Csrf page={page} />
        {failed === undefined ? null : <Notice kind="error">{failed.error}</Notice>}
        <label>
          Description
          <input name="description" value={failed?.values['description'] ?? toolset.description} />
        </label>
        <label>
          <span>
            One per line: <code>server.tool</code>, a refId, or <code>server</code> for all its
            tools
          </span>
          <textarea name="members" rows={Math.min(20, Math.max(4, toolset.members.length + 2))}>
            {failed?.values['members'] ?? membersText(toolset)}
          </textarea>
        </label>
        <button type="submit">Save members</button>
      </form>
      <ul class="members">
        {toolset.members.map((member) => (
          <li>{describeMember(member)}</li>
        ))}
      </ul>
      <form method="post" action={`${base}/delete`} class="inline danger-zone">
        <Csrf page={page} />
        <button
          type="submit"
          class="danger"
          data-confirm={`Delete toolset "${toolset.name}" with its notes and overrides?`}
        >
          Delete toolset
        </button>
      </form>
    </Layout>
  );
};
