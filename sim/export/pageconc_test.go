package export

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestPageWriterConcurrentSinks: six sinks written at once (a sweep's
// workers; more than the two pooled zstd encoders, which pass between
// files as they close), some aborted, some extended, give each the bytes
// of parquet-go's GenericWriter for its records. Run with -race.
func TestPageWriterConcurrentSinks(t *testing.T) {
	const sinks = 6
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, sinks)
	for k := range sinks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newRandStream(uint64(1000 + k))
			recs := s.records(2000 + k*3000)
			info := FileInfo{Extended: k%2 == 1}
			for round := range 3 {
				path := filepath.Join(dir, fmt.Sprintf("r%d-%d.parquet", k, round))
				sink, err := NewParquetSinkInfo(path, info)
				if err != nil {
					errs[k] = err
					return
				}
				for i := range recs {
					if err := sink.Write(&recs[i]); err != nil {
						errs[k] = err
						return
					}
				}
				if (k+round)%3 == 2 {
					sink.Abort()
					continue
				}
				if err := sink.Close(); err != nil {
					errs[k] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for k := range sinks {
		if errs[k] != nil {
			t.Fatalf("sink %d: %v", k, errs[k])
		}
		s := newRandStream(uint64(1000 + k))
		want := syncParquetOf(t, s.records(2000+k*3000), k%2 == 1)
		for round := range 3 {
			got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("r%d-%d.parquet", k, round)))
			if (k+round)%3 == 2 {
				if err == nil {
					t.Errorf("sink %d round %d: aborted, but the file exists", k, round)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("sink %d round %d: %d bytes, parquet-go's GenericWriter %d", k, round, len(got), len(want))
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 12 {
		t.Errorf("the directory holds %d entries, want the 12 closed files", len(entries))
	}
}
