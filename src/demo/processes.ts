// Child processes for the demo: start a built entry point, wait for its "listening" log line, stop it.
import { ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';

export interface Child {
  process: ChildProcess;
  /** The parsed JSON log line that announced readiness. */
  ready: Record<string, unknown>;
  logs: string[];
}

// Two levels up is the project root both from src/demo (tests) and from dist/demo (npm run demo).
const DIST = path.resolve(__dirname, '..', '..', 'dist');

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs dist/<entry> and resolves at the JSON log line whose message is `readyMessage`. */
export function startChild(entry: string, env: Record<string, string>, readyMessage: string, timeoutMs = 30_000): Promise<Child> {
  const child = spawn(process.execPath, [path.join(DIST, entry)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not become ready:\n${logs.slice(-20).join('\n')}`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${logs.slice(-20).join('\n')}`));
    });
    child.stderr!.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      logs.push(line);
      if (!line.includes(`"${readyMessage}"`)) return;
      clearTimeout(timer);
      resolve({ process: child, ready: JSON.parse(line) as Record<string, unknown>, logs });
    });
  });
}

export function stopChild(child: Child): Promise<void> {
  return new Promise((resolve) => {
    if (child.process.exitCode !== null) return resolve();
    child.process.removeAllListeners('exit');
    child.process.once('exit', () => resolve());
    child.process.kill('SIGTERM');
    setTimeout(() => child.process.kill('SIGKILL'), 10_000).unref();
  });
}
