// GET /docs: both OpenAPI documents as one self-contained HTML page. No script, no font, no style sheet from
// anywhere else, so it reads the same offline, behind a proxy, or saved to a file. A small renderer of our own:
// paths and operations, their parameters and headers, bodies and answers with links to the schemas, examples as
// pretty JSON, and every schema component as JSON with its $refs as links.
import { JsonObject } from './schema-components';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** The little Markdown the descriptions use: paragraphs, `code` and fenced code blocks. */
function markdown(text: string | undefined): string {
  if (!text) return '';
  return text
    .split(/```/)
    .map((part, index) => (index % 2 === 1 ? `<pre>${escapeHtml(part.replace(/^\n/, ''))}</pre>` : paragraphs(part)))
    .join('');
}

function paragraphs(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`)
    .join('');
}

/** A document-local anchor for a component: schemas get `<prefix>-schema-<Name>`. */
function refAnchor(prefix: string, ref: string): string | null {
  const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
  return match ? `${prefix}-schema-${match[1]}` : null;
}

/** Resolves `#/components/...` references inside one document. */
function resolve(doc: JsonObject, value: unknown): JsonObject {
  let current = value as JsonObject;
  for (let depth = 0; depth < 10 && typeof current?.$ref === 'string'; depth += 1) {
    const parts = (current.$ref as string).replace(/^#\//, '').split('/');
    current = parts.reduce<unknown>((node, part) => (node as JsonObject)?.[part], doc) as JsonObject;
  }
  return current ?? {};
}

/** A one-line summary of a schema, with links for references. */
function schemaSummary(prefix: string, schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return '';
  const node = schema as JsonObject;
  if (typeof node.$ref === 'string') {
    const anchor = refAnchor(prefix, node.$ref);
    const name = node.$ref.split('/').pop() as string;
    return anchor ? `<a href="#${anchor}">${escapeHtml(name)}</a>` : escapeHtml(name);
  }
  if (Array.isArray(node.allOf)) {
    const parts = node.allOf.map((part) => {
      const narrowing = (part as JsonObject).properties as Record<string, JsonObject> | undefined;
      if (!narrowing || (part as JsonObject).$ref) return schemaSummary(prefix, part);
      return Object.entries(narrowing)
        .filter(([name]) => name !== 'type') // the problem type URN only repeats the code
        .map(([name, rule]) => `${escapeHtml(name)} ${rule.const !== undefined ? `= <code>${escapeHtml(JSON.stringify(rule.const))}</code>` : rule.enum ? `∈ ${(rule.enum as unknown[]).map((value) => `<code>${escapeHtml(String(value))}</code>`).join(' ')}` : schemaSummary(prefix, rule)}`)
        .join(', ');
    });
    return parts.filter(Boolean).join(' with ');
  }
  if (Array.isArray(node.anyOf)) return node.anyOf.map((part) => schemaSummary(prefix, part)).join(' | ');
  if (node.const !== undefined) return `<code>${escapeHtml(JSON.stringify(node.const))}</code>`;
  if (Array.isArray(node.enum)) return node.enum.map((value) => `<code>${escapeHtml(JSON.stringify(value))}</code>`).join(' | ');
  const type = Array.isArray(node.type) ? node.type.join(' | ') : typeof node.type === 'string' ? node.type : 'any';
  if (type === 'array') return `array of ${schemaSummary(prefix, node.items) || 'any'}`;
  const details = [node.format && `format ${node.format}`, node.pattern && `pattern <code>${escapeHtml(String(node.pattern))}</code>`, node.minimum !== undefined && `≥ ${node.minimum}`, node.maximum !== undefined && `≤ ${node.maximum}`]
    .filter(Boolean)
    .join(', ');
  return `${escapeHtml(type)}${details ? ` (${details})` : ''}`;
}

/** Pretty JSON with every `"$ref": "#/components/schemas/X"` made a link. */
function prettyJson(prefix: string, value: unknown): string {
  const text = escapeHtml(JSON.stringify(value, null, 2));
  return text.replace(/(&quot;\$ref&quot;: &quot;)(#\/components\/schemas\/([^&]+))(&quot;)/g, (_all, open: string, ref: string, _name: string, close: string) => {
    const anchor = refAnchor(prefix, ref);
    return `${open}<a href="#${anchor}">${ref}</a>${close}`;
  });
}

function examplesBlock(prefix: string, media: JsonObject): string {
  const examples = (media.examples ?? {}) as Record<string, JsonObject>;
  return Object.entries(examples)
    .map(([name, example]) => `<details><summary>Example: ${escapeHtml(String(example.summary ?? name))}</summary><pre>${prettyJson(prefix, example.value)}</pre></details>`)
    .join('');
}

function parametersTable(doc: JsonObject, prefix: string, parameters: unknown[]): string {
  if (parameters.length === 0) return '';
  const rows = parameters.map((raw) => {
    const parameter = resolve(doc, raw);
    return `<tr><td><code>${escapeHtml(String(parameter.name))}</code></td><td>${escapeHtml(String(parameter.in))}</td><td>${parameter.required ? 'yes' : 'no'}</td><td>${schemaSummary(prefix, parameter.schema)}</td><td>${markdown(parameter.description as string)}</td></tr>`;
  });
  return `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Required</th><th>Schema</th><th>Description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function headersList(doc: JsonObject, headers: JsonObject | undefined): string {
  if (!headers) return '';
  return Object.entries(headers)
    .map(([name, raw]) => {
      const header = resolve(doc, raw);
      return `<div class="header"><code>${escapeHtml(name)}</code>${header.required ? '' : ' (sometimes)'}: ${escapeHtml(String(header.description ?? ''))}</div>`;
    })
    .join('');
}

function contentBlock(prefix: string, content: JsonObject | undefined): string {
  if (!content) return '';
  return Object.entries(content)
    .map(([type, raw]) => {
      const media = raw as JsonObject;
      return `<div class="media"><span class="type">${escapeHtml(type)}</span> ${schemaSummary(prefix, media.schema)}${examplesBlock(prefix, media)}</div>`;
    })
    .join('');
}

function responsesBlock(doc: JsonObject, prefix: string, responses: Record<string, JsonObject>): string {
  const rows = Object.entries(responses).map(([status, raw]) => {
    const response = resolve(doc, raw);
    const kind = status.startsWith('2') || status.startsWith('3') ? 'ok' : 'error';
    return `<tr><td class="status ${kind}">${escapeHtml(status)}</td><td>${markdown(response.description as string)}${headersList(doc, response.headers as JsonObject)}${contentBlock(prefix, response.content as JsonObject)}</td></tr>`;
  });
  return `<h4>Responses</h4><table class="responses"><tbody>${rows.join('')}</tbody></table>`;
}

function securityLine(security: unknown): string {
  if (!Array.isArray(security)) return '';
  if (security.length === 0) return '<p class="security">Public: no credentials.</p>';
  const alternatives = security.map((requirement) => {
    const names = Object.keys(requirement as JsonObject);
    return names.length === 0 ? 'none (credentials in the body)' : names.map((name) => `<code>${escapeHtml(name)}</code>`).join(' + ');
  });
  return `<p class="security">Security: ${alternatives.join(' or ')}</p>`;
}

function operationSection(doc: JsonObject, prefix: string, label: string, method: string, operation: JsonObject): string {
  const id = `${prefix}-op-${String(operation.operationId)}`;
  const body = operation.requestBody ? resolve(doc, operation.requestBody) : null;
  const requestBlock = body ? `<h4>Request body${body.required ? '' : ' (optional)'}</h4>${markdown(body.description as string)}${contentBlock(prefix, body.content as JsonObject)}` : '';
  return `<section class="operation" id="${id}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(label)}</code> <span class="summary">${escapeHtml(String(operation.summary ?? ''))}</span></h3>
${securityLine(operation.security)}${markdown(operation.description as string)}${parametersTable(doc, prefix, (operation.parameters ?? []) as unknown[])}${requestBlock}${responsesBlock(doc, prefix, (operation.responses ?? {}) as Record<string, JsonObject>)}
</section>`;
}

interface Listed {
  label: string;
  method: string;
  operation: JsonObject;
}

function operationsOf(items: JsonObject | undefined): Listed[] {
  const listed: Listed[] = [];
  for (const [label, item] of Object.entries(items ?? {})) {
    for (const method of METHODS) {
      const operation = (item as JsonObject)[method] as JsonObject | undefined;
      if (operation) listed.push({ label, method, operation });
    }
  }
  return listed;
}

function tocEntry(prefix: string) {
  return ({ label, method, operation }: Listed) =>
    `<li title="${method.toUpperCase()} ${escapeHtml(label)}: ${escapeHtml(String(operation.summary ?? ''))}"><a href="#${prefix}-op-${String(operation.operationId)}"><span class="method ${method}">${method.toUpperCase()}</span> ${escapeHtml(label)}</a></li>`;
}

function documentSection(doc: JsonObject, prefix: string, heading: string, source: string): { toc: string; body: string } {
  const info = doc.info as JsonObject;
  const tags = ((doc.tags ?? []) as JsonObject[]).map((tag) => String(tag.name));
  const listed = operationsOf(doc.paths as JsonObject);
  const webhooks = operationsOf(doc.webhooks as JsonObject);
  const byTag = new Map<string, Listed[]>(tags.map((tag) => [tag, []]));
  for (const one of listed) {
    const tag = String(((one.operation.tags ?? ['Other']) as string[])[0]);
    byTag.set(tag, [...(byTag.get(tag) ?? []), one]);
  }
  const tocItems: string[] = [];
  const sections: string[] = [];
  for (const [tag, operations] of byTag) {
    if (operations.length === 0) continue;
    const tagInfo = ((doc.tags ?? []) as JsonObject[]).find((entry) => entry.name === tag);
    tocItems.push(`<li>${escapeHtml(tag)}<ul>${operations.map(tocEntry(prefix)).join('')}</ul></li>`);
    sections.push(`<h2 class="tag">${escapeHtml(tag)}</h2>${markdown(tagInfo?.description as string)}${operations.map(({ label, method, operation }) => operationSection(doc, prefix, label, method, operation)).join('')}`);
  }
  if (webhooks.length > 0) {
    tocItems.push(`<li>Requests the Bank sends (webhooks)<ul>${webhooks.map(tocEntry(prefix)).join('')}</ul></li>`);
    sections.push(`<h2 class="tag">Requests the Bank sends (webhooks)</h2><p>In full, with the Connector's answers, in the Connector's document below.</p>${webhooks.map(({ label, method, operation }) => operationSection(doc, prefix, label, method, operation)).join('')}`);
  }
  const schemas = Object.entries(((doc.components as JsonObject)?.schemas ?? {}) as Record<string, JsonObject>);
  tocItems.push(`<li><a href="#${prefix}-schemas">Schemas</a> (${schemas.length})</li>`);
  sections.push(
    `<h2 class="tag" id="${prefix}-schemas">Schemas</h2>${schemas
      .map(([name, schema]) => `<details class="schema" id="${prefix}-schema-${escapeHtml(name)}"><summary><code>${escapeHtml(name)}</code> ${escapeHtml(String(schema.title ?? ''))}</summary>${markdown(schema.description as string)}<pre>${prettyJson(prefix, schema)}</pre></details>`)
      .join('')}`,
  );
  const servers = ((doc.servers ?? []) as JsonObject[]).map((server) => `<li><code>${escapeHtml(String(server.url))}</code> ${escapeHtml(String(server.description ?? ''))}</li>`).join('');
  return {
    toc: `<li><a href="#${prefix}">${escapeHtml(heading)}</a><ul>${tocItems.join('')}</ul></li>`,
    body: `<article id="${prefix}"><h1>${escapeHtml(heading)}</h1><p class="meta">${escapeHtml(String(info.title))} ${escapeHtml(String(info.version))}. OpenAPI ${escapeHtml(String(doc.openapi))}: <a href="${escapeHtml(source)}">${escapeHtml(source)}</a></p>${markdown(info.summary as string)}${markdown(info.description as string)}<h4>Servers</h4><ul>${servers}</ul>${sections.join('\n')}</article>`,
  };
}

const STYLE = `
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#fff;display:flex}
nav{width:300px;flex:none;height:100vh;overflow:auto;position:sticky;top:0;background:#f4f6f9;border-right:1px solid #dde2ea;padding:12px;box-sizing:border-box;font-size:13px}
nav ul{list-style:none;padding-left:10px;margin:2px 0}nav a{text-decoration:none;color:#1d2330}nav a:hover{text-decoration:underline}
nav li li li{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}nav .method{min-width:44px;font-size:10px}td:first-child code{white-space:nowrap}
main{flex:1;min-width:0;padding:16px 32px;max-width:1100px}
h1{border-bottom:2px solid #1d2330;padding-bottom:4px}h2.tag{margin-top:36px;border-bottom:1px solid #dde2ea}
.operation{border:1px solid #dde2ea;border-radius:6px;padding:4px 16px 12px;margin:16px 0}
.method{display:inline-block;min-width:52px;text-align:center;border-radius:4px;color:#fff;font-size:12px;font-weight:700;padding:1px 6px;background:#555}
.method.get{background:#1f6feb}.method.post{background:#1a7f37}.method.patch{background:#9a6700}.method.delete{background:#cf222e}.method.put{background:#8250df}
.summary{font-weight:400;color:#4b5563}table{border-collapse:collapse;width:100%;margin:6px 0}td,th{border:1px solid #dde2ea;padding:4px 8px;vertical-align:top;text-align:left}
th{background:#f4f6f9}td p{margin:2px 0}.status{font-weight:700;width:48px}.status.ok{color:#1a7f37}.status.error{color:#cf222e}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}pre{background:#f6f8fa;border:1px solid #dde2ea;padding:8px;overflow:auto;border-radius:4px}
.media{margin:4px 0}.type{font-family:ui-monospace,monospace;background:#eef1f5;padding:0 4px;border-radius:3px}.header{font-size:13px;color:#4b5563}
.security{color:#4b5563;font-size:13px}.meta{color:#4b5563}details{margin:4px 0}summary{cursor:pointer}
@media (max-width:800px){body{display:block}nav{position:static;width:auto;height:auto;border-right:0;border-bottom:1px solid #dde2ea}main{padding:8px 12px}td,th{padding:3px 4px}}
`;

/** The page: a table of contents, then the Bank's document, then the Connector's. */
export function docsPage(bank: JsonObject, connector: JsonObject): string {
  const bankPart = documentSection(bank, 'bank', 'The Bank\'s API', '/openapi.json');
  const connectorPart = documentSection(connector, 'connector', 'What a Connector must serve', '/openapi/connector.json');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sandbox Bank API</title><style>${STYLE}</style></head>
<body><nav><strong>Sandbox Bank</strong><ul>${bankPart.toc}${connectorPart.toc}</ul></nav>
<main>${bankPart.body}${connectorPart.body}</main></body></html>
`;
}
