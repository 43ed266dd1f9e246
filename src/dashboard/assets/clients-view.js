// @ts-check
// Clients (control-plane.md section 1, conformance.md section 4): the registrations in force, a form that
// registers one and shows, once, everything a Connector team needs (secret, signing key, certificate and key,
// CA, examples) with copy and download buttons, and each client's fault profile.
import { ApiProblem, seg } from './api.js';
import { codeBlock, copyButton, download, downloadButton, field, h, message, replace, select, time, uid } from './dom.js';

/**
 * @typedef {import('./api.js').ClientView} ClientView
 * @typedef {import('./api.js').FaultProfile} FaultProfile
 * @typedef {import('./app.js').Context} Context
 * @typedef {{ client_id: string, client_secret: string, private_jwk?: Record<string, unknown>, certificate_pem: string | null,
 *   certificate_key_pem: string | null, ca_pem: string | null, certificate_unavailable?: string, api_key?: string,
 *   examples: { token_curl: string, connector_env: string } }} Registration
 */

/** The fault profile's members (schemas/control/faults.schema.json), with how each is edited. */
const FAULTS = /** @type {const} */ ([
  ['drop_rate', 'Drop rate', 'rate'],
  ['duplicate_rate', 'Duplicate rate', 'rate'],
  ['reorder_rate', 'Reorder rate', 'rate'],
  ['bad_signature_rate', 'Bad signature rate', 'rate'],
  ['conflicting_final_rate', 'Conflicting final rate', 'rate'],
  ['status_429_rate', 'Status 429 rate', 'rate'],
  ['delay_ms', 'Delay (ms)', 'delay'],
  ['seed', 'Seed', 'seed'],
]);

/** @param {FaultProfile} profile */
function faultSummary(profile) {
  if (!profile.active) return 'none';
  const parts = FAULTS.filter(([name]) => name !== 'seed' && profile[name] !== 0).map(([name, label]) => `${label.toLowerCase()} ${profile[name]}`);
  return `${parts.length ? parts.join(', ') : 'all zero'} (seed ${profile.seed})`;
}

/**
 * The secrets of a registration, each with a copy and a download button; shown until dismissed.
 * @param {Registration} registration
 * @param {() => void} dismiss
 */
function registrationPanel(registration, dismiss) {
  const id = registration.client_id;
  const privateJwk = registration.private_jwk ? JSON.stringify(registration.private_jwk, null, 2) : null;
  /** @type {[string, string | null | undefined, string, string][]} what, text, file name, media type */
  const items = [
    ['client secret', registration.client_secret, `${id}.secret.txt`, 'text/plain'],
    ['API key', registration.api_key, `${id}.api-key.txt`, 'text/plain'],
    ['private signing key (JWK)', privateJwk, `${id}.private-jwk.json`, 'application/json'],
    ['client certificate', registration.certificate_pem, `${id}.crt`, 'application/x-pem-file'],
    ['certificate key', registration.certificate_key_pem, `${id}.key`, 'application/x-pem-file'],
    ['CA certificate', registration.ca_pem, 'sandbox-ca.crt', 'application/x-pem-file'],
    ['token request (curl)', registration.examples.token_curl, `${id}-token.sh`, 'text/plain'],
    ['reference Connector settings (.env)', registration.examples.connector_env, `${id}.env`, 'text/plain'],
  ];
  const credentials = { client_id: id, client_secret: registration.client_secret, ...(registration.private_jwk ? { private_jwk: registration.private_jwk } : {}), ...(registration.api_key ? { api_key: registration.api_key } : {}) };
  const titleId = uid('registered');
  return h('section', { class: 'once', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, `Registered ${id}: save these now, they are shown once`),
    h('p', {}, 'The Bank keeps only a hash of the secret and the public half of the key. Nobody can show them again; a lost secret means a new registration.'),
    h('div', { class: 'buttons' },
      h('button', { type: 'button', onclick: () => download(`${id}.credentials.json`, `${JSON.stringify(credentials, null, 2)}\n`, 'application/json') }, 'Download credentials.json'),
      h('button', { type: 'button', class: 'secondary', onclick: dismiss }, 'I have saved them'),
    ),
    registration.certificate_unavailable ? message(`No client certificate: ${registration.certificate_unavailable}`, 'note') : null,
    h('div', { class: 'secret-list' }, items.filter(([, text]) => typeof text === 'string' && text !== '').map(([what, text, file, type]) => h('div', { class: 'secret' },
      h('h3', {}, what),
      codeBlock(String(text), what),
      h('div', { class: 'buttons' }, copyButton(what, () => String(text)), downloadButton(what, file, () => String(text), type)),
    ))),
  );
}

