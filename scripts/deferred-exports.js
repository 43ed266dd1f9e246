// Start-up work of three packages that a start never uses, deferred by the bundle until first use (issue 15).
//   mime-types  builds its extension <-> type maps when loaded: every type of mime-db scored (~8 ms of a start's
//               profile).
//               Only lookups by extension or short name (res.type('html'), req.is('json')) read them; the
//               Content-Type of a JSON answer needs mime-db alone.
//   express     reads body-parser's four parsers and requires serve-static when loaded, for its own exports.
//   body-parser requires its four parsers when loaded (qs, iconv-lite, zlib ... with them).
// Each export becomes a getter that loads it, then turns back into the plain property it was: the same values, the
// same code, only later. The bundler applies them (scripts/bundle.js) to the exact text below; a package whose text
// differs (another version) is bundled as it is, and the build says so. test/unit/deferred-exports.test.ts loads each
// patched file beside the original and compares what they export.
'use strict';
const fs = require('node:fs');

/** Defines `name` on `target` as a getter that calls `load` once and then becomes a plain property. */
const LAZY_HELPER = `function deferExport (target, name, load) {
  function settle (value) {
    Object.defineProperty(target, name, { value: value, writable: true, enumerable: true, configurable: true })
    return value
  }
  Object.defineProperty(target, name, {
    enumerable: true,
    configurable: true,
    get: function () { return settle(load()) },
    set: settle
  })
}
`;

const DEFERRED = [
  {
    file: 'mime-types/index.js',
    find: `exports.extensions = Object.create(null)
exports.lookup = lookup
exports.types = Object.create(null)
exports._extensionConflicts = []

// Populate the extensions/types maps
populateMaps(exports.extensions, exports.types)
`,
    // The first read of any of the three maps builds all three, as loading did. A map replaced before that stays
    // replaced, as it would have been replaced after loading.
    replace: `deferMaps('extensions')
exports.lookup = lookup
deferMaps('types')
deferMaps('_extensionConflicts')

function deferMaps (name) {
  deferExport(exports, name, function () {
    var names = ['extensions', 'types', '_extensionConflicts']
    var replaced = {}
    names.forEach(function (one) {
      if (typeof Object.getOwnPropertyDescriptor(exports, one).get !== 'function') replaced[one] = exports[one]
    })
    exports.extensions = Object.create(null)
    exports.types = Object.create(null)
    exports._extensionConflicts = []
    populateMaps(exports.extensions, exports.types)
    Object.keys(replaced).forEach(function (one) { exports[one] = replaced[one] })
    return exports[name]
  })
}
${LAZY_HELPER}`,
  },
  {
    file: 'express/lib/express.js',
    find: `exports.json = bodyParser.json
exports.raw = bodyParser.raw
exports.static = require('serve-static');
exports.text = bodyParser.text
exports.urlencoded = bodyParser.urlencoded
`,
    replace: `deferExport(exports, 'json', function () { return bodyParser.json })
deferExport(exports, 'raw', function () { return bodyParser.raw })
deferExport(exports, 'static', function () { return require('serve-static') })
deferExport(exports, 'text', function () { return bodyParser.text })
deferExport(exports, 'urlencoded', function () { return bodyParser.urlencoded })
${LAZY_HELPER}`,
  },
  {
    file: 'body-parser/index.js',
    find: `exports.json = require('./lib/types/json')

/**
 * Raw parser.
 * @public
 */
exports.raw = require('./lib/types/raw')

/**
 * Text parser.
 * @public
 */
exports.text = require('./lib/types/text')

/**
 * URL-encoded parser.
 * @public
 */
exports.urlencoded = require('./lib/types/urlencoded')
`,
    replace: `deferExport(exports, 'json', function () { return require('./lib/types/json') })
deferExport(exports, 'raw', function () { return require('./lib/types/raw') })
deferExport(exports, 'text', function () { return require('./lib/types/text') })
deferExport(exports, 'urlencoded', function () { return require('./lib/types/urlencoded') })
${LAZY_HELPER}`,
  },
];

/** The deferral for a file under node_modules (a path with / or \), or undefined. */
function deferralFor(file) {
  const normalized = file.split('\\').join('/');
  return DEFERRED.find((one) => normalized.endsWith(`/node_modules/${one.file}`));
}

/** `source` with its deferral applied, or null when its text is not the one the deferral was written for. */
function applyDeferral(deferral, source) {
  const text = source.split('\r\n').join('\n');
  const at = text.indexOf(deferral.find);
  if (at < 0 || text.indexOf(deferral.find, at + 1) >= 0) return null;
  return text.slice(0, at) + deferral.replace + text.slice(at + deferral.find.length);
}

/** The esbuild plugin; `warn` hears of each package left as it is. */
function deferredExportsPlugin(warn) {
  const packages = [...new Set(DEFERRED.map((deferral) => deferral.file.split('/')[0]))];
  const filter = new RegExp(`[\\\\/]node_modules[\\\\/](${packages.join('|')})[\\\\/]`);
  return {
    name: 'deferred-exports',
    setup(build) {
      build.onLoad({ filter }, (args) => {
        const deferral = deferralFor(args.path);
        if (!deferral) return undefined;
        const contents = applyDeferral(deferral, fs.readFileSync(args.path, 'utf8'));
        if (contents === null) {
          warn(`${deferral.file} is not the text this build knows (another version?): bundled as it is, its exports load at start`);
          return undefined;
        }
        return { contents, loader: 'js' };
      });
    },
  };
}

module.exports = { DEFERRED, deferralFor, applyDeferral, deferredExportsPlugin };
