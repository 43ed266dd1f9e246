// npm run demo: exits 0 only when every expected outcome happened.
import { runDemo } from './run';

runDemo({ log: (line) => console.log(`demo: ${line}`) }).then(
  (result) => {
    console.log('\nTimeline');
    for (const line of result.timeline) console.log(line);
    console.log('\nOutcomes');
    for (const check of result.checks) console.log(`${check.ok ? 'PASS' : 'FAIL'}  ${check.name}: ${check.detail}`);
    console.log(result.ok ? '\ndemo: every expected outcome happened' : '\ndemo: some expected outcomes did not happen');
    process.exit(result.ok ? 0 : 1);
  },
  (error: unknown) => {
    console.error(`demo failed: ${(error as Error).message}`);
    process.exit(1);
  },
);
