import { faultFacts } from '../faults/catalogue.ts';
import { describeSignature } from '../checkers/failure-signature.ts';
import { CLI } from '../common/cli-name.ts';
import { BUNDLE_FILES, type BundleJson } from './bundle-format.ts';

/**
 * A bundle's README.md: the failure's story in words (what the lock maintainer asks for: "translate the failure into
 * something any person can understand"), the one command that replays it, and what the folder holds. Pure.
 */
export function bundleReadme(
  b: BundleJson,
  steps: readonly string[],
  story: readonly { says: string; evidence: string }[],
  windowOps: number,
): string {
  const fault = b.signature.story;
  const facts = fault ? faultFacts(fault) : null;
  const storyLines = story.map((s, i) => {
    const says = facts?.story?.find((st) => st.id === s.says)?.says ?? s.says;
    return `${i + 1}. ${says} — ${s.evidence}`;
  });
  const lockLine =
    b.lock.kind === 'builtin' ? `the built-in lock \`${b.lock.name}\`` : `the lock carried in \`${b.lock.file}\``;
  const versions = Object.entries(b.versions)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return `# ${b.lock.name}: ${b.signature.anomaly}${fault ? ` under ${fault}` : ''}

fencepost ${b.createdBy} found this in a run of ${lockLine} on ${b.run.startedAt ?? 'an unknown date'}: **${b.description}** (${describeSignature(b.signature)}).

## What happened
${storyLines.length ? `\nThe run's history, step by step (${fault}: ${facts?.help ?? ''}):\n\n${storyLines.join('\n')}\n` : `\nNo fault of the run told a whole story around it: the clients' own operations made it (see \`${BUNDLE_FILES.window}\`).\n`}
## Replay it

From this folder — in a checkout of fencepost, or a project that installed it (\`npm install fencepost\`) — with the servers it needs on this machine:

    ${CLI} replay .

It runs the scripted story (\`${BUNDLE_FILES.scenario}\`) ${10} times against fresh local servers, each step started once the
history shows the one before it complete, and reports how often it fails the same way — "fails k/n (Wilson 95 %: …)",
runs that could not follow their script counted apart. Every run gets its own report.

The script:

${steps.map((s, i) => `${String(i + 1).padStart(2)}. ${s}`).join('\n')}

The original free-running run can be replayed too (same fault schedule, not the same interleaving):
\`${CLI} ${b.run.argv.join(' ')}${b.run.seed !== null ? ` --seed=${b.run.seed}` : ''}\`

## In this folder

- \`${BUNDLE_FILES.bundle}\` — the failure's signature, the lock, the original run's options, seed and versions
- \`${BUNDLE_FILES.scenario}\` — the story above as a scenario file (\`${CLI} --scenario=${BUNDLE_FILES.scenario}\` runs it once)
- \`${BUNDLE_FILES.window}\` — the failing window of the original history (${windowOps} operations)
${b.lock.kind === 'builtin' ? '' : `- \`${BUNDLE_FILES.lock}/\` — the lock under test\n`}
Versions of the original run: ${versions || 'not recorded'}. Machine: ${b.machine.cores} cores, ${b.machine.platform}, Node ${b.machine.node}, ${b.machine.backend} backend.
No secret of the run is in this bundle (checked when it was written): its passwords stayed in its own folder; a replay makes new ones.
Only the lock's code was copied; a file its command merely names (data, configuration, credentials) was not.
`;
}
