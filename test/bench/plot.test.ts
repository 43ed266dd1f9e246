// bench/plot.js draws issue 15's ratio goals across runs (bench/README.md shows its picture). Checked on runs written
// here: each run's point at the ratio its results give, the order the runs were made in, a run without a figure
// left out of that line only, and the goal lines where the goals put them.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { runsOf, svgOf, runOrder, marksOf } = require('../../bench/plot');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { BANK_CREATE, LIMIT, REQUIRED_ROWS } = require('../../bench/lib/goals');

const PLOT = path.resolve(__dirname, '../../bench/plot.js');

interface Point { series: string; run: string; value: number; cy: number }

/** A run's results as bench/run.js writes them, with only what the picture reads. */
function results(o: { create: number; createCpu?: number; requiredCpu?: number; overRequiredCpu?: number; status?: number; unit?: number }) {
  const cpu = [];
  // cpuSideBySide holds B's CPU a request over A's: the ratio read as throughput is its inverse.
  if (o.createCpu !== undefined) cpu.push({ flow: 'create', a: 'limit', b: 'bank', medianRatio: 1 / o.createCpu });
  if (o.requiredCpu !== undefined) cpu.push({ flow: 'create', a: 'limit', b: 'required', medianRatio: 1 / o.requiredCpu });
  if (o.overRequiredCpu !== undefined) cpu.push({ flow: 'create', a: 'required', b: 'bank', medianRatio: 1 / o.overRequiredCpu });
  return {
    throughput: [
      { name: BANK_CREATE, connections: 20, rps: 4000 * o.create },
      { name: LIMIT, connections: 20, rps: 4000 },
      { name: REQUIRED_ROWS, connections: 20, rps: 3400 },
      { name: BANK_CREATE, connections: 100, rps: 1 },
    ],
    ...(o.status === undefined ? {} : { status: { rps: 5000 * o.status, limits: [{ name: LIMIT, rps: 5000 }] } }),
    cpuSideBySide: cpu,
    outbound: o.unit === undefined ? [] : [{ mode: 'unit', transport: 'mtls', server: 'bank', ordersPerS: o.unit }, { mode: 'unit', transport: 'mtls', server: 'limit', ordersPerS: 5000 }],
  };
}

function writeRuns(runs: Record<string, object>): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plot-test-'));
  return Object.entries(runs).map(([name, content]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, JSON.stringify(content));
    return file;
  });
}

function pointsOf(svg: string): Point[] {
  return [...svg.matchAll(/<circle class="point" data-series="([^"]+)" data-run="([^"]+)" data-value="([^"]+)" cx="[^"]+" cy="([^"]+)"/g)]
    .map(([, series, run, value, cy]) => ({ series, run, value: Number(value), cy: Number(cy) }));
}

const THROUGHPUT = 'Bank ÷ limit server,\nthroughput (decides)';

