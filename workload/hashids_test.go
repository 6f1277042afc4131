package workload

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMooncakeHashIDsKept: trace replay keeps hash_ids as the request's
// Prefix (512-token units). The first row of the conversation trace has
// input_length 6,758 and hash_ids 0..13 (ceil(6758/512) = 14).
func TestMooncakeHashIDsKept(t *testing.T) {
	src, err := NewSource(Spec{Trace: filepath.Join("testdata", "mooncake_conversation_trace.jsonl"), Requests: 3}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var r Request
	if !src.Next(&r) {
		t.Fatal("no request")
	}
	want := make([]uint64, 14)
	for i := range want {
		want[i] = uint64(i)
	}
	if r.Prefix == nil || r.Prefix.Tokens != MooncakeHashTokens || !slices.Equal(r.Prefix.Hashes, want) || r.InputTokens != 6758 {
		t.Fatalf("first request %+v prefix %+v, want 6,758 tokens with hash_ids 0..13", r, r.Prefix)
	}
	// A row without hash_ids has no prefix.
	path := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(path, []byte(`{"timestamp": 0, "input_length": 600, "output_length": 1, "hash_ids": [5, 6]}`+"\n"+
		`{"timestamp": 1, "input_length": 7, "output_length": 1}`+"\n"), 0o644)
	src, err = NewSource(Spec{Trace: path, Requests: 10}, 1)
	if err != nil {
		t.Fatal(err)
	}
	src.Next(&r)
	if r.Prefix == nil || !slices.Equal(r.Prefix.Hashes, []uint64{5, 6}) {
		t.Errorf("row 1 prefix %+v", r.Prefix)
	}
	src.Next(&r)
	if r.Prefix != nil {
		t.Errorf("row 2 prefix %+v, want nil", r.Prefix)
	}
}

// TestMooncakeBadHashIDs: hash lists that are not arrays of non-negative
// integers are one-line errors naming the field.
func TestMooncakeBadHashIDs(t *testing.T) {
	for _, v := range []string{`"0,1"`, `[1.5]`, `[-1]`, `[1, "a"]`, `{}`, `7`, `[18446744073709551616]`, `[1e3]`, `true`} {
		line := `{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": ` + v + `}`
		_, err := NewMooncakeReader("t.jsonl", strings.NewReader(line)).Next()
		want := `workload: trace "t.jsonl": line 1: hash_ids = ` + "\"" + strings.ReplaceAll(v, `"`, `\"`) + "\"" + `: must be an array of non-negative integers (prefix-block hashes)`
		if err == nil || err.Error() != want {
			t.Errorf("hash_ids %s: got %v, want %s", v, err, want)
		}
	}
	for _, v := range []string{`[]`, `null`, `[0, 18446744073709551615]`} {
		line := `{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": ` + v + `}`
		if _, err := NewMooncakeReader("t.jsonl", strings.NewReader(line)).Next(); err != nil {
			t.Errorf("hash_ids %s: %v", v, err)
		}
	}
}
