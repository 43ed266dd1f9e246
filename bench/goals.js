#!/usr/bin/env node
// Issue 15's goals as one earlier run measured them: node bench/goals.js bench/results/<run>.json
// (npm run bench prints the same table at the end of each run and keeps it in the results as `goals`).
'use strict';
const fs = require('node:fs');
const { goalsOf, printGoals } = require('./lib/goals');

const file = process.argv[2];
if (!file) {
  console.error('usage: node bench/goals.js <bench/results/file.json>');
  process.exit(2);
}
const results = JSON.parse(fs.readFileSync(file, 'utf8'));
const goals = goalsOf(results);
if (goals.length === 0) console.log(`${file}: no figure of issue 15's goals in this run`);
printGoals(goals);
