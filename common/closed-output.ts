/**
 * Output whose reader went away — `npm run jepsen … | head`, a CI log pipe that closed — must not end a run or turn
 * its verdict into a crash: a write to the closed pipe emits EPIPE on the stream, which with no listener became an
 * uncaught error, and the crash handler's own report then failed the same way, over and over (the harness spun at
 * full CPU and never exited). With this, what would still be printed is dropped; the run goes on, keeps its files
 * and exits with its own code. Nothing is lost that could be said: there is no one left to say it to.
 */
export function dropOutputWhenReaderCloses(streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr]) {
  for (const stream of streams) stream.on('error', () => {});
}