/**
 * The fault profile form of one client.
 * @param {Context} ctx
 * @param {ClientView} client
 * @param {FaultProfile} profile
 * @param {(profile: FaultProfile) => void} changed
 */
function faultForm(ctx, client, profile, changed) {
  const inputs = FAULTS.map(([name, label, kind]) => {
    const input = h('input', kind === 'rate'
      ? { type: 'number', name, min: 0, max: 1, step: 'any', value: profile[name], inputmode: 'decimal' }
      : kind === 'delay' ? { type: 'number', name, min: 0, max: 60000, step: 1, value: profile[name], inputmode: 'numeric' } : { type: 'number', name, step: 1, value: profile[name], inputmode: 'numeric' });
    return { name, input, field: field(label, input) };
  });
  const result = h('div', { class: 'form-status' });
  const form = h('form', { class: 'inline-fields', 'aria-label': `Fault profile of ${client.client_id}` },
    inputs.map((entry) => entry.field),
    h('div', { class: 'buttons' },
      h('button', { type: 'submit' }, 'Save fault profile'),
      h('button', {
        type: 'button',
        class: 'secondary',
        onclick: async () => {
          try {
            await ctx.api.delete(`/clients/${seg(client.client_id)}/faults`);
            changed(await ctx.api.get(`/clients/${seg(client.client_id)}/faults`));
          } catch (error) {
            replace(result, message(error instanceof ApiProblem ? error.explain() : String(error)));
          }
        },
      }, 'Remove fault profile'),
    ),
    result,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    /** @type {Record<string, number>} */
    const body = {};
    for (const { name, input } of inputs) if (input.value.trim() !== '') body[name] = Number(input.value);
    try {
      changed(await ctx.api.put(`/clients/${seg(client.client_id)}/faults`, body));
    } catch (error) {
      replace(result, message(error instanceof ApiProblem ? error.explain() : String(error)));
    }
  });
  return form;
}

/**
 * @param {Context} ctx
 * @param {ClientView} client
 */
function clientCard(ctx, client) {
  const faults = h('span', { class: 'muted' }, '…');
  const faultSlot = h('div');
  const card = h('li', { class: 'card' },
    h('h3', {}, client.client_id, client.name !== client.client_id ? ` (${client.name})` : ''),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Registered'), h('dd', {}, client.source === 'file' ? 'clients file' : 'at run time', client.changed_at_runtime && client.source === 'file' ? ', changed at run time' : '', client.created_at ? [', ', time(client.created_at)] : ''),
      h('dt', {}, 'Authentication'), h('dd', {}, client.auth_methods.join(', '), client.api_key_set ? ' (API key set)' : ''),
      h('dt', {}, 'Signing keys'), h('dd', {}, client.jwks_uri ? ['from ', h('code', {}, client.jwks_uri), ' '] : null, client.jwks ? client.jwks.keys.map((key, index) => [index ? ', ' : '', h('code', {}, key.kid)]) : h('span', { class: 'muted' }, 'not fetched yet')),
      h('dt', {}, 'Connector'), h('dd', {}, client.connector
        ? [h('code', {}, client.connector.url), ` — callbacks ${client.connector.callback_mode}, pull ${client.connector.poll ? `on (${client.connector.poll_status}, ${client.connector.poll_limit} per page)` : 'off'}`]
        : h('span', { class: 'muted' }, 'none (the Bank calls no one for this client)')),
      h('dt', {}, 'Fault profile'), h('dd', {}, faults),
    ),
    h('details', {}, h('summary', {}, 'Edit the fault profile'), faultSlot),
    h('p', {}, h('a', { href: `#/clock/${seg(client.client_id)}` }, `Clock of ${client.client_id}`)),
  );
  /** @param {FaultProfile} profile */
  const show = (profile) => {
    replace(faults, faultSummary(profile));
    replace(faultSlot, faultForm(ctx, client, profile, show));
  };
  ctx.api.get(`/clients/${seg(client.client_id)}/faults`).then(show).catch((error) => replace(faults, message(String(error.message))));
  return card;
}

/**
 * @param {Context} ctx
 * @param {HTMLElement} main
 */
