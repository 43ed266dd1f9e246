// Child-process tests run dist/; build it first when src/ is newer.
module.exports = async () => {
  require('../scripts/build-if-needed.js');
};
