/* global module, process */
// `node:http` for the Lambda bundles (infra/bundling.ts aliases it here): the module itself, not
// its ES facade, whose construction reads every export and so loads Node's internal undici.
module.exports = process.getBuiltinModule('node:http');
