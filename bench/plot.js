#!/usr/bin/env node
// Issue 15's ratio goals across the recorded runs, as one SVG picture: the signed create and the status poll over
// the limit server (by throughput, which the goal is decided by, and by CPU side by side, which this machine's
// phases move less), the rows the specs require over the same limit server, and the unit callbacks a second
// against their absolute line. One point a run that measured the figure; the goal's line in red.
//   node bench/plot.js [--since=2026-11-28] [--out=bench/img/goals-by-run.svg] [--mark=<results file>=<text>]… [results files…]
// Without files it reads every bench/results/*.json of a full or partial `npm run bench` since --since (runs
// before 2026-11-26 had another yardstick, the express limit server as shipped).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { option } = require('./lib/args');
const { cpuRatio, throughputRows } = require('./lib/goals');

const RESULTS = path.join(__dirname, 'results');

/** bench/results/2026-11-28.json, then 2026-11-28-b.json, -c, …: the order the runs were made in. */
function runOrder(a, b) {
  const key = (file) => {
    const match = /(\d{4}-\d{2}-\d{2})(?:-([a-z]+))?\.json$/.exec(file);
    return match ? `${match[1]} ${(match[2] ?? '').padStart(3, ' ')}` : file;
  };
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}

/** `28-q` for bench/results/2026-11-28-q.json: short enough to label a point. */
function labelOf(file) {
  const match = /\d{4}-\d{2}-(\d{2})(?:-([a-z]+))?\.json$/.exec(file);
  return match ? `${match[1]}${match[2] ? `-${match[2]}` : ''}` : path.basename(file, '.json');
}

/** The Bank over the limit server by throughput (creates at c=20), null when the run did not measure both. */
function throughputRatio(results, flow) {
  const rows = throughputRows(results, flow);
  return rows ? rows.bank.rps / rows.limit.rps : null;
}

/**
 * The figures of one flow: throughput, CPU, the required rows (both over the limit server) and the Bank over them
 * (measured side by side; from the two ratios over the limit server when a run did not).
 */
function flowFigures(results, flow) {
  const cpu = cpuRatio(results, flow, 'bank');
  const required = cpuRatio(results, flow, 'required');
  const overRequired = cpuRatio(results, flow, 'bank', 'required') ?? (cpu !== null && required !== null ? cpu / required : null);
  return { throughput: throughputRatio(results, flow), cpu, required, overRequired };
}

/** What the picture shows of one run. */
function runOf(file, results) {
  const unit = (results.outbound ?? []).find((r) => r.mode === 'unit' && r.transport === 'mtls' && r.server === 'bank');
  return {
    file: path.basename(file),
    label: labelOf(file),
    /** The Bank's commit, recorded by runs since 2026-11-29 (session 38). */
    commit: results.commit ?? null,
    create: flowFigures(results, 'create'),
    status: flowFigures(results, 'status'),
    unit: unit ? unit.ordersPerS : null,
  };
}

/** The runs of `files` (or of bench/results since `since`) that measured at least one figure the picture shows. */
function runsOf(files, since) {
  const chosen = files.length > 0 ? files : fs.readdirSync(RESULTS).filter((name) => name.endsWith('.json') && name.slice(0, 10) >= since).map((name) => path.join(RESULTS, name));
  return [...chosen].sort(runOrder)
    .map((file) => runOf(file, JSON.parse(fs.readFileSync(file, 'utf8'))))
    .filter((run) => [run.create.throughput, run.create.cpu, run.status.throughput, run.status.cpu, run.unit].some((value) => value !== null));
}

const WIDTH = 960;
const PANEL_HEIGHT = 250;
const MARGIN = { left: 70, right: 230, top: 40, bottom: 46 };
const FONT = 'font-family="DejaVu Sans, Arial, sans-serif"';

const escapeXml = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A panel's y axis: from a round value below every point (and the line) to one above, `step` apart. */
function axisRange(values, line, step) {
  const all = [...values.filter((value) => value !== null), line];
  const low = Math.floor(Math.min(...all) / step) * step;
  const high = Math.ceil(Math.max(...all) / step) * step;
  return { low, high: high > low ? high : low + step };
}

/**
 * One panel: `series` ({name, color, dash, values}) over the runs, the goal's `line`, labelled ticks `step` apart,
 * and `marks` ({file, text}): a dashed rule just before that run. Points that a run did not measure are left out,
 * and the line between its neighbours is broken there.
 */