export function clientsView(ctx, main) {
  const { api } = ctx;
  let disposed = false;
  const list = h('ul', { class: 'cards' });
  const registered = h('div');
  const status = h('div', { class: 'view-status' });

  const clientId = h('input', { type: 'text', name: 'client_id', pattern: '[A-Za-z0-9._\\-]{1,64}', maxlength: 64, spellcheck: 'false', autocomplete: 'off' });
  const name = h('input', { type: 'text', name: 'name', maxlength: 200, autocomplete: 'off' });
  const methods = ['bearer', 'dpop', 'api_key'].map((method) => ({ method, input: h('input', { type: 'checkbox', id: uid('auth'), name: 'auth_methods', value: method, checked: method !== 'api_key' }) }));
  const connectorUrl = h('input', { type: 'url', name: 'connector_url', placeholder: 'http://localhost:9090', spellcheck: 'false' });
  const callbackMode = select([['', 'Bank default'], ['unit', 'unit'], ['batch', 'batch'], ['auto', 'auto']], '', { name: 'callback_mode' });
  const poll = h('input', { type: 'checkbox', id: uid('poll'), name: 'poll', checked: true });
  const pullToken = h('input', { type: 'text', name: 'pull_token', spellcheck: 'false', autocomplete: 'off' });
  const formStatus = h('div', { class: 'form-status' });
  const form = h('form', { class: 'action-form', 'aria-labelledby': 'register-title' },
    h('h2', { id: 'register-title' }, 'Register a client'),
    h('p', { class: 'hint' }, 'Every field is optional. Without keys of your own the Bank generates an ES256 key pair and shows the private half once.'),
    h('div', { class: 'inline-fields' },
      field('Client id', clientId, 'empty: generated'),
      field('Name', name),
      h('fieldset', {}, h('legend', {}, 'Authentication methods'), methods.map(({ method, input }) => h('span', { class: 'field checkbox' }, input, h('label', { for: input.id }, method)))),
    ),
    h('div', { class: 'inline-fields' },
      field('Connector URL', connectorUrl, 'where the Bank pulls and sends callbacks'),
      field('Callback mode', callbackMode),
      h('span', { class: 'field checkbox' }, poll, h('label', { for: poll.id }, 'Pull orders from the Connector')),
      field('Pull token', pullToken, 'static Bearer token for the pull'),
    ),
    h('div', { class: 'buttons' }, h('button', { type: 'submit' }, 'Register client')),
    formStatus,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    /** @type {Record<string, unknown>} */
    const body = {};
    if (clientId.value.trim()) body.client_id = clientId.value.trim();
    if (name.value.trim()) body.name = name.value.trim();
    body.auth_methods = methods.filter(({ input }) => input.checked).map(({ method }) => method);
    if (connectorUrl.value.trim()) {
      /** @type {Record<string, unknown>} */
      const connector = { url: connectorUrl.value.trim(), poll: poll.checked };
      if (callbackMode.value) connector.callback_mode = callbackMode.value;
      if (pullToken.value.trim()) connector.token = pullToken.value.trim();
      body.connector = connector;
    }
    try {
      /** @type {Registration} */
      const registration = await api.post('/clients', body);
      replace(formStatus);
      form.reset();
      const panel = registrationPanel(registration, () => replace(registered, message(`The credentials of ${registration.client_id} are no longer shown.`, 'note')));
      replace(registered, panel);
      panel.querySelector('h2')?.setAttribute('tabindex', '-1');
      /** @type {HTMLElement | null} */ (panel.querySelector('h2'))?.focus();
      await reload();
    } catch (error) {
      replace(formStatus, message(error instanceof ApiProblem ? error.explain() : String(error)));
    }
  });

  replace(main,
    h('h1', {}, 'Clients'),
    registered,
    form,
    h('section', { 'aria-labelledby': 'registered-title' }, h('h2', { id: 'registered-title' }, 'Registrations'), status, list),
  );

  async function reload() {
    try {
      const clients = await api.clients();
      if (disposed) return;
      replace(list, clients.map((client) => clientCard(ctx, client)));
      replace(status, clients.length ? null : message('No client yet: register one above.', 'note'));
    } catch (error) {
      if (!disposed) replace(status, message(`The clients could not be read: ${/** @type {Error} */ (error).message}`));
    }
  }

  void reload();
  return () => {
    disposed = true;
  };
}
