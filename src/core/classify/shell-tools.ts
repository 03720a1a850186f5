/**
 * What developer and operations tools do, by subcommand: containers (`docker`, `podman`,
 * `docker compose`), Kubernetes (`kubectl`, `helm`), `terraform`, package managers, service
 * managers, the GitHub CLI, cloud CLIs (read by the verb of their operation, as action
 * values are), language toolchains. Anything not listed is conservative.
 */
import { actionEffect } from './action.js';
import type { CallHints } from './hints.js';
import {
  ADDITIVE,
  CONSERVATIVE,
  DESTRUCTIVE,
  DESTRUCTIVE_IDEMPOTENT,
  GENTLE_IDEMPOTENT,
  READ,
} from './hints.js';
import type { CommandArgs, CommandHandler, Outcome } from './shell-args.js';
import {
  effect,
  firstPositional,
  hasOption,
  nameSet,
  openWorld,
  positionals,
} from './shell-args.js';

/** Verdicts by subcommand word, each table built once. */
type VerbTable = ReadonlyMap<string, Outcome>;

function verbs(groups: ReadonlyArray<readonly [CallHints, string, string]>): VerbTable {
  const table = new Map<string, Outcome>();
  for (const [hints, phrase, names] of groups) {
    for (const name of nameSet(names)) table.set(name, effect(hints, phrase));
  }
  return table;
}

const CONTAINER_VERBS = verbs([
  [
    READ,
    'only lists or inspects',
    'ps ls list images inspect logs top port diff history stats events version info df show config',
  ],
  [openWorld(READ), 'only searches a registry', 'search'],
  [
    DESTRUCTIVE_IDEMPOTENT,
    'removes containers, images, volumes or networks',
    'rm rmi remove prune kill down delete',
  ],
  [ADDITIVE, 'creates or builds something new', 'create build tag commit load import save up'],
  [openWorld(ADDITIVE), 'pulls from or pushes to a registry', 'pull push login'],
  [GENTLE_IDEMPOTENT, 'starts, stops or pauses containers', 'start stop pause unpause'],
  [DESTRUCTIVE_IDEMPOTENT, 'restarts containers or copies files into them', 'restart cp'],
  [CONSERVATIVE, "runs a container's program", 'run'],
]);
const CONTAINER_OBJECTS = nameSet(
  'container image volume network system builder context plugin secret service stack node config buildx manifest trust',
);
const CONTAINER_VALUED = nameSet(
  '--context -H --host --config -c --log-level -f --file -p --project-name --env-file --profile',
);
const EXEC_VALUED = nameSet(
  '-u --user -w --workdir -e --env --env-file --detach-keys -c --container --index',
);

const KUBE_VERBS = verbs([
  [
    READ,
    'only reads cluster state',
    'get describe logs top explain version api-resources api-versions cluster-info diff events wait auth',
  ],
  [DESTRUCTIVE_IDEMPOTENT, 'deletes or evicts resources', 'delete drain'],
  [GENTLE_IDEMPOTENT, 'marks nodes (un)schedulable', 'cordon uncordon'],
  [
    DESTRUCTIVE_IDEMPOTENT,
    'changes existing resources',
    'apply replace patch set label annotate scale autoscale taint',
  ],
  [ADDITIVE, 'creates resources', 'create run expose'],
  [DESTRUCTIVE_IDEMPOTENT, 'copies files into a container', 'cp'],
  [
    CONSERVATIVE,
    'edits, attaches to or forwards into the cluster interactively',
    'edit attach port-forward proxy debug',
  ],
]);
const KUBE_VALUED = nameSet(
  '-n --namespace --context --kubeconfig --cluster --user --token -s --server',
);
const KUBE_SUB = new Map<string, VerbTable>([
  [
    'rollout',
    verbs([
      [READ, 'only shows rollout state', 'status history'],
      [DESTRUCTIVE, 'undoes or restarts a rollout', 'undo restart'],
      [GENTLE_IDEMPOTENT, 'pauses or resumes a rollout', 'pause resume'],
    ]),
  ],
  [
    'config',
    verbs([
      [READ, 'only reads kubeconfig', 'view get-contexts current-context get-clusters get-users'],
      [
        DESTRUCTIVE_IDEMPOTENT,
        'changes kubeconfig',
        'use-context use set-context set set-cluster set-credentials delete-context unset rename-context',
      ],
    ]),
  ],
]);

