// Control plane, section 4: the journal of every exchange, in and out. Lists are summaries, newest first; one
// entry shows the masked request and response and a curl command that replays it.
import { ProblemError } from '../../wire/problems';
import { summaryView } from '../application/journal';
import { ControlArea } from './index';
import { decodeCursor, LIST_DEFAULT_LIMIT, LIST_QUERY, listPage, parseQuery, queryEnum, queryInstant, queryText, requestLog } from './http';

const isId = (value: unknown): value is number => Number.isSafeInteger(value);

export const journalArea: ControlArea = (router, deps) => {
  router.get('/journal', (req, res) => {
    const query = parseQuery(req, {
      ...LIST_QUERY,
      client_id: queryText,
      direction: queryEnum('in', 'out'),
      code: queryText,
      reference: queryText,
      path: queryText,
      since: queryInstant,
    });
    const limit = query.limit ?? LIST_DEFAULT_LIMIT;
    const rows = deps.journal.list(
      {
        clientId: query.client_id,
        direction: query.direction,
        code: query.code,
        reference: query.reference,
        path: query.path,
        since: query.since,
        beforeId: decodeCursor(query.cursor, isId),
      },
      limit + 1,
    );
    res.json(listPage(rows, limit, summaryView, (row) => row.id));
  });

  router.get('/journal/:id', (req, res) => {
    parseQuery(req, {});
    const raw = String(req.params.id);
    const entry = /^\d{1,15}$/.test(raw) ? deps.journal.entry(Number(raw)) : undefined;
    if (!entry) throw new ProblemError('not_found', `no journal entry "${raw}" (pruned, cleared, or never made)`);
    res.json(entry);
  });

  router.delete('/journal', (req, res) => {
    parseQuery(req, {});
    const deleted = deps.journal.clear();
    requestLog(deps.logger, res).info('journal cleared', { deleted });
    res.json({ deleted });
  });
};
