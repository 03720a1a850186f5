/**
 * The name grammar: which word of a tool name is its verb, by position and role, and the
 * safety-first combination of evidence. Every rule is checked on real tool names of
 * published MCP servers.
 */
import { describe, expect, it } from 'vitest';
import { inferAnnotations } from '../../../src/core/inference/infer.js';
import { readName } from '../../../src/core/inference/name-signals.js';
import { tokenizeName } from '../../../src/core/inference/tokenize.js';

const verbOf = (name: string) => readName(tokenizeName(name)).primary;

describe('the verb by position', () => {
  it.each([
    ['delete_repo', 'delete', 'first'],
    ['list_deleted_items', 'list', 'first'],
    ['compute_vm_delete', 'delete', 'last'],
    ['deploy_plan_get', 'get', 'last'],
    ['storage_account_create', 'create', 'last'],
    ['appconfig_kv_set', 'set', 'last'],
    ['mcp_github_get_me', 'get', 'after-prefix'],
    ['appservice_webapp_settings_get-appsettings', 'get', 'after-prefix'],
    ['query_logs', 'query', 'first'],
  ])('%s: the verb is "%s" (%s)', (name, word, position) => {
    expect(verbOf(name)).toMatchObject({ word, position });
  });

  it.each([
    // A service or resource named at the front is a noun when a clear verb follows.
    ['compute_vm_delete', 'compute'],
    ['deploy_iac_rules_get', 'deploy'],
    ['search_index_get', 'search'],
    ['monitor_workspace_list', 'monitor'],
    // An object at the end is a noun after a verb in front.
    ['get_workflow_run', 'run'],
    ['get_commit', 'commit'],
  ])('%s: "%s" is a noun there', (name, noun) => {
    expect(verbOf(name)?.word).not.toBe(noun);
  });

  it('takes a word more often a noun as the verb only when nothing clearer stands', () => {
    expect(verbOf('trigger-long-running-operation')).toMatchObject({
      word: 'trigger',
      position: 'first',
    });
    expect(verbOf('servicebus_queue_details')).toMatchObject({ word: 'queue', firm: false });
  });

  it('reads two verbs written as one word as the worse of them', () => {
    expect(verbOf('loadtesting_testrun_createorupdate')?.info.kind).toBe('update');
    expect(verbOf('monitor_webtests_createorupdate')?.info.kind).toBe('update');
  });

  it('lets a destructive verb ending the name outweigh a milder one in front', () => {
    expect(verbOf('find_replace')).toMatchObject({ word: 'replace', safety: true });
    expect(verbOf('getAndDelete')).toMatchObject({ word: 'delete', safety: true });
  });
});

describe('inference from verb position', () => {
  it('never calls a VM deletion read-only', () => {
    const { annotations, reasons } = inferAnnotations({
      name: 'compute_vm_delete',
      description: 'Deletes an Azure virtual machine.',
    });
    expect(annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(reasons['destructiveHint']?.text).toBe(
      'name word "delete" (the last word, after the resource it acts on) is a destructive verb',
    );
    expect(reasons['destructiveHint']?.decisive).toBe(true);
  });

  it('reads a get after a resource-first prefix as a read', () => {
    const { annotations } = inferAnnotations({
      name: 'deploy_plan_get',
      description: 'Get the deployment plan for an application.',
    });
    expect(annotations.readOnlyHint).toBe(true);
  });

  it('says in the reason when a destructive statement outweighs a read verb', () => {
    const { annotations, reasons } = inferAnnotations({
      name: 'inspect_orphaned_disks',
      description: 'Finds orphaned disks and permanently deletes them. This cannot be undone.',
    });
    expect(annotations.readOnlyHint).toBe(false);
    expect(reasons['readOnlyHint']?.text).toContain('conservative');
  });

  it('marks an update verb strong but not decisive for destructiveHint', () => {
    const { annotations, reasons } = inferAnnotations({ name: 'updateTeam' });
    expect(annotations.destructiveHint).toBe(true);
    expect(reasons['destructiveHint']).toMatchObject({ strength: 'strong' });
    expect(reasons['destructiveHint']?.decisive).toBeUndefined();
    expect(reasons['readOnlyHint']?.decisive).toBe(true);
  });
});

describe('open world', () => {
  const openWorld = (name: string, description?: string, inputSchema?: unknown) =>
    inferAnnotations({ name, description, inputSchema });

  it.each([
    ['firecrawl_scrape', 'Scrape content from a single URL.'],
    ['communication_email_send', 'Sends an email to recipients.'],
    ['communication_sms_send', 'Sends an SMS message.'],
    ['web_search_exa', 'Search the web.'],
    ['browser_navigate', 'Navigate to a page.'],
  ])('%s reaches the open world', (name, description) => {
    expect(openWorld(name, description).annotations.openWorldHint).toBe(true);
  });

  it('takes a URL argument as reaching the web', () => {
    const schema = { type: 'object', properties: { url: { type: 'string' } } };
    const { annotations, reasons } = openWorld('fetch', 'Fetches a page.', schema);
    expect(annotations.openWorldHint).toBe(true);
    expect(reasons['openWorldHint']?.rule).toBe('url-argument');
  });

  it('keeps MCP’s default for a service API, and a URL merely mentioned out', () => {
    const { annotations } = openWorld(
      'get_dashboard_by_uid',
      'Retrieves the dashboard and returns its URL.',
    );
    expect(annotations.openWorldHint).toBeUndefined();
  });

  it('leaves the hint unset for a tool nothing is known about', () => {
    expect(openWorld('target_status').annotations.openWorldHint).toBeUndefined();
  });
});
