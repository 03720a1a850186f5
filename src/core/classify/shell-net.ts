/**
 * Commands that reach other machines or run another language: HTTP clients (`curl`,
 * `wget`, HTTPie) read through the HTTP method table, remote shells (`ssh`) through the
 * shell classifier, database clients (`psql -c`, `mysql -e`, `sqlite3 db '…'`) through the
 * SQL classifier, and file transfer (`scp`, `rsync`). All of them reach an open world
 * except the local database clients.
 */
import { actionEffect } from './action.js';
import { ADDITIVE, CONSERVATIVE, DESTRUCTIVE_IDEMPOTENT, READ } from './hints.js';
import type { CommandArgs, CommandHandler, Outcome } from './shell-args.js';
import {
  effect,
  firstPositional,
  hasOption,
  isHarmlessPath,
  nameSet,
  openWorld,
  optionValue,
  positionals,
} from './shell-args.js';

const CURL_VALUED = nameSet(`
  -X --request -d --data --data-raw --data-binary --data-urlencode --data-ascii -F --form
  --form-string -H --header -o --output -u --user -A --user-agent -e --referer -b --cookie
  -c --cookie-jar -T --upload-file --json -x --proxy -m --max-time --connect-timeout -w
  --write-out -K --config -r --range --retry -E --cert --key --cacert --resolve
  --output-dir -D --dump-header --url -U --proxy-user -z --time-cond
`);
const CURL_DATA = [
  '--data',
  '--data-raw',
  '--data-binary',
  '--data-urlencode',
  '--data-ascii',
  '--form',
  '--form-string',
  '--json',
];
const HTTP_METHOD_WORD = /^(?:GET|HEAD|OPTIONS|POST|PUT|PATCH|DELETE|TRACE|CONNECT)$/i;
const HTTPIE_DATA = /^[^=:@]+(?::=|==|=|@|:=@)/;
/** `host:path` or `user@host:path`, as scp and rsync write a remote side. */
const REMOTE_PATH = /^[^/-][^/]*:/;
const WHITESPACE = /\s/;
const SSH_VALUED = nameSet('-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B');
const SQLITE_READ = nameSet(
  '.tables .schema .dump .indexes .indices .headers .mode .databases .show .help .quit .exit .width .fullschema .dbinfo .timer',
);

function curlHandler(command: CommandArgs): readonly Outcome[] {
  const texts = command.texts;
  const url = optionValue(texts, ['--url']) ?? positionals(texts, CURL_VALUED)[0] ?? '';
  const explicit = optionValue(texts, ['--request'], 'X');
  let method = explicit ?? 'GET';
  if (explicit === undefined) {
    if (hasOption(texts, ['--upload-file'], 'T')) method = 'PUT';
    else if (hasOption(texts, CURL_DATA, 'dF')) method = 'POST';
    else if (hasOption(texts, ['--head'], 'I')) method = 'HEAD';
  }
  const outcomes: Outcome[] = [{ type: 'http', method, url }];
  const output = optionValue(texts, ['--output'], 'o');
  const written =
    (output !== undefined && !isHarmlessPath(output)) ||
    hasOption(texts, ['--remote-name', '--remote-name-all', '--cookie-jar', '--dump-header'], 'Oc');
  if (written)
    outcomes.push(effect(DESTRUCTIVE_IDEMPOTENT, 'writes the response or cookies to a file'));
  return outcomes;
}

function wgetHandler(command: CommandArgs): readonly Outcome[] {
  const texts = command.texts;
  const url =
    positionals(texts, nameSet('-O -o -a -P -e -t -T -U --header --output-document'))[0] ?? '';
  const posts = hasOption(texts, ['--post-data', '--post-file']);
  const method = optionValue(texts, ['--method']) ?? (posts ? 'POST' : 'GET');
  const outcomes: Outcome[] = [{ type: 'http', method, url }];
  const document = optionValue(texts, ['--output-document'], 'O');
  if (document !== undefined) {
    if (!isHarmlessPath(document))
      outcomes.push(effect(DESTRUCTIVE_IDEMPOTENT, `overwrites \`${document}\``));
  } else if (!hasOption(texts, ['--spider', '--delete-after'])) {
    outcomes.push(effect(ADDITIVE, 'saves what it downloads to new files'));
  }
  return outcomes;
}

function httpieHandler(command: CommandArgs): readonly Outcome[] {
  const words = positionals(
    command.texts,
    nameSet('-a --auth -o --output --session --verify --cert'),
  );
  const explicit = words[0] !== undefined && HTTP_METHOD_WORD.test(words[0]);
  const url = (explicit ? words[1] : words[0]) ?? '';
  const items = words.slice(explicit ? 2 : 1);
  const method = explicit
    ? (words[0] as string)
    : items.some((item) => HTTPIE_DATA.test(item) && !item.includes('=='))
      ? 'POST'
      : 'GET';
  const outcomes: Outcome[] = [{ type: 'http', method, url }];
  if (hasOption(command.texts, ['--download', '--output'], 'do')) {
    outcomes.push(effect(DESTRUCTIVE_IDEMPOTENT, 'writes the response to a file'));
  }
  return outcomes;
}

