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

  it('reads a URL a tool stores, calls back or pages with as no reach', () => {
    const url = { type: 'object', properties: { url: { type: 'string' } } };
    // Linear's createWebhook and addAttachment store the URL they are given.
    expect(
      openWorld('linear_createWebhook', 'Create a webhook.', url).annotations.openWorldHint,
    ).toBeUndefined();
    expect(
      openWorld('linear_addAttachment', 'Add an attachment.', url).annotations.openWorldHint,
    ).toBeUndefined();
    // Firecrawl's scrape reaches it.
    expect(openWorld('firecrawl_scrape', 'Scrape a page.', url).annotations.openWorldHint).toBe(
      true,
    );
    const next = { type: 'object', properties: { nextUrl: { type: 'string' } } };
    expect(
      openWorld('bugsnag_list_releases', 'List releases.', next).annotations.openWorldHint,
    ).toBeUndefined();
  });

  it.each([
    // A service's own things, not the web: Azure's web apps, Cloudinary's public IDs,
    // DigitalOcean's container registry, Postman's external links.
    ['appservice_webapp_get', 'Retrieves details about Azure App Service web apps.'],
    ['list-images', 'Retrieves image assets. Filter by public ID.'],
    ['docr-get', 'Get a container registry by name.'],
    ['getTeamResources', 'Get pinned documents or external links.'],
    ['db-cluster-start-online-migration', 'Start an online migration.'],
  ])('keeps the default for %s: its words name the service’s own things', (name, text) => {
    expect(openWorld(name, text).annotations.openWorldHint).toBeUndefined();
  });

  it('reads a path argument as saying nothing about the world', () => {
    // Bitbucket's bb_get takes an API path, GitLab's get_file_blame a path in a remote repo.
    const path = { type: 'object', properties: { path: { type: 'string' } } };
    expect(
      openWorld('bb_get', 'Read any Bitbucket data.', path).annotations.openWorldHint,
    ).toBeUndefined();
    const filePath = { type: 'object', properties: { file_path: { type: 'string' } } };
    expect(
      openWorld('get_file_blame', 'Get git blame.', filePath).annotations.openWorldHint,
    ).toBeUndefined();
  });

  it('leaves the hint unset for a tool nothing is known about', () => {
    expect(openWorld('target_status').annotations.openWorldHint).toBeUndefined();
  });
});

describe('words that are objects, not verbs', () => {
  it.each([
    // After a preposition a word is an object or complement.
    ['linear_markNotificationAsRead', 'mark'],
    ['qtm4j_link_requirements_to_test_case', 'link'],
    ['replyToComment', 'reply'],
    ['get_release_by_tag', 'get'],
  ])('%s: the verb is "%s"', (name, word) => {
    expect(verbOf(name)?.word).toBe(word);
  });

  it('never reads "mark as read" as a read', () => {
    const { annotations } = inferAnnotations({
      name: 'linear_markAllNotificationsAsRead',
      description: 'Mark all notifications as read',
    });
    expect(annotations.readOnlyHint).toBe(false);
  });
});

describe('verbs read with their objects', () => {
  it.each([
    // Resolving or converting a name, ID or address looks it up.
    ['resolve-library-id', 'lookup-object', 'read'],
    ['pubmed_convert_ids', 'lookup-object', 'read'],
    ['resolve_thread', 'verb', 'toggle'],
    // Flushing or purging a cache loses no data (DigitalOcean, Cloudflare's purge_cache).
    ['spaces-cdn-flush-cache', 'ephemeral-reset', 'toggle'],
    ['purge_cache', 'ephemeral-reset', 'toggle'],
    ['purge_queue', 'verb', 'destructive'],
    // Starting a pipeline, task, migration or execution adds a run; starting a VM does not.
    ['tekton_pipeline_start', 'starts-job', 'additive'],
    ['db-cluster-start-online-migration', 'starts-job', 'additive'],
    ['qtm4j_start_new_execution', 'starts-job', 'additive'],
    ['start_vm', 'verb', 'toggle'],
    // Running a test, suite, session or pod the service defines adds a run of it.
    ['swagger_run_suite', 'starts-job', 'additive'],
    ['reflect_execute_suite', 'starts-job', 'additive'],
    ['runBrowserLiveSession', 'starts-job', 'additive'],
    ['pods_run', 'starts-job', 'additive'],
    ['contract-testing_execute_webhook', 'starts-job', 'additive'],
    // A pipeline or workflow is automation that may do anything; `exec` runs a command.
    ['run_pipeline', 'verb', 'exec'],
    ['rerun_workflow', 'verb', 'exec'],
    ['pods_exec', 'verb', 'exec'],
    ['exec_in_pod', 'verb', 'exec'],
    // Running a scan, audit or diagnostic only reads.
    ['runPercyScan', 'read-object', 'read'],
    ['runAccessibilityAudit', 'read-object', 'read'],
  ])('%s: %s, %s', (name, rule, kind) => {
    expect(verbOf(name)).toMatchObject({ rule, kind });
  });
});

