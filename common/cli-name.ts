/**
 * How the user runs the CLI, for the lines fencepost prints for them to type (help, hints, the replay command):
 * `npx fencepost` from a project that installed the package, `npm run jepsen --` in fencepost's own repository.
 * Decided by where this file lives — an installed package sits under a `node_modules` folder — so a replay line
 * copied from a report runs where the report was made.
 */
export const CLI = /\/node_modules\//.test(import.meta.url) ? 'npx fencepost' : 'npm run jepsen --';