describe('bench/plot.js', () => {
  it('orders runs as they were made: a day\'s first file, then -b, -c, … -z, -aa', () => {
    const files = ['2026-11-29-b.json', '2026-11-28-q.json', '2026-11-29.json', '2026-11-28-aa.json', '2026-11-28.json'];
    expect([...files].sort(runOrder)).toEqual(['2026-11-28.json', '2026-11-28-q.json', '2026-11-28-aa.json', '2026-11-29.json', '2026-11-29-b.json']);
  });

  it('puts each run\'s point at the ratio its results give, and the goal line at 0.8', () => {
    const files = writeRuns({
      '2026-11-28.json': results({ create: 0.7, createCpu: 0.72, requiredCpu: 0.9, unit: 2800 }),
      '2026-11-28-b.json': results({ create: 0.85, status: 0.9, unit: 3200 }),
      '2026-11-28-c.json': { startup: [] },
      '2026-11-28-d.json': results({ create: 0.75, createCpu: 0.72, requiredCpu: 0.9, overRequiredCpu: 0.93 }),
    });
    const runs = runsOf(files, '2000-01-01');
    expect(runs.map((run: { label: string }) => run.label)).toEqual(['28', '28-b', '28-d']);
    // The Bank over the specs' rows: from the two ratios over the limit server, unless the run measured it side by side.
    expect(runs[0].create).toEqual({ throughput: 0.7, cpu: expect.closeTo(0.72, 10), required: expect.closeTo(0.9, 10), overRequired: expect.closeTo(0.8, 10) });
    expect(runs[1].create).toEqual({ throughput: 0.85, cpu: null, required: null, overRequired: null });
    expect(runs[2].create.overRequired).toBeCloseTo(0.93, 10);

    const svg = svgOf(runs);
    const points = pointsOf(svg);
    const create = points.filter((point) => point.series === THROUGHPUT).slice(0, 2);
    expect(create.map((point) => [path.basename(point.run), point.value])).toEqual([['2026-11-28.json', 0.7], ['2026-11-28-b.json', 0.85]]);
    expect(svg.match(/<polyline /g)?.length).toBeGreaterThan(0);
    // Higher is higher on the page: a smaller y.
    expect(create[1].cy).toBeLessThan(create[0].cy);
    // The status line has one point: the first run measured no status.
    expect(points.filter((point) => point.series === THROUGHPUT).map((point) => point.value)).toEqual([0.7, 0.85, 0.75, 0.9]);
    expect(points.filter((point) => point.series === 'the Bank, orders a second').map((point) => point.value)).toEqual([2800, 3200]);
    expect(svg).toContain('goal 0.8×');
    expect(svg).toContain('goal 3,000/s');
    // The goal line sits between the two create points, 0.7 below it and 0.85 above.
    const goalY = Number(/<line class="goal" x1="[^"]+" x2="[^"]+" y1="([^"]+)"/.exec(svg)?.[1]);
    expect(goalY).toBeLessThan(create[0].cy);
    expect(goalY).toBeGreaterThan(create[1].cy);
  });

  it('draws a mark before the run it names, on each panel', () => {
    const files = writeRuns({ '2026-11-28.json': results({ create: 0.7, unit: 2800 }), '2026-11-28-b.json': results({ create: 0.8, unit: 3100 }) });
    const svg = svgOf(runsOf(files, '2000-01-01'), marksOf(['node', 'plot.js', '--mark=2026-11-28-b.json=from here: a=b']));
    expect(svg.match(/<line class="mark" /g)).toHaveLength(3);
    expect(svg).toContain('from here: a=b');
    const points = pointsOf(svg).filter((point) => point.series === THROUGHPUT);
    const markX = Number(/<line class="mark" x1="([^"]+)"/.exec(svg)?.[1]);
    const xOf = (run: string) => Number(new RegExp(`data-run="${run}" data-value="[^"]+" cx="([^"]+)"`).exec(svg)?.[1]);
    expect(points).toHaveLength(2);
    expect(markX).toBeGreaterThan(xOf('2026-11-28.json'));
    expect(markX).toBeLessThan(xOf('2026-11-28-b.json'));
  });

  it('bench/README.md shows the picture of the runs recorded in bench/results (redraw it with the command there)', () => {
    const readme = fs.readFileSync(path.resolve(__dirname, '../../bench/README.md'), 'utf8');
    const command = /`node bench\/plot\.js --mark=(\S+?)='([^']+)'`/.exec(readme);
    expect(command).not.toBeNull();
    const [, file, text] = command as RegExpExecArray;
    const drawn = svgOf(runsOf([], '2026-11-28'), [{ file, text }]);
    const shown = fs.readFileSync(path.resolve(__dirname, '../../bench/img/goals-by-run.svg'), 'utf8');
    // A new results file without a redrawn picture fails here: run the command the README gives.
    expect(shown === drawn ? 'current' : `stale: run node bench/plot.js --mark=${file}='${text}'`).toBe('current');
  });

  it('writes the picture where --out says, and refuses files that hold no figure', async () => {
    const [good, empty] = writeRuns({ '2026-11-28.json': results({ create: 0.8 }), '2026-11-29.json': { startup: [] } });
    const out = path.join(path.dirname(good), 'out', 'goals.svg');
    const { stdout } = await promisify(execFile)(process.execPath, [PLOT, `--out=${out}`, good]);
    expect(stdout).toContain('1 runs');
    expect(fs.readFileSync(out, 'utf8')).toMatch(/^<svg /);
    await expect(promisify(execFile)(process.execPath, [PLOT, `--out=${out}`, empty])).rejects.toMatchObject({ stderr: expect.stringContaining('no run with a figure') });
  });
});