const HELM_VERBS = verbs([
  [
    READ,
    'only reads releases or charts',
    'list ls status get history show search template lint version env dependency',
  ],
  [ADDITIVE, 'installs a release', 'install'],
  [DESTRUCTIVE, 'upgrades or rolls back a release', 'upgrade rollback'],
  [DESTRUCTIVE_IDEMPOTENT, 'uninstalls a release', 'uninstall delete'],
  [GENTLE_IDEMPOTENT, 'updates chart repositories', 'repo pull package'],
]);

const TERRAFORM_VERBS = verbs([
  [READ, 'only reads or plans', 'show validate output version providers graph console'],
  [openWorld(READ), 'only plans changes', 'plan'],
  [GENTLE_IDEMPOTENT, 'initializes a working directory', 'init get'],
  [
    openWorld(DESTRUCTIVE),
    'changes or destroys infrastructure',
    'apply destroy import refresh taint untaint force-unlock',
  ],
]);
const TERRAFORM_SUB = new Map<string, VerbTable>([
  [
    'state',
    verbs([
      [READ, 'only reads state', 'list show pull'],
      [DESTRUCTIVE, 'changes state', 'rm mv push replace-provider'],
    ]),
  ],
  [
    'workspace',
    verbs([
      [READ, 'only lists workspaces', 'list show'],
      [ADDITIVE, 'creates a workspace', 'new'],
      [GENTLE_IDEMPOTENT, 'selects a workspace', 'select'],
      [DESTRUCTIVE_IDEMPOTENT, 'deletes a workspace', 'delete'],
    ]),
  ],
]);

const PACKAGE_READ = nameSet(`
  ls list view info show outdated search whoami ping help explain why root prefix bin doctor
  fund query freeze check index policy madison depends rdepends showpkg stats deps leaves
  config repolist provides whatprovides check-update --version -v -V --help -h
`);
const PACKAGE_REFRESH = nameSet('update refresh makecache');
const SYSTEMCTL_VERBS = verbs([
  [
    READ,
    'only shows service state',
    'status show list-units list-unit-files list-timers list-sockets list-dependencies is-active is-enabled is-failed cat get-default show-environment --version',
  ],
  [
    GENTLE_IDEMPOTENT,
    'starts, enables or reloads services',
    'start enable unmask daemon-reload reload',
  ],
  [
    DESTRUCTIVE_IDEMPOTENT,
    'stops, restarts, disables or kills services',
    'stop restart disable mask kill reset-failed isolate try-restart reload-or-restart poweroff reboot halt',
  ],
]);
const GH_READ = nameSet('list view status diff checks search watch browse');
const GH_ADD = nameSet('create comment fork clone review');
const GH_CHANGE = nameSet(
  'delete close merge edit lock unlock transfer archive reopen rename ready cancel rerun',
);
const TOOLCHAIN_READ = nameSet(
  'version env list doc vet tree metadata search locate-project pkgid --version -V -v --help -h',
);
const CLOUD_VALUED = nameSet(
  '--profile --region --output --endpoint-url --query --project --subscription --format --account --configuration',
);

function bySubcommand(
  table: VerbTable,
  subs: ReadonlyMap<string, VerbTable>,
  valued: ReadonlySet<string>,
  tool: string,
): CommandHandler {
  return (command) => {
    const words = positionals(command.texts, valued);
    const sub = words[0];
    if (sub === undefined) return effect(READ, 'only prints help');
    const nested = subs.get(sub);
    const found = nested !== undefined ? nested.get(words[1] ?? '') : table.get(sub);
    return (
      found ??
      effect(
        CONSERVATIVE,
        `runs \`${tool} ${sub}${nested === undefined ? '' : ` ${words[1] ?? ''}`}\`, which is not a command hintgate knows`,
      )
    );
  };
}

