// sandbox-bank start: the Bank itself, as `npm start` runs it (src/bank/main.ts: settings from the environment, both
// listeners, the outgoing side, a graceful stop on SIGTERM/SIGINT), but in this process, so without npm start's node
// flags (docs/architecture.md, Memory). The flags only set the environment variables of the same meaning
// (docs/configuration.md lists them all).
import { command } from '../command';
import type { CliIo } from '../io';

/** Flag -> environment variable; everything else is configured by the environment as usual. */
const SETTINGS: Record<string, string> = {
  port: 'PORT',
  'https-port': 'HTTPS_PORT',
  host: 'HOST',
  'data-dir': 'DATA_DIR',
  'admin-token': 'ADMIN_TOKEN',
  mode: 'SANDBOX_MODE',
  'clients-file': 'CLIENTS_FILE',
  'log-level': 'LOG_LEVEL',
};

export const startCommand = command(
  {
    name: 'start',
    summary: 'Run the Bank (as npm start): the HTTP and HTTPS listeners and the outgoing side, until SIGTERM or Ctrl-C.',
    details: ['Every setting is an environment variable (docs/configuration.md); these flags set the common ones.', 'A bad setting stops it with exit 2 naming the variable; SIGTERM/SIGINT stop it cleanly with exit 0.'],
    options: {
      port: { type: 'string', value: 'port', help: 'PORT: the plain HTTP listener (default 8080; 0 picks a free one)' },
      'https-port': { type: 'string', value: 'port', help: 'HTTPS_PORT: the mTLS listener (default 8443)' },
      host: { type: 'string', value: 'address', help: 'HOST: the address to bind (default 0.0.0.0)' },
      'data-dir': { type: 'string', value: 'dir', help: 'DATA_DIR: SQLite, keys and the dev PKI (default ./data)' },
      'admin-token': { type: 'string', value: 'token', help: 'ADMIN_TOKEN: the Bearer token of /sandbox' },
      mode: { type: 'string', value: 'strict|relaxed', help: 'SANDBOX_MODE' },
      'clients-file': { type: 'string', value: 'file', help: 'CLIENTS_FILE: the static client registry' },
      'log-level': { type: 'string', value: 'level', help: 'LOG_LEVEL' },
    },
    examples: ['sandbox-bank start --port 8080 --admin-token "$ADMIN_TOKEN"', 'docker run --rm -p 8080:8080 sandbox-bank sandbox-bank start'],
  },
  (parsed, _io: CliIo) => {
    parsed.integer('port', 0, 65535);
    parsed.integer('https-port', 0, 65535);
    parsed.oneOf('mode', ['strict', 'relaxed']);
    for (const [flag, variable] of Object.entries(SETTINGS)) {
      const value = parsed.string(flag);
      if (value !== undefined) process.env[variable] = value;
    }
    // main.ts starts the Bank when loaded and owns the process from then on (its signals, its exit code).
    require('../../bank/main');
    return new Promise<number>(() => {
      // never settles: the Bank runs until a signal, and main.ts exits the process itself
    });
  },
);
