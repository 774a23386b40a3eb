#!/usr/bin/env node
// `npx fencepost …`: the same CLI as `npm run jepsen -- …`, in this process. fencepost ships its TypeScript
// sources and runs them through tsx (a dependency of the package), registered here before the CLI is imported —
// what `node --import tsx cli.ts` does in the repository — so there is no build step and no second copy
// to drift; stack traces point at the .ts lines. In-process rather than a child `node`, so signals, the exit code
// and the parent-pid watch reach the harness itself. Both hooks: a plugin may be ESM (.ts, .mjs, .js) or CommonJS.
import { register as registerEsm } from 'tsx/esm/api';
import { register as registerCjs } from 'tsx/cjs/api';

registerEsm();
registerCjs();
await import('../cli.ts');
