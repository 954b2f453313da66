#!/usr/bin/env node
// Installed entry point: runs the compiled export command (`npm run build -w @partner-analytics/client` produces dist/).
import '../dist/export/main.js'
