// The floor of any stdio relay: a process that starts the server and copies bytes both ways
// without reading a message. `node bench/relay.mjs <server.mjs> [args...]`.
import { spawn } from 'node:child_process';

const child = spawn(process.execPath, process.argv.slice(2), {
  stdio: ['pipe', 'pipe', 'inherit'],
});
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.on('exit', (code) => process.exit(code ?? 0));
