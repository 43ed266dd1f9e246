// loadConfig: documented defaults, environment overrides, and a bad value stops startup naming the variable.
import { ConfigError, DEFAULTS, loadConfig, SETTINGS } from '../../src/bank/config';

describe('loadConfig', () => {
  it('an empty environment gives the documented defaults', () => {
    expect(loadConfig({})).toEqual(DEFAULTS);
    expect(DEFAULTS).toMatchObject({
      sandboxMode: 'strict',
      timestampWindowS: 300,
      bodyLimitBytes: 256 * 1024,
      idempotencyRetentionS: 24 * 3600,
      tokenTtlS: 3600,
      createLatencyMs: 0,
      rulesFile: null,
      clientsFile: 'fixtures/clients.json',
    });
  });

  it('every setting has its own environment variable and a doc line', () => {
    const names = SETTINGS.map((setting) => setting.env);
    expect(new Set(names).size).toBe(names.length);
    for (const setting of SETTINGS) {
      expect(setting.env).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(setting.doc.length).toBeGreaterThan(10);
    }
  });

  it.each([
    ['PORT', '0', 'port', 0],
    ['PORT', '8081', 'port', 8081],
    ['PORT', '65535', 'port', 65535],
    ['HTTPS_PORT', '9443', 'httpsPort', 9443],
    ['SANDBOX_MODE', 'relaxed', 'sandboxMode', 'relaxed'],
    ['SANDBOX_MODE', 'strict', 'sandboxMode', 'strict'],
    ['TIMESTAMP_WINDOW_S', '1', 'timestampWindowS', 1],
    ['TIMESTAMP_WINDOW_S', '600', 'timestampWindowS', 600],
    ['BODY_LIMIT_BYTES', '1024', 'bodyLimitBytes', 1024],
    ['IDEMPOTENCY_RETENTION_S', '60', 'idempotencyRetentionS', 60],
    ['STATUS_RATE_PER_S', '5', 'statusRatePerS', 5],
    ['STATUS_RATE_BURST', '10', 'statusRateBurst', 10],
    ['CREATE_LATENCY_MS', '300', 'createLatencyMs', 300],
    ['TOKEN_TTL_S', '60', 'tokenTtlS', 60],
    ['LOG_LEVEL', 'debug', 'logLevel', 'debug'],
    ['DATA_DIR', ':memory:', 'dataDir', ':memory:'],
    ['CLIENTS_FILE', '/etc/sandbox/clients.json', 'clientsFile', '/etc/sandbox/clients.json'],
    ['RULES_FILE', 'rules.json', 'rulesFile', 'rules.json'],
    ['RULES_FILE', '', 'rulesFile', null],
  ])('accepts %s=%j', (name, value, key, expected) => {
    const config = loadConfig({ [name]: value }) as unknown as Record<string, unknown>;
    expect(config[key]).toEqual(expected);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PORT', '1e3'],
    ['PORT', '0x50'],
    ['PORT', ''],
    ['HTTPS_PORT', 'https'],
    ['SANDBOX_MODE', 'loose'],
    ['SANDBOX_MODE', ''],
    ['TIMESTAMP_WINDOW_S', '0'],
    ['TIMESTAMP_WINDOW_S', '-300'],
    ['TIMESTAMP_WINDOW_S', 'five'],
    ['BODY_LIMIT_BYTES', '0'],
    ['BODY_LIMIT_BYTES', '256k'],
    ['IDEMPOTENCY_RETENTION_S', '0'],
    ['STATUS_RATE_PER_S', '0'],
    ['STATUS_RATE_BURST', '0'],
    ['STATUS_RATE_PER_S', '2.5'],
    ['CREATE_LATENCY_MS', '-1'],
    ['TOKEN_TTL_S', '0'],
    ['LOG_LEVEL', 'loud'],
    ['HOST', ''],
    ['DATA_DIR', '   '],
  ])('rejects %s=%j with a ConfigError naming the variable', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(name);
  });

  it('names every bad variable at once, and only the bad ones', () => {
    let message = '';
    try {
      loadConfig({ PORT: 'abc', SANDBOX_MODE: 'loose', TIMESTAMP_WINDOW_S: '0', STATUS_RATE_BURST: '7' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('PORT');
    expect(message).toContain('SANDBOX_MODE');
    expect(message).toContain('TIMESTAMP_WINDOW_S');
    expect(message).not.toContain('STATUS_RATE_BURST');
    expect(message).toContain('abc');
    expect(message).toContain('loose');
  });

  it('ignores unrelated environment variables', () => {
    expect(loadConfig({ PATH: '/usr/bin', HOME: '/root', SOMETHING_ELSE: 'x' })).toEqual(DEFAULTS);
  });

  it('explicit overrides win over the environment', () => {
    expect(loadConfig({ SANDBOX_MODE: 'relaxed', PORT: '9000' }, { sandboxMode: 'strict' })).toMatchObject({ sandboxMode: 'strict', port: 9000 });
  });
});
