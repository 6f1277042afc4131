package export

import "os"

// writebackChunk is how many bytes an atomicFile accumulates before it
// starts their writeback (8 MiB: requests.parquet of a 1M-request run is
// about 64 MB, so its final fsync waits for at most the last 8 MiB instead
// of the whole file).
const writebackChunk = 8 << 20

// startWriteback starts writing the range [off, off+n) of f to disk without
// waiting for it (Linux: sync_file_range with SYNC_FILE_RANGE_WRITE;
// elsewhere nothing). It is advice: it changes neither the file's bytes
// nor what Commit's fsync guarantees, and its error is ignored (the fsync
// reports any). A variable so that tests can watch the calls.
var startWriteback = func(f *os.File, off, n int64) { writeback(f, off, n) }