function containerHandler(command: CommandArgs): Outcome {
  const texts = command.texts;
  const index = firstPositional(texts, CONTAINER_VALUED);
  let sub = texts[index];
  let at = index;
  if (sub === 'compose' || command.name === 'docker-compose') {
    at =
      command.name === 'docker-compose'
        ? index
        : firstPositional(texts.slice(index + 1), CONTAINER_VALUED) + index + 1;
    sub = texts[at];
  } else if (sub !== undefined && CONTAINER_OBJECTS.has(sub)) {
    at = firstPositional(texts.slice(index + 1), CONTAINER_VALUED) + index + 1;
    sub = texts[at];
  }
  if (sub === undefined) return effect(READ, 'only prints help');
  if (sub === 'exec') {
    const rest = texts.slice(at + 1);
    const target = firstPositional(rest, EXEC_VALUED);
    return { type: 'argv', argv: command.args.slice(at + 2 + target), via: `${command.name} exec` };
  }
  return (
    CONTAINER_VERBS.get(sub) ??
    effect(CONSERVATIVE, `runs \`${command.name} ${sub}\`, which is not a command hintgate knows`)
  );
}

function kubectlHandler(command: CommandArgs): Outcome {
  const texts = command.texts;
  const sub = texts[firstPositional(texts, KUBE_VALUED)];
  if (sub === 'exec') {
    const dash = texts.indexOf('--');
    return dash < 0
      ? effect(CONSERVATIVE, 'runs a command in a container')
      : { type: 'argv', argv: command.args.slice(dash + 1), via: `${command.name} exec` };
  }
  return bySubcommand(KUBE_VERBS, KUBE_SUB, KUBE_VALUED, command.name)(command) as Outcome;
}

function packageHandler(command: CommandArgs): Outcome {
  const texts = command.texts;
  if (command.name === 'apt-cache') return effect(READ, 'only queries the package cache');
  if (command.name === 'pacman') {
    return hasOption(texts, ['--query'], 'Q') ||
      (hasOption(texts, [], 'si') && !hasOption(texts, [], 'yu'))
      ? effect(READ, 'only queries packages')
      : effect(openWorld(DESTRUCTIVE), 'installs, upgrades or removes packages');
  }
  const words = positionals(texts, nameSet('-C --prefix -w --workspace --filter --registry'));
  const sub =
    words[0] === 'pip' || (words[0] === 'run' && command.name === 'uv') ? words[1] : words[0];
  if (
    sub === undefined ||
    PACKAGE_READ.has(sub) ||
    hasOption(texts, ['--version', '--help'], command.name === 'npm' ? 'v' : 'V')
  ) {
    return sub === 'version' && words.length > 1
      ? effect(DESTRUCTIVE, 'bumps the package version')
      : effect(READ, 'only reads package information');
  }
  if (PACKAGE_REFRESH.has(sub) && (command.name.startsWith('apt') || command.name === 'brew')) {
    return effect(openWorld(GENTLE_IDEMPOTENT), 'refreshes package lists');
  }
  if (sub === 'audit' && !texts.includes('fix')) return effect(READ, 'only audits dependencies');
  return effect(
    openWorld(CONSERVATIVE),
    `runs \`${command.name} ${sub}\`, which installs packages or runs their scripts`,
  );
}

function ghHandler(command: CommandArgs): Outcome {
  const words = positionals(
    command.texts,
    nameSet('-R --repo -X --method -f -F --field --raw-field -H --header --jq -q'),
  );
  const [area, action] = words;
  if (area === 'api') {
    const method = command.texts.find(
      (_, i) => command.texts[i - 1] === '-X' || command.texts[i - 1] === '--method',
    );
    const fields = hasOption(command.texts, ['--field', '--raw-field', '--input'], 'fF');
    return { type: 'http', method: method ?? (fields ? 'POST' : 'GET'), url: action ?? '' };
  }
  if (
    area === undefined ||
    action === undefined ||
    GH_READ.has(action) ||
    area === 'search' ||
    area === 'browse' ||
    area === 'status'
  ) {
    return effect(openWorld(READ), 'only reads from GitHub');
  }
  if (GH_ADD.has(action)) return effect(openWorld(ADDITIVE), 'creates something on GitHub');
  if (GH_CHANGE.has(action))
    return effect(openWorld(DESTRUCTIVE), 'changes or deletes something on GitHub');
  return effect(
    openWorld(CONSERVATIVE),
    `runs \`gh ${area} ${action}\`, which is not a command hintgate knows`,
  );
}

