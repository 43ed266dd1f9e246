// The floor: a bare express hello-world, started and measured exactly like the Bank.
'use strict';
const express = require('express');
const app = express();
app.get('/', (_req, res) => res.json({ hello: 'world' }));
app.post('/payment-orders', (_req, res) => res.json({ hello: 'world' }));
app.listen(Number(process.env.PORT || 3000), '127.0.0.1');
