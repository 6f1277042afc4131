//go:build linux

package hugeheap

import (
	"bufio"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// vma is one mapping of /proc/self/smaps: its address range, whether it is
// advised for huge pages (VmFlags "hg") and its AnonHugePages, KiB.
type vma struct {
	lo, hi  uintptr
	advised bool
	hugeKiB int
}

func mappings(t *testing.T) []vma {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	var out []vma
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				out = append(out, vma{lo: uintptr(a), hi: uintptr(b)})
				continue
			}
		}
		if len(out) == 0 {
			continue
		}
		cur := &out[len(out)-1]
		switch fields[0] {
		case "VmFlags:":
			for _, fl := range fields[1:] {
				if fl == "hg" {
					cur.advised = true
				}
			}
		case "AnonHugePages:":
			cur.hugeKiB, _ = strconv.Atoi(fields[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func thpMode(t *testing.T) string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		t.Skipf("kernel without transparent huge pages: %v", err)
	}
	s := string(b)
	i, j := strings.IndexByte(s, '['), strings.IndexByte(s, ']')
	if i < 0 || j < i {
		t.Skipf("unreadable THP mode %q", s)
	}
	return s[i+1 : j]
}

// TestPrepareOff: with FLEETSIM_HUGEPAGES off (any of its spellings),
// Prepare advises nothing and reports no error; with a value Setting does
// not allow, it returns the error and advises nothing before it. No
// advised mapping appears either way.
func TestPrepareOff(t *testing.T) {
	thpMode(t)
	before := advisedBytes(mappings(t))
	for _, v := range []string{"off", "0", "false", "OFF", "No", "maybe"} {
		t.Setenv(EnvVar, v)
		ok, err := Prepare()
		if wantErr := v == "maybe"; ok || (err != nil) != wantErr {
			t.Errorf("%s=%s: Prepare = %v, %v, want false and error %v", EnvVar, v, ok, err, wantErr)
		}
		if after := advisedBytes(mappings(t)); after != before {
			t.Errorf("%s=%s: advised bytes %d -> %d", EnvVar, v, before, after)
		}
	}
}

func advisedBytes(ms []vma) uintptr {
	var n uintptr
	for _, m := range ms {
		if m.advised {
			n += m.hi - m.lo
		}
	}
	return n
}

// TestPrepareAdvisesHeap: after Prepare, the objects the program allocates
// next land in advised memory (the page allocator's lowest-address-first
// rule, which the package relies on), and, where the kernel gives huge
// pages to advised memory, they are backed by huge pages.
func TestPrepareAdvisesHeap(t *testing.T) {
	mode := thpMode(t)
	if !available() {
		t.Skip("address-space or data limit set (ulimit -v, -d): Prepare is off")
	}
	t.Setenv(EnvVar, "")
	if ok, err := Prepare(); !ok || err != nil {
		t.Fatalf("Prepare = %v, %v: madvise(MADV_HUGEPAGE) refused", ok, err)
	}
	ms := mappings(t)
	if got := advisedBytes(ms); got < Size {
		t.Fatalf("advised bytes %d after Prepare, want >= %d", got, Size)
	}
	// 24 MiB in 16 KiB objects, kept live and written (touched).
	const n, each = 1536, 16 << 10
	keep := make([][]byte, n)
	for i := range keep {
		keep[i] = make([]byte, each)
		for j := 0; j < each; j += 4096 {
			keep[i][j] = 1
		}
	}
	ms = mappings(t)
	in := 0
	for _, b := range keep {
		p := reflect.ValueOf(b).Pointer()
		for _, m := range ms {
			if m.advised && p >= m.lo && p < m.hi {
				in++
				break
			}
		}
	}
	// The heap's free pages from before Prepare come first; the rest must
	// be in the advised block.
	if in < n/2 {
		t.Errorf("%d of %d new objects in advised memory, want at least half", in, n)
	}
	huge := 0
	for _, m := range ms {
		if m.advised {
			huge += m.hugeKiB
		}
	}
	t.Logf("THP mode %s: %d of %d objects in advised memory, %d KiB of it in huge pages", mode, in, n, huge)
	if (mode == "madvise" || mode == "always") && huge == 0 {
		// The kernel may lack free huge pages (fragmented memory): the
		// advice is still taken, the pages are 4 KiB.
		t.Logf("no huge pages given (fragmented memory?)")
	}
}

// TestPrepareUnderLimit: under an address-space limit (ulimit -v, here the
// soft RLIMIT_AS lowered to 1 TiB, far above this process's use), Prepare
// advises nothing and allocates no block: its 64 MiB could push a process
// near the limit over it, a fatal "out of memory" where the command ran
// before (`ulimit -v 800000; fleetsim version`).
func TestPrepareUnderLimit(t *testing.T) {
	thpMode(t)
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &orig); err != nil {
		t.Skipf("getrlimit: %v", err)
	}
	if orig.Cur == ^uint64(0) {
		lim := orig
		lim.Cur = 1 << 40
		if lim.Max < lim.Cur {
			lim.Cur = lim.Max
		}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
			t.Skipf("setrlimit: %v", err)
		}
		defer syscall.Setrlimit(syscall.RLIMIT_AS, &orig)
	}
	t.Setenv(EnvVar, "")
	before := advisedBytes(mappings(t))
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	sys := ms.HeapSys
	if ok, err := Prepare(); ok || err != nil {
		t.Errorf("RLIMIT_AS %d: Prepare = %v, %v, want false, nil", uint64(1<<40), ok, err)
	}
	runtime.ReadMemStats(&ms)
	if after := advisedBytes(mappings(t)); after != before {
		t.Errorf("RLIMIT_AS: advised bytes %d -> %d", before, after)
	}
	if ms.HeapSys >= sys+Size/2 {
		t.Errorf("RLIMIT_AS: heap grew %d -> %d bytes, the %d-byte block allocated", sys, ms.HeapSys, Size)
	}
}