/** Cloud CLIs: the first word after the service that is a verb (`describe-instances`, `delete`). */
function cloudHandler(command: CommandArgs): Outcome {
  const words = positionals(command.texts, CLOUD_VALUED);
  for (const word of words.slice(1)) {
    const found = actionEffect(word);
    if (found !== undefined)
      return effect(openWorld(found.hints), `runs \`${word}\`: \`${found.verb}\` ${found.phrase}`);
  }
  return effect(
    openWorld(CONSERVATIVE),
    `runs \`${command.name} ${words.join(' ')}\`, which has no verb hintgate knows`,
  );
}

function toolchainHandler(command: CommandArgs): Outcome {
  const texts = command.texts;
  const only = texts.length === 1 ? texts[0] : undefined;
  const sub = positionals(texts, nameSet('-C'))[0];
  const reads =
    (only !== undefined && ['--version', '-V', '-v', '--help', '-h', 'version'].includes(only)) ||
    ((command.name === 'go' || command.name === 'cargo') &&
      sub !== undefined &&
      TOOLCHAIN_READ.has(sub) &&
      !hasOption(texts, [], 'w'));
  return reads
    ? effect(READ, 'only prints information')
    : effect(CONSERVATIVE, 'runs a program whose effects hintgate cannot see');
}

function register(
  table: Map<string, CommandHandler>,
  names: string,
  handler: CommandHandler,
): void {
  for (const name of nameSet(names)) table.set(name, handler);
}

/** Developer and operations tools, by name. */
export const TOOL_COMMANDS: ReadonlyMap<string, CommandHandler> = (() => {
  const table = new Map<string, CommandHandler>();
  register(table, 'docker podman nerdctl docker-compose', containerHandler);
  register(table, 'kubectl oc', kubectlHandler);
  register(
    table,
    'helm',
    bySubcommand(HELM_VERBS, new Map(), nameSet('-n --namespace --kube-context'), 'helm'),
  );
  register(
    table,
    'terraform tofu',
    bySubcommand(TERRAFORM_VERBS, TERRAFORM_SUB, nameSet('-chdir'), 'terraform'),
  );
  register(
    table,
    'npm pnpm yarn bun pip pip3 uv poetry pipx apt apt-get apt-cache yum dnf zypper pacman apk brew snap port flatpak gem',
    packageHandler,
  );
  register(
    table,
    'systemctl',
    bySubcommand(SYSTEMCTL_VERBS, new Map(), nameSet('-H --host -M --machine'), 'systemctl'),
  );
  register(table, 'service', (c) =>
    c.texts[1] === 'status'
      ? effect(READ, 'only shows a service')
      : effect(DESTRUCTIVE_IDEMPOTENT, 'starts, stops or restarts a service'),
  );
  register(table, 'journalctl', (c) =>
    c.texts.some((t) => t.startsWith('--vacuum') || t === '--rotate' || t === '--flush')
      ? effect(DESTRUCTIVE_IDEMPOTENT, 'deletes or rotates logs')
      : effect(READ, 'only reads logs'),
  );
  register(table, 'gh', ghHandler);
  register(table, 'aws gcloud az doctl oci', cloudHandler);
  register(
    table,
    'python python2 python3 node nodejs ruby perl php deno lua luajit Rscript java go cargo rustc gcc cc clang gradle mvn dotnet swift npx pnpx bunx tsx ts-node',
    toolchainHandler,
  );
  return table;
})();
