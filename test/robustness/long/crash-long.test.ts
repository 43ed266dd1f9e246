// Long suite (`npm run test:long`): the crash scenario of test/outbound/crash.test.ts at 10,000 orders and 20
// SIGKILLs (CRASH_ORDERS / CRASH_KILLS still override).
import { defineCrashScenario } from '../../helpers/crash-scenario';

defineCrashScenario({ orders: Number(process.env.CRASH_ORDERS ?? 10_000), kills: Number(process.env.CRASH_KILLS ?? 20) });
