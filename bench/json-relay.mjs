// A relay that reads every message, the floor of any relay that must know what passes
// through it (a gateway): it starts the server, parses each line both ways, gives the
// client's requests ids of its own and the answers back their client's id, and writes each
// message serialized again, the lines of one read coalesced into one write.
// `node bench/json-relay.mjs <server.mjs> [args...]`.
import { spawn } from 'node:child_process';

const child = spawn(process.execPath, process.argv.slice(2), {
  stdio: ['pipe', 'pipe', 'inherit'],
});

/** Calls `onLine` for every complete line of `stream`. */
function readLines(stream, onLine) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const text = rest + chunk;
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      if (end > start) onLine(text.slice(start, end));
      start = end + 1;
    }
    rest = text.slice(start);
  });
}

/** Queues lines for `stream`, written together once the current callback's work is done. */
function lineWriter(stream) {
  let queued = [];
  const flush = () => {
    stream.write(`${queued.join('\n')}\n`);
    queued = [];
  };
  return (line) => {
    if (queued.push(line) === 1) process.nextTick(flush);
  };
}

const toServer = lineWriter(child.stdin);
const toClient = lineWriter(process.stdout);
/** The client's id of each request in flight, by the relay's own id. */
const clientIds = new Map();
let next = 0;

readLines(process.stdin, (line) => {
  const message = JSON.parse(line);
  if (message.id !== undefined && message.method !== undefined) {
    const id = `r${++next}`;
    clientIds.set(id, message.id);
    message.id = id;
  }
  toServer(JSON.stringify(message));
});
readLines(child.stdout, (line) => {
  const message = JSON.parse(line);
  if (message.method === undefined && clientIds.has(message.id)) {
    const id = message.id;
    message.id = clientIds.get(id);
    clientIds.delete(id);
  }
  toClient(JSON.stringify(message));
});
child.on('exit', (code) => process.exit(code ?? 0));
