#!/usr/bin/env node
// npm run pki -- --client <id>: issues one more client certificate (CN = <id>) from the existing sandbox CA.
'use strict';
const path = require('node:path');
require('./build-if-needed.js');
const { issueOneClientCertificate } = require('../dist/bank/security/pki.js');

const index = process.argv.indexOf('--client');
const clientId = index > 0 ? process.argv[index + 1] : undefined;
if (!clientId || !/^[A-Za-z0-9._-]{1,64}$/.test(clientId)) {
  console.error('usage: npm run pki -- --client <client-id>   (PKI_DIR or DATA_DIR select the PKI, default ./data/pki)');
  process.exit(2);
}
const dir = process.env.PKI_DIR || path.join(process.env.DATA_DIR || './data', 'pki');
issueOneClientCertificate(dir, clientId).then(
  ({ cert, key, created }) => console.log(created ? `issued ${cert} and ${key}` : `${cert} already exists; left as it is`),
  (error) => {
    console.error(`pki: ${error.message}`);
    process.exit(1);
  },
);
