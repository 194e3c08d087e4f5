#!/usr/bin/env node
// The `novelrag` command: a thin launcher for the compiled CLI (apps/cli/dist). Works on Node >= 20.
'use strict';
const path = require('node:path');
const fs = require('node:fs');

const main = path.join(__dirname, '..', 'dist', 'main.js');
if (!fs.existsSync(main)) {
  process.stderr.write(`novelrag: ${main} is missing; build the workspace first (npm run build)\n`);
  process.exit(2);
}
require(main);
