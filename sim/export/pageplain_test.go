package export

import (
	"bytes"
	"math"
	"runtime"
	"testing"
)

// TestPlainBytes: an integer page's bytes as they lie in memory
// (plainBytes, which endPage compresses without a copy) are the bytes of
// parquet-go's PLAIN encoding of the values (plain.Encoding.EncodeInt32,
// EncodeInt64) on the machine running the test; plainBytes is nil only on
// s390x, where parquet-go's encoding swaps the bytes (plain_be.go, built
// for s390x alone: on the other big-endian machines, ppc64, mips and
// mips64, it copies them as they lie, as plain_le.go does, so plainBytes
// must give them too). A parquet-go whose encoding copies on fewer
// machines fails here, before the differential tests.
func TestPlainBytes(t *testing.T) {
	i32 := []int32{0, 1, -1, math.MinInt32, math.MaxInt32, 0x01020304, 5000}
	i64 := []int64{0, 1, -1, math.MinInt64, math.MaxInt64, 0x0102030405060708, 7}
	want32, err := plainEncoding.EncodeInt32(nil, i32)
	if err != nil {
		t.Fatal(err)
	}
	want64, err := plainEncoding.EncodeInt64(nil, i64)
	if err != nil {
		t.Fatal(err)
	}
	got32, got64 := plainBytes(i32), plainBytes(i64)
	if runtime.GOARCH == "s390x" {
		if got32 != nil || got64 != nil {
			t.Fatalf("on s390x plainBytes gave %x and %x, want nil (parquet-go swaps the bytes)", got32, got64)
		}
		return
	}
	if !bytes.Equal(got32, want32) || !bytes.Equal(got64, want64) {
		t.Errorf("on %s plainBytes gave %x and %x, parquet-go's PLAIN encoding %x and %x", runtime.GOARCH, got32, got64, want32, want64)
	}
	if plainBytes([]int32{}) != nil || plainBytes([]int64(nil)) != nil {
		t.Error("plainBytes of no values is not nil")
	}
}
