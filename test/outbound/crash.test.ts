// Kills the Bank (SIGKILL) at random moments during a pull+settle+callback run and restarts it each time.
// At the end every order has exactly one final at the Connector, never two different ones, and every
// redelivery reused its key and bytes. The scenario lives in test/helpers/crash-scenario.ts; the long suite
// runs it at 10,000 orders and 20 kills (test/robustness/long/crash-long.test.ts).
import { defineCrashScenario } from '../helpers/crash-scenario';

defineCrashScenario({ orders: Number(process.env.CRASH_ORDERS ?? 1000), kills: Number(process.env.CRASH_KILLS ?? 10) });
