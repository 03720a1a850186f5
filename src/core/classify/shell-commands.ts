/**
 * What the everyday Unix commands do: file tools, text tools, process and system
 * administration, archives, and the wrappers that run another command (`sudo`, `env`,
 * `xargs`, `find -exec`, `sh -c`). Tables are built once, at module load.
 *
 * Decisions: `mv` and `cp` are destructive (they replace an existing target; `cp -n` is
 * not), `chmod`/`chown` are destructive and idempotent (the previous mode is lost; the same
 * mode twice changes nothing), `kill` is destructive (except `kill -l` and `kill -0`),
 * `touch` additive, `mkdir -p` additive and idempotent.
 */
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
  isHarmlessPath,
  nameSet,
  optionValue,
  positionals,
} from './shell-args.js';

function fixed(hints: CallHints, phrase: string): CommandHandler {
  const outcome = effect(hints, phrase);
  return () => outcome;
}

function register(into: Map<string, CommandHandler>, names: string, handler: CommandHandler): void {
  for (const name of nameSet(names)) into.set(name, handler);
}

const NO_VALUES: ReadonlySet<string> = new Set();
const SCRIPT_LANGUAGE = /\b(?:system|getline)\b|\|\s*"|print[f]?\s*[^;]*>\s*"/;
const TAR_APPEND = /^[^-]*[rAu]/;
const SED_WRITES = /(?:^|[;{}\n])\s*[\d,$]*\s*[wWe](?:\s|$)|\/[gpiImM0-9]*[we](?:\s|$|;)/;

/** The rest of the words, from `index`, as a command to run. */
function rest(command: CommandArgs, index: number, via: string): Outcome {
  const argv = command.args.slice(index);
  return argv.length === 0 ? effect(READ, 'runs no command') : { type: 'argv', argv, via };
}

/** Wrappers: `sudo`, `nice`, `timeout`, `xargs`…: skip their options, run the rest. */
function wrapper(valued: string): CommandHandler {
  const options = nameSet(valued);
  return (command) => rest(command, firstPositional(command.texts, options), command.name);
}

function timeoutHandler(command: CommandArgs): Outcome {
  const first = firstPositional(command.texts, nameSet('-s --signal -k --kill-after'));
  return rest(command, first + 1, 'timeout');
}

function envHandler(command: CommandArgs): Outcome {
  if (hasOption(command.texts, ['--split-string'], 'S')) {
    return effect(CONSERVATIVE, 'runs a command line given as one string (`env -S`)');
  }
  let i = firstPositional(command.texts, nameSet('-u --unset -C --chdir'));
  while (i < command.texts.length && (command.texts[i] as string).includes('=')) i++;
  return i >= command.texts.length
    ? effect(READ, 'only prints the environment')
    : rest(command, i, 'env');
}

function shellHandler(command: CommandArgs): Outcome {
  const texts = command.texts;
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i] as string;
    if (!text.startsWith('-') && !text.startsWith('+')) break;
    if (text !== '--' && !text.startsWith('--') && text.slice(1).includes('c')) {
      const script = texts[i + 1];
      if (script === undefined) break;
      return { type: 'script', script, via: `${command.name} -c`, openWorld: false };
    }
  }
  return effect(CONSERVATIVE, `runs a script or its input, which hintgate cannot see`);
}

function findHandler(command: CommandArgs): readonly Outcome[] {
  const texts = command.texts;
  const outcomes: Outcome[] = [];
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i] as string;
    if (text === '-delete')
      outcomes.push(effect(DESTRUCTIVE_IDEMPOTENT, 'deletes the files it finds'));
    if (text === '-fprint' || text === '-fprint0' || text === '-fprintf' || text === '-fls') {
      outcomes.push(effect(DESTRUCTIVE_IDEMPOTENT, `writes a file (\`${text}\`)`));
    }
    if (text === '-exec' || text === '-execdir' || text === '-ok' || text === '-okdir') {
      let end = i + 1;
      while (end < texts.length && texts[end] !== ';' && texts[end] !== '+') end++;
      outcomes.push({ type: 'argv', argv: command.args.slice(i + 1, end), via: `find ${text}` });
      i = end;
    }
  }
  if (outcomes.length === 0) outcomes.push(effect(READ, 'only lists files'));
  return outcomes;
}