describe('verbs the lexicon knows', () => {
  it.each([
    // Generating returns what it generates: a chart, a link, a command, a diagram.
    ['generate_bar_chart', 'read'],
    ['generate_deeplink', 'read'],
    ['hubspot-generate-feedback-link', 'read'],
    ['linear_generateOAuthAuthorizationUrl', 'read'],
    ['extension_cli_generate', 'read'],
    // Diagnosing, recognizing and ranking compute an answer.
    ['vm_troubleshoot', 'read'],
    ['appservice_webapp_diagnostic_diagnose', 'read'],
    ['speech_stt_recognize', 'read'],
    ['rerank-documents', 'read'],
    // Linking attaches one thing to another; initializing creates.
    ['qmetry_link_test_cases_to_test_suite', 'additive'],
    ['git_init', 'additive'],
    // `un` before a known verb undoes it.
    ['unapprove_merge_request', 'toggle'],
    // Publishing is undone by unpublishing; resizing sets a size.
    ['publishDocumentation', 'toggle'],
    ['swagger_publish_portal_product', 'toggle'],
    ['resize-droplet', 'update'],
    ['volume-resize', 'update'],
  ])('%s: %s', (name, kind) => {
    expect(verbOf(name)?.kind).toBe(kind);
  });
});

describe('detachments', () => {
  it.each([
    ['linear_removeUserFromTeam', true],
    ['contract-testing_admin_remove_user_from_team', true],
    ['delete_records_from_table', false],
    ['linear_removeProjectMember', true],
    ['linear_removeIssueLabel', true],
    ['delete_repository', false],
    ['compute_vm_delete', false],
  ])('%s detaches: %s', (name, detaches) => {
    expect(verbOf(name)?.detaches).toBe(detaches);
  });
});

