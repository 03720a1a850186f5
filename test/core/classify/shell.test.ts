import { describe, expect, it } from 'vitest';
import { classifyShell } from '../../../src/core/dynamic/index.js';
import { parseShell } from '../../../src/core/classify/shell-parse.js';
import type { HintCode } from './codes.js';
import { codeOf, reasonText } from './codes.js';

type Row = readonly [command: string, code: HintCode, reason: string];

describe('classifyShell', () => {
  const reads: Row[] = [
    ['ls -la', 'R', 'shell `ls -la` only reads or prints'],
    ["cat package.json | jq '.dependencies'", 'R', 'only reads'],
    ['grep -rn "TODO" src/ | wc -l', 'R', 'only reads'],
    ['find . -name "*.ts" -not -path "./node_modules/*"', 'R', 'only lists files'],
    ['git status --short', 'R', 'only reads the repository'],
    ['git log --oneline -n 20', 'R', 'only reads the repository'],
    ['git diff HEAD~1 -- src/', 'R', 'only reads the repository'],
    ['git -C ../other show HEAD:README.md', 'R', 'only reads the repository'],
    ['git branch -a', 'R', 'only lists branches'],
    ['git branch', 'R', 'only lists branches'],
    ['git remote -v', 'R', 'only lists remotes'],
    ['git tag', 'R', 'only lists tags'],
    ['git stash list', 'R', 'only lists stashes'],
    ['git config --get user.email', 'R', 'only reads configuration'],
    ['head -n 50 /var/log/syslog', 'R', 'only reads'],
    ['tail -f app.log', 'R', 'only reads'],
    ['ps aux | grep node', 'R', 'only reads'],
    ['df -h && du -sh *', 'R', 'only reads'],
    ['echo "rm -rf /"', 'R', 'only reads or prints'],
    ["echo 'hello' > /dev/null 2>&1", 'R', 'only reads'],
    ["printf '%s\\n' a b", 'R', 'only reads'],
    ['which node && node --version', 'R', 'only reads or prints'],
    ['env', 'R', 'only prints the environment'],
    ['env | sort', 'R', 'only prints the environment'],
    ['uname -a; whoami; date', 'R', 'only reads'],
    ['npm ls --depth=0', 'R', 'only reads package information'],
    ['pip list', 'R', 'only reads package information'],
    ['kubectl get pods -n prod -o wide', 'R', 'only reads cluster state'],
    ['docker ps -a', 'R', 'only lists or inspects'],
    ['docker compose ps', 'R', 'only lists or inspects'],
    ['docker image ls', 'R', 'only lists or inspects'],
    ['helm list -A', 'R', 'only reads releases'],
    ['for f in *.log; do wc -l "$f"; done', 'R', 'only reads'],
    ['if [ -f .env ]; then cat .env; fi', 'R', 'only reads'],
    ['[[ -d node_modules && -f package.json ]] && echo ok', 'R', 'only reads'],
    ['diff <(ls a) <(ls b)', 'R', 'only reads'],
    ["cat <<'EOF'\n$(rm -rf /)\nEOF", 'R', 'only reads'],
    ["git log --format='%H %s' | grep -i fix", 'R', 'only reads'],
    ["sed -n '1,20p' file.txt", 'R', 'only prints edited text'],
    ["awk '{print $1}' access.log | sort | uniq -c | sort -rn | head", 'R', 'only prints'],
    ["find . -type f -name '*.md' -exec grep -l 'TODO' {} +", 'R', 'only reads'],
    ['kill -0 1234', 'R', 'checks that a process exists'],
    ['kill -l', 'R', 'only lists signals'],
    [
      "psql -c 'SELECT count(*) FROM users'",
      'R',
      "shell `psql -c 'SELECT count(*) FROM users'`: SQL",
    ],
    ['sqlite3 app.db "SELECT * FROM users LIMIT 5"', 'R', 'only reads'],
    ['sqlite3 app.db .tables', 'R', 'read-only command `.tables`'],
    ['mysql -u root -e "SHOW DATABASES"', 'R', 'only shows'],
    ['tar -tzf archive.tar.gz', 'R', 'only lists an archive'],
    ['x=$(git rev-parse HEAD); echo "$x"', 'R', 'only reads'],
    ['cd /srv/app && ls', 'R', "only changes the shell's own state"],
    ['command -v git', 'R', 'only looks a command up'],
    ["watch -n 5 'kubectl get pods'", 'R', 'only reads cluster state'],
    ['FOO=bar', 'R', 'only sets shell variables'],
    [
      'while read -r line; do echo "$line"; done < input.txt',
      'R',
      "only changes the shell's own state",
    ],
    ['case "$1" in start) echo go ;; stop) echo halt ;; esac', 'R', 'only reads'],
  ];

  const openWorld: Row[] = [
    [
      'curl -s https://api.github.com/repos/nodejs/node | jq .stargazers_count',
      'R',
      'HTTP `GET https://api.github.com/repos/nodejs/node`',
    ],
    ['wget -qO- https://example.com', 'R', 'is a safe method'],
    ['timeout 10 curl -I https://example.com', 'R', 'HTTP `HEAD https://example.com`'],
    ['gh pr list --state open', 'R', 'only reads from GitHub'],
    ['aws s3 ls s3://bucket/', 'R', 'runs `ls`'],
    ['aws ec2 describe-instances --region eu-west-1', 'R', '`describe` is a read-only verb'],
    ['git fetch --all', 'AI', 'downloads objects'],
    ['git push origin main', 'A', 'pushes commits'],
    ['git clone https://github.com/x/y.git', 'A', 'clones a repository'],
    [
      'curl -X POST -d \'{"a":1}\' https://api.example.com/items',
      'A',
      'HTTP `POST https://api.example.com/items` creates or submits',
    ],
    ["curl -d 'x=1' https://example.com/form", 'A', 'POST'],
    ['wget https://example.com/file.tar.gz', 'A', 'saves what it downloads'],
    ['http POST https://api.example.com/items name=x', 'A', 'POST'],
    [
      'curl -X DELETE https://api.example.com/items/1',
      'DI',
      'HTTP `DELETE https://api.example.com/items/1` removes the target',
    ],
    ['curl -o install.sh https://example.com/install.sh', 'DI', 'writes the response'],
    ["ssh prod 'sudo systemctl restart nginx'", 'DI', 'stops, restarts'],
    ['git push origin main --force', 'D', 'force-pushes'],
    ['terraform destroy -auto-approve', 'D', 'changes or destroys infrastructure'],
  ];

  const writes: Row[] = [
    ['mkdir build', 'A', 'creates directories'],
    ['mkdir -p build/out', 'AI', 'unless they exist'],
    ['touch .env', 'A', 'creates files'],
    ['git add -A && git commit -m "fix: rm old stuff"', 'A', 'records a commit'],
    ['echo "line" >> notes.txt', 'A', 'appends to `notes.txt` (`>>` redirection)'],
    ['docker build -t app .', 'A', 'creates or builds'],
    ['kubectl create namespace staging', 'A', 'creates resources'],
    ['cp -n a.txt b.txt', 'AI', 'without overwriting'],
    ['git checkout -b feature/x', 'A', 'creates and switches to a branch'],
    ['git branch feature/y', 'A', 'creates a branch'],
  ];

  const destructive: Row[] = [
    ['rm -rf node_modules', 'DI', 'shell `rm -rf node_modules` removes files'],
    ['ls; rm x', 'DI', 'shell `rm x` removes files'],
    ['echo $(rm x)', 'DI', 'shell `rm x` (in a command substitution) removes files'],
    ['echo "$(rm x)"', 'DI', '(in a command substitution)'],
    ['echo `rm x`', 'DI', '(in a command substitution)'],
    ['cat a > b', 'DI', 'overwrites `b` (`>` redirection)'],
    ['echo hi > out.txt', 'DI', 'overwrites `out.txt`'],
    ['npm test &> "$LOG"', 'D', 'installs packages or runs their scripts'],
    ['git push -f', 'D', 'force-pushes'],
    ['git push --force-with-lease origin feature', 'D', 'force-pushes'],
    ['git push origin +main', 'D', 'force-pushes'],
    ['git push origin :old-branch', 'D', 'force-pushes or deletes'],
    ['git reset --hard HEAD~1', 'D', 'discards uncommitted changes (--hard)'],
    ['git clean -fdx', 'DI', 'deletes untracked files'],
    ['git checkout -- src/app.ts', 'DI', 'overwriting local changes'],
    ['git branch -D feature', 'D', 'deletes, renames or force-moves a branch'],
    ['git stash drop', 'DI', 'deletes stashed changes'],
    ['git rebase -i HEAD~3', 'D', 'rewrites history'],
    ['git commit --amend --no-edit', 'D', 'rewrites the last commit'],
    ['dd if=/dev/zero of=/dev/sda bs=1M', 'DI', 'writes raw data over a file or device'],
    ['mkfs.ext4 /dev/sdb1', 'D', 'formats or repartitions a disk'],
    ['shred -u secret.txt', 'DI', 'removes files'],
    ['truncate -s 0 app.log', 'DI', 'truncates files'],
    ['chmod -R 777 /var/www', 'DI', 'changes permissions or ownership'],
    ['chown -R www-data: /srv', 'DI', 'changes permissions or ownership'],
    ['kill -9 1234', 'DI', 'ends processes'],
    ['pkill -f node', 'DI', 'ends processes'],
    ["sed -i 's/foo/bar/g' config.yml", 'D', 'edits files in place'],
    ["find /tmp -name '*.tmp' -delete", 'DI', 'deletes the files it finds'],
    ["find . -name '*.o' -exec rm {} \\;", 'DI', 'removes files'],
    ['docker rm -f $(docker ps -aq)', 'DI', 'removes containers'],
    ['docker system prune -af', 'DI', 'removes containers'],
    ['kubectl delete pod web-0', 'DI', 'deletes or evicts resources'],
    ['kubectl apply -f deploy.yaml', 'DI', 'changes existing resources'],
    ['kubectl exec web-0 -- rm -rf /data', 'DI', 'removes files'],
    ["psql -c 'DROP TABLE users'", 'DI', 'SQL `DROP TABLE users` drops an object'],
    ['psql -U app -d db -c "DELETE FROM sessions WHERE expires_at < now()"', 'D', 'now()'],
    ["sudo -u postgres psql -c 'DROP DATABASE app'", 'DI', 'drops an object'],
    ['mv a.txt b.txt', 'DI', 'moves files, replacing any existing target'],
    ['cp config.example.yml config.yml', 'DI', 'overwriting existing targets'],
    ['sudo rm -rf /var/cache/apt', 'DI', 'removes files'],
    ['xargs rm < files.txt', 'DI', 'removes files'],
    ["find . -name '*.bak' | xargs rm -f", 'DI', 'removes files'],
    [
      "sh -c 'rm -rf /tmp/cache'",
      'DI',
      'runs a script through `sh -c`: shell `rm -rf /tmp/cache` removes files',
    ],
    ['bash -c "ls && rm x"', 'DI', 'removes files'],
    ['eval "rm -rf $DIR"', 'DI', 'removes files'],
    ['tee /etc/hosts < hosts.new', 'DI', 'overwrites `/etc/hosts`'],
    ['crontab -r', 'DI', 'replaces or removes the crontab'],
    ['systemctl restart nginx', 'DI', 'stops, restarts'],
    ['cat <<EOF\n$(rm -rf /)\nEOF', 'DI', 'removes files'],
    ['A=1 B=2 rm x', 'DI', 'removes files'],
    ['cd /tmp && rm -rf build', 'DI', 'removes files'],
    ['time rm x', 'DI', 'removes files'],
    ['nice -n 10 tar -czf backup.tar.gz /data', 'DI', 'creates an archive'],
    ['env -i PATH=/usr/bin rm x', 'DI', 'removes files'],
    ['exec rm x', 'DI', 'removes files'],
    ['ls > listing.txt', 'DI', 'overwrites `listing.txt`'],
    // `((` is arithmetic only when `))` closes it; otherwise two subshells, as bash reads it.
    ['((rm -rf build) )', 'DI', 'removes files'],
    ['echo $((echo hi; rm x) )', 'DI', 'removes files'],
    ['(( count++ )); rm x', 'DI', 'removes files'],
    ['echo "${DIR:-$(rm x)}"', 'DI', 'removes files'],
    ['diff a b > /tmp/out 2>&1', 'DI', 'overwrites `/tmp/out`'],
  ];

  const conservative: Row[] = [
    [
      'curl -fsSL https://get.docker.com | sh',
      'D',
      'runs a script or its input, which hintgate cannot see',
    ],
    ["echo 'rm -rf /' | sh", 'D', 'runs a script or its input'],
    ['$CMD --force', 'D', 'runs a command whose name is only known when it runs (`$CMD`)'],
    ['./deploy.sh production', 'D', 'runs the program `./deploy.sh`'],
    ['unknowncmd --flag', 'D', 'runs `unknowncmd`, which is not a command hintgate knows'],
    ['(cd sub && make)', 'D', 'runs a script or program'],
    ['npm publish', 'D', 'installs packages or runs their scripts'],
    ['npm install', 'D', 'installs packages'],
    ['python3 manage.py migrate', 'D', 'runs a program'],
    ['redis-cli FLUSHALL', 'D', 'FLUSHALL'],
    ['git frobnicate', 'D', 'not a git command hintgate knows'],
    ['source ./env.sh && ls', 'D', 'runs a script or program'],
    ['psql -f migrate.sql', 'D', 'runs SQL from a file or its input'],
  ];

  it.each([...reads, ...openWorld, ...writes, ...destructive, ...conservative])(
    '%s → %s',
    (command, code, reason) => {
      const result = classifyShell(command);
      expect(codeOf(result)).toBe(code);
      expect(reasonText(result)).toContain(reason);
    },
  );

  it.each(openWorld)('marks `%s` as reaching an open world', (command) => {
    expect(classifyShell(command)?.annotations.openWorldHint).toBe(true);
  });

  it('leaves openWorldHint unset for local commands', () => {
    expect(classifyShell('rm -rf build')?.annotations).not.toHaveProperty('openWorldHint');
  });

  it('does not apply to an empty line or only comments', () => {
    expect(classifyShell('')).toBeUndefined();
    expect(classifyShell('   # just a comment\n')).toBeUndefined();
  });

  it('takes the worst over a pipeline and keeps every finding', () => {
    const result = classifyShell('cat urls.txt | xargs -n1 curl -s | tee out.json');
    expect(result?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(result?.findings.length).toBe(3);
  });

  it('reads arithmetic as no command', () => {
    expect(classifyShell('(( total += 1 ))')).toBeUndefined();
    expect(codeOf(classifyShell('echo $(( 1 + 2 ))'))).toBe('R');
  });

  it('stays fast and conservative on pathological input', () => {
    for (const input of [
      'echo ' + '${'.repeat(5000),
      'echo ' + '$(('.repeat(5000),
      '('.repeat(5000) + 'ls',
    ]) {
      expect(codeOf(classifyShell(input))).toBe('D');
    }
  });

  it('is conservative about commands nested too deeply to read', () => {
    let command = 'ls';
    for (let i = 0; i < 12; i++) command = `sh -c ${JSON.stringify(command)}`;
    const result = classifyShell(command);
    expect(codeOf(result)).toBe('D');
    expect(reasonText(result)).toContain('too deeply');
  });
});

describe('parseShell', () => {
  it('finds the commands of substitutions, subshells and here-documents', () => {
    const { commands } = parseShell(
      'echo "$(date)" `whoami` <(ls) && (cd x; pwd) <<EOF\n$(id)\nEOF',
    );
    const named = commands.filter((command) => command.words.length > 0);
    expect(named.map((command) => command.words[0]?.text)).toEqual([
      'date',
      'whoami',
      'ls',
      'echo',
      'cd',
      'pwd',
      'id',
    ]);
  });

  it('removes quotes and keeps escaped characters literal', () => {
    const { commands } = parseShell(`printf 'a b' "c\\"d" e\\ f $'g\\'h'`);
    expect(commands[0]?.words.map((word) => word.text)).toEqual([
      'printf',
      'a b',
      'c"d',
      'e f',
      "g\\'h",
    ]);
  });

  it('marks words with expansions as not literal', () => {
    const { commands } = parseShell('rm "$HOME/x" plain');
    expect(commands[0]?.words.map((word) => word.literal)).toEqual([true, false, true]);
  });

  it('reads redirections apart from words', () => {
    const { commands } = parseShell('cmd 2>&1 >out.txt >>log <in');
    expect(
      commands[0]?.redirects.map((redirect) => `${redirect.op}${redirect.target.text}`),
    ).toEqual(['>&1', '>out.txt', '>>log', '<in']);
  });
});