function killHandler(command: CommandArgs): Outcome {
  const texts = command.texts;
  if (command.name === 'kill' && (hasOption(texts, ['-l', '-L', '--list']) || texts[0] === '-0')) {
    return effect(READ, 'only lists signals or checks that a process exists');
  }
  return effect(DESTRUCTIVE_IDEMPOTENT, 'ends processes');
}

function sedHandler(command: CommandArgs): Outcome {
  if (hasOption(command.texts, ['--in-place'], 'i')) {
    return effect(DESTRUCTIVE, 'edits files in place (`sed -i`)');
  }
  const script =
    optionValue(command.texts, ['--expression'], 'e') ??
    positionals(command.texts, nameSet('-f --file'))[0];
  if (script !== undefined && SED_WRITES.test(script)) {
    return effect(CONSERVATIVE, 'runs a sed script that writes files or runs commands');
  }
  return effect(READ, 'only prints edited text');
}

function awkHandler(command: CommandArgs): Outcome {
  const program = positionals(
    command.texts,
    nameSet('-f -v -F --file --assign --field-separator'),
  )[0];
  if (
    program === undefined ||
    SCRIPT_LANGUAGE.test(program) ||
    hasOption(command.texts, ['--file'], 'f')
  ) {
    return effect(CONSERVATIVE, 'runs an awk program that may write files or run commands');
  }
  return effect(READ, 'only prints text');
}

function outputOption(
  hints: CallHints,
  phrase: string,
  longs: string[],
  short: string,
): CommandHandler {
  return (command) => {
    const target = optionValue(command.texts, longs, short);
    return target !== undefined && !isHarmlessPath(target)
      ? effect(DESTRUCTIVE_IDEMPOTENT, `writes its output to \`${target}\``)
      : effect(hints, phrase);
  };
}

function teeHandler(command: CommandArgs): Outcome {
  const targets = positionals(command.texts, NO_VALUES).filter((path) => !isHarmlessPath(path));
  if (targets.length === 0) return effect(READ, 'only copies its input to its output');
  return hasOption(command.texts, ['--append'], 'a')
    ? effect(ADDITIVE, `appends to \`${targets.join(' ')}\``)
    : effect(DESTRUCTIVE_IDEMPOTENT, `overwrites \`${targets.join(' ')}\``);
}

function guarded(
  readWhen: (command: CommandArgs) => boolean,
  read: string,
  write: Outcome,
): CommandHandler {
  const reading = effect(READ, read);
  return (command) => (readWhen(command) ? reading : write);
}

function tarHandler(command: CommandArgs): Outcome {
  const first = command.texts[0] ?? '';
  const modes = first.startsWith('-') ? first.slice(1) : first;
  const listing =
    hasOption(command.texts, ['--list'], 't') || (!first.startsWith('-') && modes.includes('t'));
  if (listing) return effect(READ, 'only lists an archive');
  if (hasOption(command.texts, ['--append', '--update'], 'rAu') || TAR_APPEND.test(modes)) {
    return effect(ADDITIVE, 'adds files to an archive');
  }
  return effect(
    DESTRUCTIVE_IDEMPOTENT,
    'creates an archive or extracts files, overwriting existing ones',
  );
}

function compressHandler(command: CommandArgs): Outcome {
  return hasOption(command.texts, ['--stdout', '--to-stdout', '--list', '--test'], 'clt')
    ? effect(READ, 'only writes to its output or tests files')
    : effect(DESTRUCTIVE_IDEMPOTENT, 'replaces files with their compressed or decompressed form');
}

