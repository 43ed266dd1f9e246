// A strict reader of the Prometheus text exposition format 0.0.4, for the /metrics tests: every line is a
// `# HELP`, a `# TYPE`, empty, or a sample `name{label="value",...} value`; a sample belongs to a declared family
// (a histogram's `_bucket`, `_sum` and `_count` to theirs); label values use only the format's escapes. Anything
// else throws, naming the line.

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, MetricType>;
  help: Map<string, string>;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL_NAME = '[a-zA-Z_][a-zA-Z0-9_]*';
const LABEL_VALUE = '"(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const LABEL = `${LABEL_NAME}=${LABEL_VALUE}`;
// Prometheus reads values with Go's strconv.ParseFloat, which takes Inf and NaN in any case: prom-client writes
// `Nan` for a gauge not yet measured (the event loop lag before its first sample).
const VALUE = '[+-]?(?:[iI][nN][fF]|[nN][aA][nN]|(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*,?)?\\})? (${VALUE})(?: -?\\d+)?$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const HELP = new RegExp(`^# HELP (${NAME}) (.*)$`);
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];
const SUMMARY_SUFFIXES = ['_sum', '_count'];

function unescape(value: string): string {
  return value.slice(1, -1).replace(/\\(.)/g, (_all, char: string) => (char === 'n' ? '\n' : char));
}

function parseLabels(text: string | undefined, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  if (!text) return labels;
  for (const match of text.matchAll(new RegExp(`(${LABEL_NAME})=(${LABEL_VALUE})`, 'g'))) {
    if (match[1] in labels) throw new Error(`label ${match[1]} twice: ${line}`);
    labels[match[1]] = unescape(match[2]);
  }
  return labels;
}

function parseValue(text: string): number {
  if (/^[+]?inf$/i.test(text)) return Infinity;
  if (/^-inf$/i.test(text)) return -Infinity;
  if (/nan$/i.test(text)) return NaN;
  return Number(text);
}

/** The family a sample name belongs to, given the declared types. */
function familyOf(name: string, types: Map<string, MetricType>): string | undefined {
  if (types.has(name)) return name;
  for (const [family, type] of types) {
    const suffixes = type === 'histogram' ? HISTOGRAM_SUFFIXES : type === 'summary' ? SUMMARY_SUFFIXES : [];
    if (suffixes.some((suffix) => name === family + suffix)) return family;
  }
  return undefined;
}

export function parsePrometheusText(text: string): Exposition {
  const exposition: Exposition = { types: new Map(), help: new Map(), samples: [] };
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = TYPE.exec(line);
      const help = HELP.exec(line);
      if (type) {
        if (exposition.types.has(type[1])) throw new Error(`TYPE of ${type[1]} twice`);
        exposition.types.set(type[1], type[2] as MetricType);
      } else if (help) exposition.help.set(help[1], help[2]);
      else throw new Error(`a comment that is neither HELP nor TYPE: ${line}`);
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    if (!familyOf(sample[1], exposition.types)) throw new Error(`sample of an undeclared metric: ${line}`);
    exposition.samples.push({ name: sample[1], labels: parseLabels(sample[2], line), value: parseValue(sample[3]) });
  }
  return exposition;
}

/** The value of the one sample named `name` whose labels include `labels` (0 when there is none). */
export function valueOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  const matching = exposition.samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (matching.length > 1) throw new Error(`${matching.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matching[0]?.value ?? 0;
}

/** The sum over every sample named `name` whose labels include `labels`. */
export function sumOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  return exposition.samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((total, sample) => total + sample.value, 0);
}
