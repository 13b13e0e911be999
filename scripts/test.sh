#!/bin/sh
# `npm test`: the type-check and every test (vitest), side by side. The type-check (about a minute of one core)
# overlaps the test run's start instead of delaying it; the command still fails when either fails. Arguments go to
# vitest (`npm test -- <file>`).
npm run -s typecheck &
typecheck=$!
vitest run "$@"
tests=$?
if ! wait "$typecheck"; then
  echo "npm test: the type-check failed (its errors are above)" >&2
  exit 1
fi
exit "$tests"
