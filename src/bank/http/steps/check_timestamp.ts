// Step 5: X-Timestamp within ±TIMESTAMP_WINDOW_S of the Bank's clock.
import { parseTimestamp, withinWindow } from '../../../wire/freshness';
import { ProblemError } from '../../../wire/problems';
import { formatInstant } from '../../../wire/rfc3339';
import { Step } from '../exchange';

export const checkTimestamp: Step = (exchange, services) => {
  const timestamp = exchange.header('x-timestamp') ?? '';
  const ms = parseTimestamp(timestamp);
  const windowS = services.config.timestampWindowS;
  if (ms === null || !withinWindow(ms, exchange.nowMs, windowS)) {
    const bankTime = formatInstant(exchange.nowMs);
    throw new ProblemError('timestamp_out_of_window', `X-Timestamp ${timestamp} is more than ${windowS} s from the bank's clock (${bankTime})`, {
      extensions: { bank_time: bankTime, window_s: windowS },
    });
  }
  exchange.timestampMs = ms;
};