function panel({ title, runs, series, line, lineLabel, step, format, top, marks }) {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const { low, high } = axisRange(series.flatMap((one) => one.values), line, step);
  const x = (index) => MARGIN.left + (runs.length === 1 ? plotWidth / 2 : (index * plotWidth) / (runs.length - 1));
  const y = (value) => top + MARGIN.top + plotHeight - ((value - low) / (high - low)) * plotHeight;
  const parts = [`<text x="${MARGIN.left}" y="${top + 24}" ${FONT} font-size="15" font-weight="bold">${escapeXml(title)}</text>`];
  for (let tick = low; tick <= high + step / 1000; tick += step) {
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}" stroke="#e3e3e3"/>`);
    parts.push(`<text x="${MARGIN.left - 8}" y="${(y(tick) + 4).toFixed(1)}" ${FONT} font-size="11" text-anchor="end">${escapeXml(format(tick))}</text>`);
  }
  runs.forEach((run, index) => {
    parts.push(`<text transform="translate(${x(index).toFixed(1)},${top + PANEL_HEIGHT - MARGIN.bottom + 14}) rotate(45)" ${FONT} font-size="10">${escapeXml(run.label)}</text>`);
  });
  parts.push(`<line class="goal" x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y(line).toFixed(1)}" y2="${y(line).toFixed(1)}" stroke="#d62728" stroke-width="1.5"/>`);
  parts.push(`<text x="${MARGIN.left + 4}" y="${(y(line) - 5).toFixed(1)}" ${FONT} font-size="11" fill="#d62728">${escapeXml(lineLabel)}</text>`);
  for (const mark of marks) {
    const index = runs.findIndex((run) => run.file === mark.file);
    if (index < 0) continue;
    const at = (x(index) - (index > 0 ? (x(index) - x(index - 1)) / 2 : 0)).toFixed(1);
    parts.push(`<line class="mark" x1="${at}" x2="${at}" y1="${top + MARGIN.top}" y2="${top + MARGIN.top + plotHeight}" stroke="#555555" stroke-dasharray="3 3"/>`);
    parts.push(`<text x="${Number(at) + 4}" y="${top + MARGIN.top + plotHeight - 6}" ${FONT} font-size="10" fill="#555555">${escapeXml(mark.text)}</text>`);
  }
  series.forEach((one, position) => {
    const segments = [];
    let current = [];
    one.values.forEach((value, index) => {
      if (value === null) {
        if (current.length > 0) segments.push(current);
        current = [];
        return;
      }
      current.push(`${x(index).toFixed(1)},${y(value).toFixed(1)}`);
      parts.push(`<circle class="point" data-series="${escapeXml(one.name)}" data-run="${escapeXml(runs[index].file)}" data-value="${value.toFixed(4)}" cx="${x(index).toFixed(1)}" cy="${y(value).toFixed(1)}" r="3" fill="${one.color}"><title>${escapeXml(`${runs[index].file}${runs[index].commit ? ` (${runs[index].commit})` : ''}: ${one.name.replace('\n', ' ')} ${format(value)}`)}</title></circle>`);
    });
    if (current.length > 0) segments.push(current);
    for (const points of segments) {
      if (points.length > 1) parts.push(`<polyline points="${points.join(' ')}" fill="none" stroke="${one.color}" stroke-width="1.5"${one.dash ? ` stroke-dasharray="${one.dash}"` : ''}/>`);
    }
    const legendY = top + MARGIN.top + 8 + position * 34;
    parts.push(`<line x1="${MARGIN.left + plotWidth + 8}" x2="${MARGIN.left + plotWidth + 30}" y1="${legendY}" y2="${legendY}" stroke="${one.color}" stroke-width="2"${one.dash ? ` stroke-dasharray="${one.dash}"` : ''}/>`);
    one.name.split('\n').forEach((text, lineIndex) => {
      parts.push(`<text x="${MARGIN.left + plotWidth + 36}" y="${legendY + 4 + lineIndex * 13}" ${FONT} font-size="11">${escapeXml(text)}</text>`);
    });
  });
  return parts.join('\n');
}

const times = (value) => `${value.toFixed(2)}×`;
const perSecond = (value) => `${Math.round(value).toLocaleString('en-US')}/s`;

function ratioSeries(runs, flow) {
  return [
    { name: 'Bank ÷ limit server,\nthroughput (decides)', color: '#1f4e9c', values: runs.map((run) => run[flow].throughput) },
    { name: 'Bank ÷ limit server,\nCPU side by side', color: '#ff7f0e', dash: '6 4', values: runs.map((run) => run[flow].cpu) },
    { name: "specs' rows ÷ limit server,\nCPU (storage alone)", color: '#7f7f7f', dash: '2 3', values: runs.map((run) => run[flow].required) },
    { name: "Bank ÷ specs' rows,\nCPU (our own code)", color: '#2ca02c', values: runs.map((run) => run[flow].overRequired) },
  ];
}

/** The whole picture: create, status and unit callbacks, one panel each, over the same runs; `marks` on each. */
function svgOf(runs, marks = []) {
  const panels = [
    panel({ title: 'Signed create, c=20: ratios (higher is better)', runs, series: ratioSeries(runs, 'create'), line: 0.8, lineLabel: 'goal 0.8×', step: 0.1, format: times, top: 0, marks }),
    panel({ title: 'Status poll, c=20: ratios (higher is better)', runs, series: ratioSeries(runs, 'status'), line: 0.8, lineLabel: 'goal 0.8×', step: 0.1, format: times, top: PANEL_HEIGHT, marks }),
    panel({ title: 'Unit callbacks over keep-alive mTLS', runs, series: [{ name: 'the Bank, orders a second', color: '#1f4e9c', values: runs.map((run) => run.unit) }], line: 3000, lineLabel: 'goal 3,000/s', step: 500, format: perSecond, top: 2 * PANEL_HEIGHT, marks }),
  ];
  const height = 3 * PANEL_HEIGHT + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">
<rect width="100%" height="100%" fill="#ffffff"/>
${panels.join('\n')}
</svg>
`;
}

/** `--mark=2026-11-28-o.json=text`, as often as wanted: a dashed rule before that run, with the text beside it. */
function marksOf(argv) {
  return argv.filter((arg) => arg.startsWith('--mark=')).map((arg) => {
    const [file, ...text] = arg.slice('--mark='.length).split('=');
    return { file, text: text.join('=') };
  });
}

function main() {
  const files = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  const out = path.resolve(option('out', path.join(__dirname, 'img', 'goals-by-run.svg')));
  const runs = runsOf(files, option('since', '2026-11-28'));
  if (runs.length === 0) {
    console.error('no run with a figure of these goals');
    process.exit(1);
  }
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, svgOf(runs, marksOf(process.argv)));
  console.log(`${runs.length} runs (${runs[0].file} to ${runs[runs.length - 1].file}) -> ${path.relative(process.cwd(), out)}`);
}

if (require.main === module) main();

module.exports = { runsOf, runOf, svgOf, runOrder, labelOf, marksOf };
