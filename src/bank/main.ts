// Entry point of `npm start` and the Docker image: the Bank (server.ts), from the build's bundle and code cache when
// they are current (wire/fast-start.ts), else from dist/'s modules. FAST_START=off always loads the modules.
import path from 'node:path';
import { launch } from '../wire/fast-start';

launch(path.join(__dirname, 'server.js'), process.env.FAST_START !== 'off', () => require('./server'));