function sshHandler(command: CommandArgs): Outcome {
  const start = firstPositional(command.texts, SSH_VALUED);
  const remote = command.texts.slice(start + 1);
  if (remote.length === 0)
    return effect(openWorld(CONSERVATIVE), 'opens an interactive remote shell');
  return {
    type: 'script',
    script: remote.join(' '),
    via: `ssh ${command.texts[start] ?? ''}`,
    openWorld: true,
  };
}

function transferHandler(command: CommandArgs): Outcome {
  const texts = command.texts;
  const remote = texts.some((text) => REMOTE_PATH.test(text));
  const hints = remote ? openWorld(DESTRUCTIVE_IDEMPOTENT) : DESTRUCTIVE_IDEMPOTENT;
  if (command.name === 'rsync' && hasOption(texts, ['--dry-run', '--list-only'], 'n')) {
    return effect(remote ? openWorld(READ) : READ, 'only lists what it would transfer');
  }
  const deletes = command.name === 'rsync' && texts.some((text) => text.startsWith('--delete'));
  return effect(
    hints,
    deletes
      ? 'copies files, deleting extra ones at the destination'
      : 'copies files, overwriting existing ones at the destination',
  );
}

function psqlHandler(command: CommandArgs): readonly Outcome[] {
  const texts = command.texts;
  const outcomes: Outcome[] = [];
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i] as string;
    if (text === '-c' || text === '--command')
      outcomes.push({ type: 'sql', sql: texts[i + 1] ?? '' });
    else if (text.startsWith('--command=')) outcomes.push({ type: 'sql', sql: text.slice(10) });
    else if (text.startsWith('-c') && text.length > 2)
      outcomes.push({ type: 'sql', sql: text.slice(2) });
  }
  if (outcomes.length > 0) return outcomes;
  if (hasOption(texts, ['--list', '--version', '--help'], 'lV'))
    return [effect(READ, 'only lists databases or prints its version')];
  return [effect(CONSERVATIVE, 'runs SQL from a file or its input, which hintgate cannot see')];
}

function mysqlHandler(command: CommandArgs): Outcome {
  const sql = optionValue(command.texts, ['--execute'], 'e');
  if (sql !== undefined) return { type: 'sql', sql };
  if (hasOption(command.texts, ['--version', '--help'], 'V'))
    return effect(READ, 'only prints its version');
  return effect(CONSERVATIVE, 'runs SQL from its input, which hintgate cannot see');
}

function sqliteHandler(command: CommandArgs): Outcome {
  const [, sql] = positionals(command.texts, nameSet('-cmd -separator -newline -nullvalue'));
  if (sql === undefined)
    return effect(CONSERVATIVE, 'runs SQL from its input, which hintgate cannot see');
  if (sql.startsWith('.')) {
    const dot = sql.split(WHITESPACE)[0] ?? sql;
    return SQLITE_READ.has(dot)
      ? effect(READ, `only runs the read-only command \`${dot}\``)
      : effect(CONSERVATIVE, `runs the command \`${dot}\`, which may write or run programs`);
  }
  return { type: 'sql', sql };
}

function dumpHandler(command: CommandArgs): Outcome {
  const file = optionValue(
    command.texts,
    ['--file', '--result-file'],
    command.name === 'pg_dump' ? 'f' : 'r',
  );
  return file !== undefined && !isHarmlessPath(file)
    ? effect(DESTRUCTIVE_IDEMPOTENT, `writes a dump to \`${file}\``)
    : effect(READ, 'only dumps a database to its output');
}

function redisHandler(command: CommandArgs): Outcome {
  const word = positionals(command.texts, nameSet('-h -p -a -n -u --user --pass'))[0];
  const found = word === undefined ? undefined : actionEffect(word.toLowerCase());
  if (word === undefined)
    return effect(CONSERVATIVE, 'runs commands from its input, which hintgate cannot see');
  return found === undefined
    ? effect(CONSERVATIVE, `runs the command \`${word}\`, which hintgate does not know`)
    : effect(found.hints, `runs \`${word}\`: \`${found.verb}\` ${found.phrase}`);
}

/** Network, remote and database clients, by name. */
export const NET_COMMANDS: ReadonlyMap<string, CommandHandler> = new Map<string, CommandHandler>([
  ['curl', curlHandler],
  ['wget', wgetHandler],
  ['http', httpieHandler],
  ['https', httpieHandler],
  ['xh', httpieHandler],
  ['ssh', sshHandler],
  ['scp', transferHandler],
  ['rsync', transferHandler],
  ['sftp', () => effect(openWorld(CONSERVATIVE), 'opens an interactive file transfer')],
  ['psql', psqlHandler],
  ['mysql', mysqlHandler],
  ['mariadb', mysqlHandler],
  ['sqlite3', sqliteHandler],
  ['pg_dump', dumpHandler],
  ['mysqldump', dumpHandler],
  ['redis-cli', redisHandler],
]);