/** The everyday commands, by name. */
export const CORE_COMMANDS: ReadonlyMap<string, CommandHandler> = (() => {
  const table = new Map<string, CommandHandler>();
  register(
    table,
    `ls ll dir vdir cat tac head tail less more grep egrep fgrep zgrep rg ag ack wc pwd echo
     printf true false test [ [[ stat file which whereis type whoami id groups uname uptime ps
     pgrep pidof df du free lsof lsblk lscpu lsusb lspci realpath readlink basename dirname
     tree nl cut tr paste join comm diff cmp md5sum sha1sum sha256sum sha512sum shasum cksum
     b2sum base64 base32 xxd od hexdump strings jq column fold fmt expand unexpand rev seq
     sleep wait yes printenv locale getconf nproc arch tty logname users who w last man info
     apropos whatis jobs dirs cal bc expr factor numfmt look zcat bzcat xzcat zless zmore
     zdiff ldd nm objdump readelf size top htop iostat vmstat netstat ss fc history clear
     tput : dmesg lsmod`,
    fixed(READ, 'only reads or prints'),
  );
  register(
    table,
    `cd pushd popd export unset set alias unalias local declare typeset readonly shift exit
     return read trap ulimit umask shopt hash getopts let`,
    fixed(READ, "only changes the shell's own state"),
  );
  register(
    table,
    'ping traceroute tracepath mtr dig nslookup host whois',
    fixed({ ...READ, openWorldHint: true }, 'only queries the network'),
  );
  register(table, 'rm rmdir unlink shred srm wipe', fixed(DESTRUCTIVE_IDEMPOTENT, 'removes files'));
  register(
    table,
    'chmod chown chgrp chattr setfacl chcon',
    fixed(DESTRUCTIVE_IDEMPOTENT, 'changes permissions or ownership'),
  );
  register(table, 'kill pkill killall skill xkill', killHandler);
  register(
    table,
    'shutdown reboot halt poweroff',
    fixed(DESTRUCTIVE_IDEMPOTENT, 'shuts down or restarts the machine'),
  );
  register(
    table,
    'mkfs mke2fs mkswap wipefs fdisk sfdisk gdisk sgdisk parted',
    guarded(
      (c) => hasOption(c.texts, ['--list'], 'l'),
      'only lists partitions',
      effect(DESTRUCTIVE, 'formats or repartitions a disk'),
    ),
  );
  register(table, 'truncate', fixed(DESTRUCTIVE_IDEMPOTENT, 'truncates files'));
  register(table, 'dd', (c) =>
    c.texts.some((t) => t.startsWith('of='))
      ? effect(DESTRUCTIVE_IDEMPOTENT, 'writes raw data over a file or device')
      : effect(READ, 'only copies data to its output'),
  );
  register(
    table,
    'mv',
    fixed(DESTRUCTIVE_IDEMPOTENT, 'moves files, replacing any existing target'),
  );
  register(table, 'cp', (c) =>
    hasOption(c.texts, ['--no-clobber', '--update=none'], 'n')
      ? effect(GENTLE_IDEMPOTENT, 'copies files without overwriting existing ones')
      : effect(DESTRUCTIVE_IDEMPOTENT, 'copies files, overwriting existing targets'),
  );
  register(table, 'install', fixed(DESTRUCTIVE_IDEMPOTENT, 'copies files over their targets'));
  register(table, 'mkdir', (c) =>
    hasOption(c.texts, ['--parents'], 'p')
      ? effect(GENTLE_IDEMPOTENT, 'creates directories unless they exist')
      : effect(ADDITIVE, 'creates directories'),
  );
  register(table, 'touch mktemp', fixed(ADDITIVE, 'creates files or updates their times'));
  register(table, 'useradd groupadd adduser addgroup', fixed(ADDITIVE, 'creates users or groups'));
  register(
    table,
    'userdel groupdel deluser delgroup',
    fixed(DESTRUCTIVE_IDEMPOTENT, 'deletes users or groups'),
  );
  register(
    table,
    'usermod groupmod passwd chpasswd chsh',
    fixed(DESTRUCTIVE_IDEMPOTENT, 'changes users or passwords'),
  );
  register(
    table,
    'date',
    guarded(
      (c) => !hasOption(c.texts, ['--set'], 's'),
      'only prints the date',
      effect(DESTRUCTIVE_IDEMPOTENT, 'sets the system clock'),
    ),
  );
  register(
    table,
    'hostname',
    guarded(
      (c) => positionals(c.texts, NO_VALUES).length === 0,
      'only prints the host name',
      effect(DESTRUCTIVE_IDEMPOTENT, 'renames the host'),
    ),
  );
  register(
    table,
    'mount umount',
    guarded(
      (c) => c.texts.length === 0 && c.name === 'mount',
      'only lists mounts',
      effect(DESTRUCTIVE_IDEMPOTENT, 'mounts or unmounts file systems'),
    ),
  );
  register(table, 'sort', outputOption(READ, 'only prints sorted text', ['--output'], 'o'));
  register(table, 'uniq', (c) => {
    const files = positionals(c.texts, nameSet('-f -s -w'));
    return files.length > 1 && !isHarmlessPath(files[1] as string)
      ? effect(DESTRUCTIVE_IDEMPOTENT, `writes \`${files[1] as string}\``)
      : effect(READ, 'only prints text');
  });
  register(table, 'tee', teeHandler);
  register(table, 'sed gsed', sedHandler);
  register(table, 'awk gawk mawk nawk', awkHandler);
  register(table, 'find', findHandler);
  register(table, 'tar bsdtar', tarHandler);
  register(table, 'gzip gunzip bzip2 bunzip2 xz unxz zstd unzstd lz4', compressHandler);
  register(table, 'zip 7z', fixed(DESTRUCTIVE_IDEMPOTENT, 'writes an archive'));
  register(
    table,
    'unzip',
    guarded(
      (c) => hasOption(c.texts, [], 'ltvZp'),
      'only lists or tests an archive',
      effect(DESTRUCTIVE_IDEMPOTENT, 'extracts files, overwriting existing ones'),
    ),
  );
  register(
    table,
    'patch',
    guarded(
      (c) => hasOption(c.texts, ['--dry-run']),
      'only checks a patch',
      effect(DESTRUCTIVE, 'patches files'),
    ),
  );
  register(table, 'crontab', (c) =>
    hasOption(c.texts, [], 'l')
      ? effect(READ, 'only lists the crontab')
      : effect(DESTRUCTIVE_IDEMPOTENT, 'replaces or removes the crontab'),
  );
  register(
    table,
    'sudo doas',
    wrapper('-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt'),
  );
  register(table, 'nice', wrapper('-n --adjustment'));
  register(table, 'ionice', wrapper('-c -n -p -P -u --class --classdata'));
  register(table, 'nohup setsid unbuffer caffeinate builtin nocorrect noglob exec', wrapper('-a'));
  register(table, 'command', (c) =>
    hasOption(c.texts, [], 'vV')
      ? effect(READ, 'only looks a command up')
      : rest(c, firstPositional(c.texts, NO_VALUES), 'command'),
  );
  register(table, 'stdbuf', wrapper('-i -o -e'));
  register(table, 'taskset chrt', wrapper('-p'));
  register(
    table,
    'xargs',
    wrapper(
      '-a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-procs --max-lines --replace',
    ),
  );
  register(table, 'time', wrapper('-f -o --format --output'));
  register(table, 'timeout', timeoutHandler);
  register(table, 'env', envHandler);
  register(table, 'sh bash zsh dash ksh ash mksh', shellHandler);
  register(table, 'eval', (c) => ({
    type: 'script',
    script: c.texts.join(' '),
    via: 'eval',
    openWorld: false,
  }));
  register(table, 'watch', (c) => {
    const i = firstPositional(c.texts, nameSet('-n -d --interval'));
    const left = c.args.slice(i);
    return left.length === 1
      ? { type: 'script', script: left[0]?.text ?? '', via: 'watch', openWorld: false }
      : rest(c, i, 'watch');
  });
  register(
    table,
    'source . vi vim nvim nano emacs code subl ed tmux screen open xdg-open make cmake ninja',
    fixed(CONSERVATIVE, 'runs a script or program whose effects hintgate cannot see'),
  );
  return table;
})();
