// V8 settings of the server process, applied before anything else is loaded.
//
// Allocation-site pretenuring off: V8 learns which allocation sites tend to make long-lived
// objects and allocates their later objects straight in the old generation, which only a full
// collection frees. During a long export, the sites that parse rows and build records were
// sometimes judged so (about one process in two), and from then on every record went to the old
// generation: the server grew by 138-156 MB during a 1,000,000-record export before a full
// collection, against 3-18 MB in the other processes. With pretenuring off, 7 of 7 processes
// stayed at 4-18 MB (test/reliability/export.test.ts bounds it; docs/performance.md).
import v8 from 'node:v8';

v8.setFlagsFromString('--no-allocation-site-pretenuring');
