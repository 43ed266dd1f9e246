// Step 5: X-Timestamp within ±TIMESTAMP_WINDOW_S of the Bank's clock.
import { parseTimestamp, withinWindow } from '../../../wire/freshness';
import { ProblemError } from '../../../wire/problems';
import { Step } from '../exchange';

export const checkTimestamp: Step = (exchange, services) => {
  const timestamp = exchange.header('x-timestamp') ?? '';
  const ms = parseTimestamp(timestamp);
  const windowS = services.config.timestampWindowS;
  if (ms === null || !withinWindow(ms, exchange.nowMs, windowS)) {
    throw new ProblemError('timestamp_out_of_window', `X-Timestamp ${timestamp} is more than ${windowS} s from the bank's clock (${new Date(exchange.nowMs).toISOString()})`);
  }
  exchange.timestampMs = ms;
};