describe('verbs in the middle of a name, and joined verbs', () => {
  it.each([
    // After a prefix, the first verb acts on the words after it, even ones that could be verbs.
    ['genai-simulation-get-scenario-set', 'get', 'read'],
    ['linear_createProjectUpdate', 'create', 'additive'],
    ['appconfig_kv_lock_set', 'lock', 'toggle'],
    // Safety first still: a destructive verb ending the name wins.
    ['repo_branch_merge_delete', 'delete', 'destructive'],
    // After a number a word is a noun.
    ['marketplace-1-click-list', 'list', 'read'],
    // "eval" in front is a noun (an evaluation): the verb follows it.
    ['genai-model-eval-get-preset', 'get', 'read'],
  ])('%s: the verb is "%s" (%s)', (name, word, kind) => {
    expect(verbOf(name)).toMatchObject({ word, kind });
  });

  it.each([
    ['resources_create_or_update'],
    ['functions-create-or-update-action'],
    ['swagger_create_or_update_api'],
    ['loadtesting_testrun_createorupdate'],
  ])('reads %s as one upsert: the worse verb, idempotent', (name) => {
    const { annotations, reasons } = inferAnnotations({ name });
    expect(annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(reasons['destructiveHint']?.text).toMatch(/create ?or ?update/);
  });

  it('reads get-or-create as an idempotent creation', () => {
    expect(inferAnnotations({ name: 'get_or_create_user' }).annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
  });
});

describe('verbs whose effect depends on what they make', () => {
  it('reads generating as a read unless the description says it stores what it makes', () => {
    // AntV's charts are returned; Postman's collection and Cloudinary's archive are stored.
    const chart = { name: 'generate_bar_chart', description: 'Generate a horizontal bar chart.' };
    expect(inferAnnotations(chart).annotations.readOnlyHint).toBe(true);
    const collection = {
      name: 'generateCollection',
      description: 'Creates a collection from the given API specification.',
    };
    expect(inferAnnotations(collection).annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
    const archive = {
      name: 'generate-archive',
      description: 'Creates an archive (ZIP or TGZ file) that contains a set of assets.',
    };
    expect(inferAnnotations(archive).annotations.readOnlyHint).toBe(false);
  });
});

describe('names that end in a store or guidance', () => {
  it('reads "store" behind a noun as a noun: the verb after it acts on the store', () => {
    // OpenAI's hosted `vector_store_search` tool, and the issue's `data_source_query`.
    expect(verbOf('vector_store_search')).toMatchObject({ word: 'search', position: 'fallback' });
    expect(verbOf('data_source_query')).toMatchObject({ word: 'query' });
    const search = inferAnnotations({ name: 'vector_store_search' }).annotations;
    expect(search.readOnlyHint).toBe(true);
    // A memory server's `memory_store`: the description says what storing does.
    const store = inferAnnotations({
      name: 'memory_store',
      description: 'Store a new fact or observation in the knowledge graph.',
    });
    expect(store.annotations.readOnlyHint).toBe(false);
    expect(store.reasons['readOnlyHint']?.part).toBe('description');
  });

  it.each([
    // Canva's dev MCP server: instructions about creating an app or migrating one.
    ['create-canva-app-instructions', 'Instructions for creating a new Canva Apps SDK app.'],
    ['canva-apps-migration-instructions', 'Instructions for using the Canva Apps migrate command.'],
    ['git_wrapup_instructions', 'Returns a Git wrap-up protocol.'],
    ['qql_help', 'Read the QQL reference before writing a query.'],
  ])('reads %s as returning guidance, changing nothing', (name, description) => {
    const { annotations, reasons } = inferAnnotations({ name, description });
    expect(annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(reasons['readOnlyHint']?.rule).toBe('returns-guidance');
  });

  it('keeps a verb whose direct object is the guidance, and a destructive verb', () => {
    expect(inferAnnotations({ name: 'update_docs' }).annotations.readOnlyHint).toBe(false);
    expect(inferAnnotations({ name: 'delete_app_guide' }).annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
  });
});

describe('closed worlds', () => {
  it('reads a knowledge graph as a closed world, the MCP specification’s memory example', () => {
    // @modelcontextprotocol/server-memory
    const { annotations, reasons } = inferAnnotations({
      name: 'create_entities',
      description: 'Create multiple new entities in the knowledge graph',
    });
    expect(annotations.openWorldHint).toBe(false);
    expect(reasons['openWorldHint']?.word).toBe('knowledge graph');
  });
});

describe('closed worlds, only where the description says what the tool is', () => {
  const world = (name: string, description?: string) =>
    inferAnnotations({ name, description }).annotations.openWorldHint;

  it('reads a local word in the first clause as a closed world', () => {
    // @modelcontextprotocol/server-filesystem
    expect(
      world('read_text_file', 'Read the complete contents of a file from the file system as text.'),
    ).toBe(false);
  });

  it.each([
    // kubernetes-mcp-server, n8n-mcp, qase: a local word in a later note about the results
    // or the arguments says nothing about the tool's world.
    [
      'nodes_stats_summary',
      'Get detailed resource usage statistics from a node. Provides metrics including CPU, memory, filesystem, and network usage.',
    ],
    [
      'n8n_audit_instance',
      'Security audit of n8n instance. Combines the audit API (credentials, database, filesystem risks).',
    ],
    [
      'download_attachment',
      'Download an uploaded file from a project (images returned as base64; use local_path to save to disk)',
    ],
  ])('keeps the default for %s: its local word is in a later clause', (name, description) => {
    expect(world(name, description)).toBeUndefined();
  });

  it.each([
    // Bitbucket's bb_clone, Google Drive's insertLocalImage and downloadFile, Kubernetes'
    // port_forward: the machine is one end of a move to or from elsewhere.
    ['bb_clone', 'Clone a Bitbucket repository to your local filesystem using SSH.'],
    ['insertLocalImage', 'Upload a local image file to Google Drive and insert it.'],
    ['downloadFile', 'Download a Google Drive file to a local path.'],
    ['port_forward', 'Forward a local port to a port on a Kubernetes resource.'],
  ])('keeps the default for %s: it moves data between the machine and elsewhere', (name, text) => {
    expect(world(name, text)).toBeUndefined();
  });

  it('reads "local" in a name as a qualifier, not a closed world', () => {
    // Brave's local search finds nearby places on the web; Google Drive's insertLocalImage
    // sends a file from the machine to the service.
    expect(world('brave_local_search', 'Searches for businesses near a location.')).toBe(undefined);
    expect(world('insertLocalImage', 'Insert an image into a document.')).toBeUndefined();
    expect(world('localhost_status', 'Status of the server.')).toBe(false);
  });

  it('reads a web word after a verb that stores it as the thing stored', () => {
    // SmartBear's Zephyr tools store a web link on a test case; Playwright's browser
    // tools drive a browser, whatever their verb.
    expect(
      world('zephyr_create_test_case_web_link', 'Create a new Web Link for a Test Case.'),
    ).toBe(undefined);
    expect(world('browser_file_upload', 'Upload one or multiple files')).toBe(true);
    expect(world('search_web', 'Search the web.')).toBe(true);
  });
});

describe('idempotence of verbs that put a thing into a given state or place', () => {
  it.each([
    // Todoist's project-move, Linear's transferIssue and convertIssueToSubtask,
    // DigitalOcean's change-kernel-droplet: a second call finds the thing there already.
    ['project-move', 'Move a project between personal and workspace contexts.'],
    ['linear_transferIssue', 'Transfer an issue to another team'],
    ['linear_convertIssueToSubtask', 'Convert an issue to a subtask'],
    ['change-kernel-droplet', "Change a droplet's kernel"],
  ])('%s is idempotent', (name, description) => {
    expect(inferAnnotations({ name, description }).annotations).toMatchObject({
      readOnlyHint: false,
      idempotentHint: true,
    });
  });

  it('reads cleanup as destructive', () => {
    // mcp-server-kubernetes: "Cleanup all managed resources".
    expect(
      inferAnnotations({ name: 'cleanup', description: 'Cleanup all managed resources' })
        .annotations,
    ).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });
});
