// A reporter beside the spec one (scripts/test.mjs): each test file's own time, from its process's
// start to its end as the runner measured it, written as "seconds<TAB>file" lines, so that the run
// can name its slowest files.
export default async function* timing(source) {
  for await (const event of source) {
    const { data } = event;
    // The runner reports each file as a test of its own, named by its path, at the top level.
    if (event.type === 'test:complete' && data.nesting === 0 && data.file && data.name === data.file) {
      yield `${(data.details.duration_ms / 1000).toFixed(1)}\t${data.file}\n`;
    }
  }
}
