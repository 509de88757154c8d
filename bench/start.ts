// The start of `tidy`: what a user waits for on every command (and what every CLI test pays per spawn).
// Median wall time and CPU time (user + system) of three commands against a small database, each run as a
// fresh process of the built CLI (run `npm run build:cli` first), beside a bare `node -e 0` as the floor.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TIDY_BIN } from '../test/support/cli';
import { report } from './util';

const RUNS = 9;

/** Preloaded into each run: its CPU time (the whole process, start included) on stderr as it exits. */
const CPU_AT_EXIT = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\ncpu-us '+(u.user+u.system)+'\\n')})`;

const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median wall and CPU milliseconds of RUNS runs of `node args`. */
function startTime(args: string[]): { wall: number; cpu: number } {
  const walls: number[] = [];
  const cpuTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [`--import=${CPU_AT_EXIT}`, ...args], { encoding: 'utf8' });
    walls.push(performance.now() - t0);
    const cpu = /cpu-us (\d+)/.exec(r.stderr)?.[1];
    if (r.status !== 0 || !cpu) throw new Error(`node ${args.join(' ')} failed: ${r.stderr}`);
    cpuTimes.push(Number(cpu) / 1000);
  }
  return { wall: med(walls), cpu: med(cpuTimes) };
}

export async function benchStart(): Promise<void> {
  console.log(`tidy start (${RUNS} runs each, median; load ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores)`);
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-start-'));
  try {
    const db = join(dir, 'tidy.db');
    spawnSync(process.execPath, [TIDY_BIN, '--db', db, 'add', 'Buy milk']);
    const floor = startTime(['-e', '0']);
    report('node -e 0 (the floor): wall', floor.wall, 'ms');
    report('node -e 0 (the floor): CPU', floor.cpu, 'ms');
    for (const args of [['--version'], ['--db', db, 'tasks'], ['--db', db, 'add', 'Call mum']]) {
      const t = startTime([TIDY_BIN, ...args]);
      const name = `tidy ${args.filter((a) => a !== db && a !== '--db').join(' ')}`;
      report(`${name}: wall`, t.wall, 'ms', { max: 200, label: '200 ms on a quiet core' });
      report(`${name}: CPU`, t.cpu, 'ms');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
