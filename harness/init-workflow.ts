import fs from 'node:fs';
import path from 'node:path';

/**
 * The CI workflow `fencepost init` writes, and what the user must change before it can run in CI.
 *
 * It is a plain workflow of `run:` steps around fencepost as the project's own package.json installs it (`npm ci`),
 * with only actions GitHub publishes: it used to call fencepost's reusable workflow at a tag nobody had published,
 * and `npm ci` could not install the `file:` tarball outside the repository that the README's path leaves in
 * package.json — a first night that went red for reasons the user had to debug. Every step is a command that runs
 * the same way on a laptop.
 */
export const INIT_WORKFLOW = '.github/workflows/fencepost-nightly.yml';

export function workflow(expectations: string): string {
  const file = path.basename(INIT_WORKFLOW);
  return `# fencepost's nightly chaos job on your locks (node_modules/fencepost/docs/nightly.md): the cells of
# ${expectations}, run by the fencepost your package.json installs, compared with the last successful night.
# To change: the time (cron, UTC), --time-limit (seconds each run's clients run), node-version.
name: fencepost-nightly

on:
  schedule:
    - cron: '17 3 * * *'
  workflow_dispatch:

permissions:
  contents: read
  actions: read

jobs:
  nightly:
    runs-on: ubuntu-24.04
    timeout-minutes: 60
    steps:
      - uses: actions/checkout@v4.2.2
      - uses: actions/setup-node@v4.4.0
        with:
          node-version: '20'
          cache: npm
      - name: Install your dependencies (fencepost among them)
        run: npm ci --no-audit --no-fund
      - name: Install the servers (fencepost doctor, as root, installs what is missing with apt and boots each once)
        run: sudo env "PATH=$PATH" npx --no-install fencepost doctor --results="$(sudo mktemp -d)"
      - name: The last successful night, as the baseline (the first night has none)
        env:
          GH_TOKEN: \${{ github.token }}
          GH_REPO: \${{ github.repository }}
        run: |
          night=$(gh run list --workflow ${file} --status success --limit 1 --json databaseId --jq '.[0].databaseId // empty')
          if [ -n "$night" ] && gh run download "$night" --name fencepost-nightly --dir baseline; then
            echo "baseline: the night of run $night"
          else
            echo "no baseline yet: tonight's night becomes one if it passes"
          fi
      - name: fencepost nightly
        run: |
          baseline=()
          if [ -f baseline/nightly.json ]; then baseline=(--baseline=baseline); fi
          npx --no-install fencepost nightly --cells=expectations --expectations=${expectations} \\
            --time-limit=10 --results=fencepost-results "\${baseline[@]}"
      - name: Stop leftovers
        if: always()
        run: npx --no-install fencepost cleanup --results=fencepost-results
      - uses: actions/upload-artifact@v4.6.2
        if: always()
        with:
          name: fencepost-nightly
          path: fencepost-results/
          retention-days: 30
`;
}

/** Where fencepost comes from in a package.json, or null when it does not list it. */
function fencepostSpec(dir: string): string | null {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    return pkg.devDependencies?.fencepost ?? pkg.dependencies?.fencepost ?? null;
  } catch {
    return null;
  }
}

/** `p` as the user would type it where they stand (`cwd`). */
function fromHere(p: string, cwd: string): string {
  const rel = path.relative(cwd, p) || '.';
  return rel.startsWith('.') || path.isAbsolute(rel) ? rel : `./${rel}`;
}

/**
 * What to change before the workflow is pushed, as lines to print: the workflow runs `npm ci`, so fencepost must be
 * in package.json in a form CI can fetch, and package-lock.json must be committed. `version` names the tarball
 * `npm pack` makes of a folder install.
 */
export function ciHints(dir: string, version: string, cwd: string = process.cwd()): string[] {
  const spec = fencepostSpec(dir);
  const lock = fs.existsSync(path.join(dir, 'package-lock.json'))
    ? []
    : [`  commit package-lock.json (npm install writes it): the workflow installs with npm ci, which needs it`];
  const vendor = fromHere(path.join(dir, 'vendor'), cwd);
  if (spec === null)
    return [
      '',
      `before you push ${INIT_WORKFLOW}: it runs the fencepost package.json installs, and package.json lists none:`,
      '  npm install -D fencepost   (or, until it is on npm, a tarball kept inside this repository)',
      ...lock,
    ];
  const local = /^file:(.*)$/.exec(spec);
  const target = local ? path.resolve(dir, local[1]) : null;
  const inside =
    target !== null && !path.relative(dir, target).startsWith('..') && !path.isAbsolute(path.relative(dir, target));
  if (target === null || inside) return lock.length ? ['', `before you push ${INIT_WORKFLOW}:`, ...lock] : [];
  const packed = target.endsWith('.tgz');
  const tgz = `${vendor}/${packed ? path.basename(target) : `fencepost-${version}.tgz`}`;
  const copy = packed
    ? `cp ${fromHere(target, cwd)} ${vendor}/`
    : `npm pack ${fromHere(target, cwd)} --pack-destination ${vendor}`;
  return [
    '',
    `before you push ${INIT_WORKFLOW}: package.json installs fencepost from ${spec},`,
    "outside this repository, so CI's npm ci cannot fetch it. Keep the tarball in the repository and install it:",
    `  mkdir -p ${vendor} && ${copy} && npm install -D ${tgz}`,
    `  then commit ${vendor}/ with package.json and package-lock.json (once fencepost is on npm: npm install -D fencepost)`,
    ...lock,
  ];
}
